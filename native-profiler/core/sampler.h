#pragma once
// The sampler thread: asks threads for wall-time captures in rotation, drains the capture
// ring, symbolizes, encodes and sends. Everything slow happens here, never in a handler and
// never on a thread of the target.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/async_tracker.h"
#include "core/outbox.h"
#include "core/sampling_shared.h"
#include "core/counters_block.h"
#include "core/event_capture.h"
#include "core/message_table.h"
#include "core/live_heap.h"
#include "core/module_table.h"
#include "core/suspension_tracker.h"
#include "core/symbol_cache.h"
#include "core/tick_hook.h"
#include "core/transport.h"
#include "core/thread_registry.h"
#include "core/wire_writer.h"

namespace clrscope {

struct SamplerConfig {
  uint64_t interval_ns = 10000000;
  bool cpu = true;
  bool wall = true;
  uint32_t wall_threads_per_tick = 64;
  // A wall request not answered within this time is abandoned (thread stopped, signal masked).
  uint64_t watchdog_ns = 250000000;
  size_t outbox_bytes = 8u << 20;
  bool attached = false;
  std::string runtime_version;
  std::string profiler_version;
};

class Sampler {
 public:
  Sampler(const SamplerConfig& config, SamplingShared* shared, FrameResolver* resolver,
          std::unique_ptr<Transport> transport);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Suspensions to report on the stream (optional; set before start()).
  void attach_suspensions(SuspensionTracker* tracker) { suspensions_ = tracker; }
  // The counters block to refresh every tick (optional; set before start()).
  void attach_counters(CountersBlock* block) { counters_ = block; }
  // Counts of events over their stack budget, sent by type without stacks (optional; set
  // before start()).
  void attach_skipped_exceptions(TypeCounts* counts) { skipped_exceptions_ = counts; }
  // The live heap whose survivors are sent after GCs (optional; set before start()).
  void attach_live_heap(LiveHeap* live);
  // Work of the measuring controller in step with the stream (optional; set before start()).
  void attach_tick_hook(TickHook* hook) { tick_hook_ = hook; }
  // Async call stacks: each sample taken in an async box names its task on the stream (TASK
  // records for the task and its awaiters); with `log`, also logs its logical chain.
  void attach_async(AsyncTracker* tracker, bool log) {
    async_ = tracker;
    async_log_ = log;
  }
  // Runs on the sampler thread, as its last act, when the reader went away (an attached
  // profiler detaches from there). Set before start().
  void on_quiet(std::function<void()> hook) { quiet_hook_ = std::move(hook); }
  // Joins the thread after it ended on its own (after on_quiet); false if it was not joinable.
  bool join();

  bool start();
  // Ends the stream with an END record and waits up to timeout_ms for the thread to finish.
  // False when it did not finish in time (it is then left running, detached).
  bool stop(uint8_t end_reason, int timeout_ms);
  bool quiet() const { return quiet_.load(std::memory_order_relaxed); }
  // Wall samples of suspended async operations sent (read after stop()).
  uint64_t suspended_samples() const { return suspended_samples_; }

  // One iteration of the loop, exposed so tests can drive it without a thread.
  // tick() with every exception caught and logged; false when sampling had to stop.
  bool guarded_tick(uint64_t now);
  void tick(uint64_t now);
  void begin_stream();
  void end_stream(uint8_t reason);

