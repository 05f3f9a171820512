#pragma once
// The sampler thread: the stream's lifecycle (HELLO, a tick every interval, END) over small
// rooms, each in a file of its own: the thread scan, the wall scheduler, the capture drain
// (symbolizing), the CPU that came without a capture, and the emitters, one per kind of record
// (core/emitter.h). Everything slow happens here, never in a handler and never on a thread of
// the target.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "core/sampler_config.h"

namespace clrscope {

class AsyncTracker;
class HeapChains;
class CountersBlock;
class FrameResolver;
class LiveHeap;
class GcEventTracker;
class RuntimeEventTracker;
class RequestTracker;
struct RuntimeGauges;
class SuspensionTracker;
class TickHook;
class Transport;
class TypeCounts;
struct HelloRecord;
struct SamplingShared;

class Sampler {
 public:
  Sampler(const SamplerConfig& config, SamplingShared* shared, FrameResolver* resolver,
          std::unique_ptr<Transport> transport);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Suspensions to report on the stream (optional; set before start()).
  void attach_suspensions(SuspensionTracker* tracker) { parts_.suspensions = tracker; }
  void attach_gc_events(GcEventTracker* tracker) { parts_.gc_events = tracker; }
  void attach_runtime_events(RuntimeEventTracker* tracker) { parts_.runtime_events = tracker; }
  void attach_requests(RequestTracker* tracker) { parts_.requests = tracker; }
  // System.Runtime's figures, of which the thread pool's go on the stream (optional; set before start()).
  void attach_pool_gauges(const RuntimeGauges* gauges) { parts_.pool_gauges = gauges; }
  // The counters block to refresh every tick (optional; set before start()).
  void attach_counters(CountersBlock* block) { parts_.counters = block; }
  // Counts of events over their stack budget, sent by type without stacks (optional; set
  // before start()).
  void attach_skipped_exceptions(TypeCounts* counts) { parts_.skipped_exceptions = counts; }
  // The live heap whose survivors are sent after GCs (optional; set before start()).
  void attach_live_heap(LiveHeap* live) { parts_.live = live; }
  // Work of the measuring controller in step with the stream (optional; set before start()).
  void attach_tick_hook(TickHook* hook) { tick_hook_ = hook; }
  // Async call stacks: each sample taken in an async box names its task on the stream (TASK
  // records for the task and its awaiters); with `log`, also logs its logical chain.
  void attach_async(AsyncTracker* tracker, bool log) {
    parts_.async = tracker;
    parts_.async_log = log;
  }
  // Async call stacks read from the heap at sample time instead (core/heap_chains.h).
  void attach_heap_chains(HeapChains* chains, bool log) {
    parts_.heap = chains;
    parts_.async_log = log;
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
  uint64_t suspended_samples() const;

  // One iteration of the loop, exposed so tests can drive it without a thread.
  // tick() with every exception caught and logged; false when sampling had to stop.
  bool guarded_tick(uint64_t now);
  void tick(uint64_t now);
  void begin_stream();
  void end_stream(uint8_t reason);

 private:
  // What was attached before start(): which emitters register_emitters adds.
  struct Parts {
    SuspensionTracker* suspensions = nullptr;
    GcEventTracker* gc_events = nullptr;
    RuntimeEventTracker* runtime_events = nullptr;
    RequestTracker* requests = nullptr;
    const RuntimeGauges* pool_gauges = nullptr;
    CountersBlock* counters = nullptr;
    TypeCounts* skipped_exceptions = nullptr;
    LiveHeap* live = nullptr;
    AsyncTracker* async = nullptr;
    HeapChains* heap = nullptr;
    bool async_log = false;
  };
  // The rooms (sampler_rooms.h), made at construction.
  struct Rooms;

  void run();
  // The one list of emitters, in the order their records go out each tick (sampler_emitters.cpp).
  void register_emitters();
  // The emitters' held records go out (each tick; `last` at the end of the stream).
  void flush_emitters(uint64_t now, bool last, bool wall);
  HelloRecord hello_record(uint64_t mono) const;
  // The stream's descriptor was taken by the program: tells the reader why on a new connection
  // (sampler_lost.cpp), once.
  void report_lost_connection();
  void log_totals();
  void go_quiet();
  void finish_on_request();
  // The program took the capture signal over: captures stop, the stream goes on.
  void stop_captures_for_lost_signal(uint64_t now);

  SamplerConfig config_;
  SamplingShared* shared_;
  std::unique_ptr<Transport> transport_;
  Parts parts_;
  TickHook* tick_hook_ = nullptr;
  std::unique_ptr<Rooms> rooms_;
  std::function<void()> quiet_hook_;
  bool lost_reported_ = false;
  // Ticks that run long or start late are logged, at most once per kSlowLogEveryNs.
  static constexpr uint64_t kSlowTickNs = 200000000ull;
  static constexpr uint64_t kSlowLogEveryNs = 10000000000ull;
  uint64_t last_slow_log_mono_ = 0;

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool finished_ = false;
  uint8_t end_reason_ = 0;
  std::atomic<bool> quiet_{false};
};

}  // namespace clrscope