 private:
  // What the sampler knows of one thread (by wire id). Sampler thread only.
  struct ThreadState {
    uint64_t last_wall_mono = 0;
    uint64_t wall_requested_mono = 0;
    // Values of captures that could not walk the stack yet (bounds unknown), carried to the
    // thread's next sample.
    uint64_t carry_cpu_ns = 0;
    uint64_t carry_wall_ns = 0;
    uint32_t probes = 0;
    uint32_t retries = 0;  // captures in a row retaken because the walk met code loaded after its table
    bool native = false;  // not reported by the runtime: CPU samples only
    bool gc_thread = false;  // one of the runtime's collector threads (core/gc_frame.h)
    // The last wall capture, kept to answer for a thread that has not run since (see
    // reuse_idle_stack). Cleared by any CPU sample (the thread ran).
    bool memo = false;
    bool memo_checked = false;  // its waiting state was confirmed once; from then on, CPU decides
    uint64_t memo_cpu = 0;      // the thread's CPU clock when the memo was made or confirmed
    uint64_t memo_switches = 0;
    uint8_t memo_flags = 0;     // incomplete / elided bits of that capture
    std::vector<uint32_t> memo_frames;
    // The stack of the thread's latest sample, for CPU that comes without a capture.
    uint8_t last_flags = 0;
    std::vector<uint32_t> last_frames;
    // The CPU mark the sampler last set for CPU no capture brought in; 0 when the thread is not
    // on the list of threads checked every tick.
    uint64_t unanswered_mark = 0;
    bool unanswered_blocked = false;  // why, read when it was put on the list
    // The mark and the thread's clock at the previous periodic look: a thread is taken for not
    // answering only when its mark held still between two looks while its clock moved on.
    uint64_t looked_mark = ~0ull;
    uint64_t looked_cpu = 0;
  };
  // One capture taken out of the ring, its frames resolved.
  struct Drained {
    uint64_t mono, cpu_ns, wall_ns, cpu_after, switches;
    uint32_t wire_id, generation, slot;
    size_t pc_first, pc_count;  // in pcs_
    size_t first, count;        // in ids_, once resolved
    uint8_t kinds;
    uint8_t osr_pairs;
    uint16_t osr_at[kMaxOsrPairs];  // in pcs_, from pc_first
    uint8_t walk_flags;  // what the walk itself said
    uint8_t flags;       // the sample's flags once named
    // The walk broke in native code loaded after the module table it used: not emitted, but
    // taken again once the table knows the code (see drain_captures).
    bool retake;
    // Event captures (kinds kCaptureEvent): Capture's event fields.
    uint8_t event_kind;
    bool event_has_value2;
    uint64_t event_type, event_value1, event_value2, event_live;
    uint32_t event_message;  // the message's STRING id (0: none)
    uint32_t async_box;
    bool collecting;  // the thread was performing a garbage collection (core/gc_frame.h)
  };
  // A tracked allocation as the stream knows it (by live-heap slot): the token it was tracked
  // under, and what its live-set events carry. Sampler thread only.
  struct LiveEntry {
    uint64_t token = 0;
    uint32_t thread_id = 0;
    uint32_t label_id = 0;
    uint8_t stack_flags = 0;
    uint64_t bytes = 0;
    uint64_t objects = 0;
    std::vector<uint32_t> frames;
  };

  void run();
  void emit_thread_events();
  void scan_os_threads(uint64_t now);
  void request_wall_samples(uint64_t now);
  void drain_captures();
  void take_capture(const Capture& c);
  void log_async_sample(const Drained& d);
  // Sends TASK records for `box` and its awaiters that the reader does not have as they are now.
  void define_task_chain(uint32_t box);
  // Wall samples of async operations suspended at the leaf of their chain (sampler_async.cpp):
  // at most `max` this tick, on the synthetic "[async operations]" thread.
  void emit_suspended_ops(uint64_t now, size_t max);
  uint32_t awaiting_frame(uint32_t awaited);
  // The key of a charge: the names along its operation's chain (as the reader will see it) and
  // its leaf frame; charges with equal keys have the same logical stack.
  void charge_key(const SuspendedCharge& c, uint32_t leaf, std::string* key) const;
  uint32_t string_id(const std::string& text);
  bool refresh_modules();
  void resolve(Drained& d);
  void emit(const Drained& d);
  void retake(const Drained& d);
  void emit_event(const Drained& d);
  void emit_skipped_events();
  void keep_live(const Drained& d, const EventRecord& e, const uint32_t* frames, uint16_t count);
  void emit_live_set(uint64_t now, bool last);
  uint32_t type_label(uint64_t type_id);
  void emit_suspensions();
  void emit_stats(uint64_t now);
  bool reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, ThreadState& t, uint64_t now);
  // CPU that threads used without a capture bringing it in (sampler_unanswered.cpp); `all`: every
  // thread now, not a share per tick.
  void account_unanswered_cpu(uint64_t now, bool all);
  // Charges the CPU past `mark` on slot `index` (read as `cpu`) when it is at least `threshold`.
  // `listed`: the thread is on the list (checked every tick); else this is a periodic look.
  void charge_unanswered(uint32_t index, uint32_t wire_id, uint64_t now, uint64_t threshold, bool listed);
  void emit_unanswered(uint32_t wire_id, uint64_t now, uint64_t cpu_ns, bool blocked);
  // The CPU a thread used after its last capture, read as it ended (ThreadEvent::final_cpu_ns).
  void emit_final_cpu(const ThreadEvent& e);
  void go_quiet();
  void finish_on_request();
  std::string display_name(const ThreadEvent& e, const std::string& os_name) const;
  // Puts the [GC] frame into a resolved sample's stack where it belongs (core/gc_frame.h).
  void add_gc_frame(Drained& d);

  SamplerConfig config_;
  SamplingShared* shared_;
  std::unique_ptr<Transport> transport_;
  Outbox outbox_;
  WireWriter writer_;
  SymbolCache symbols_;
  uint32_t elided_id_ = 0;
  uint32_t unloaded_id_ = 0;
  uint32_t gc_id_ = 0;  // the [GC] frame, defined at its first use
  std::vector<ThreadEvent> events_;
  std::vector<bool> announced_;  // by wire id
  std::unordered_map<uint32_t, ThreadState> threads_;
  std::vector<Drained, PageAllocator<Drained>> batch_;
  std::vector<uintptr_t, PageAllocator<uintptr_t>> pcs_;
  std::vector<uint32_t, PageAllocator<uint32_t>> ids_;
  std::vector<OsThread> os_threads_;
  FrameResolver* resolver_;
  TypeCounts* skipped_exceptions_ = nullptr;
  // Event labels: the STRING id of each type named so far (by ClassID), and of each text.
  std::unordered_map<uint64_t, uint32_t> type_labels_;
  std::unordered_map<std::string, uint32_t> label_ids_;
  MessageTable messages_;
  uint64_t events_sent_ = 0;
  LiveHeap* live_ = nullptr;
  std::vector<LiveEntry> live_entries_;  // by live-heap slot
  uint64_t live_sent_sweeps_ = 0;        // the sweep count the last live set reflected
  uint64_t live_sent_mono_ = 0;
  uint64_t live_sets_ = 0;
  SuspensionTracker* suspensions_ = nullptr;
  CountersBlock* counters_ = nullptr;
  TickHook* tick_hook_ = nullptr;
  AsyncTracker* async_ = nullptr;
  bool async_log_ = false;
  // TASK records sent: task id -> awaiter << 32 | name STRING id (bounded: cleared when large).
  std::unordered_map<uint32_t, uint64_t> tasks_sent_;
  std::vector<std::string> async_names_;           // frame id -> its function's name, kept only with async_
  std::vector<std::string> async_function_names_;  // function id -> name, kept only with async_
  uint32_t async_thread_id_ = 0;   // the "[async operations]" thread's wire id, once announced
  uint32_t suspended_frame_ = 0;   // the "[suspended]" frame
  std::unordered_map<std::string, uint32_t> awaiting_frames_;  // awaited task's name -> "[awaiting …]" frame
  std::vector<uint32_t> awaiting_by_index_;                    // name index -> that frame (0 none, ~0u not yet)
  std::vector<SuspendedCharge> suspended_;
  // One tick's charges summed per key (charge_key): one sample each, its task the first charged.
  struct ChargeGroup {
    uint32_t task;
    uint32_t leaf;
    uint64_t wall_ns;
    uint32_t suspended;  // its operations still suspended there at the tick
  };
  std::unordered_map<std::string, size_t> group_index_;
  std::vector<ChargeGroup> groups_;
  std::string key_;
  uint64_t suspended_samples_ = 0;
  std::function<void()> quiet_hook_;
  std::vector<SuspensionRecord> suspension_batch_;
  uint64_t wall_reused_ = 0;
  uint64_t next_unanswered_mono_ = 0;
  uint32_t unanswered_cursor_ = 0;
  uint64_t unanswered_cpu_ns_ = 0;     // CPU sent without a capture, for the log
  uint64_t unanswered_samples_ = 0;
  uint32_t blocked_frame_ = 0;         // "[CPU without a stack: signal blocked]", once used
  uint32_t uncaptured_frame_ = 0;      // "[CPU without a stack: not captured]", once used
  std::vector<uint32_t> unanswered_stack_;
  // Threads found not answering, checked every tick from then on (slot index, wire id), so that
  // a thread that ends blocked leaves at most a tick or two of CPU out.
  std::vector<std::pair<uint32_t, uint32_t>> unanswered_;
  uint32_t wall_cursor_ = 0;
  uint64_t last_stats_mono_ = 0;
  // Suspended async operations charged per tick at most (a round-robin cursor covers the rest
  // on later ticks, each charge covering the time since that operation's previous one); the
  // charges go out summed per logical stack, so the samples per tick are the distinct chains.
  static constexpr size_t kSuspendedPerTick = 4096;
  // Ticks that run long or start late are logged, at most once per kSlowLogEveryNs.
  static constexpr uint64_t kSlowTickNs = 200000000ull;
  static constexpr uint64_t kSlowLogEveryNs = 10000000000ull;
  uint64_t last_slow_log_mono_ = 0;
  uint64_t next_os_scan_mono_ = 0;
  uint32_t os_scans_ = 0;
  uint64_t samples_sent_ = 0;
  uint64_t dropped_buffer_full_ = 0;
  bool handler_lost_ = false;
  uint64_t handler_lost_mono_ = 0;  // when it was found lost (STATS says so)
  bool wait_state_known_ = true;  // the OS tells a thread's waiting state (else no idle reuse)

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool finished_ = false;
  uint8_t end_reason_ = 0;
  std::atomic<bool> quiet_{false};
};

}  // namespace clrscope
