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

#include "core/outbox.h"
#include "core/sampling_shared.h"
#include "core/counters_block.h"
#include "core/suspension_tracker.h"
#include "core/symbol_cache.h"
#include "core/transport.h"
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

  // One iteration of the loop, exposed so tests can drive it without a thread.
  void tick(uint64_t now);
  void begin_stream();
  void end_stream(uint8_t reason);

 private:
  void run();
  void emit_thread_events();
  void request_wall_samples(uint64_t now);
  void drain_captures();
  void emit_capture(const Capture& c);
  void emit_stats(uint64_t now);
  void emit_suspensions();
  bool reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, uint64_t now);
  void go_quiet();

  SamplerConfig config_;
  SamplingShared* shared_;
  std::unique_ptr<Transport> transport_;
  Outbox outbox_;
  WireWriter writer_;
  SymbolCache symbols_;
  uint32_t elided_id_ = 0;
  std::vector<uint32_t> ids_;
  std::vector<ThreadEvent> events_;
  std::vector<bool> announced_;  // by wire id
  // The last wall capture of each thread, kept to answer for a thread that has not run since
  // (see reuse_idle_stack).
  struct WallMemo {
    uint64_t thread_cpu_after = 0;
    uint8_t flags = 0;  // incomplete / elided bits of that capture
    std::vector<uint32_t> frames;
  };
  std::unordered_map<uint32_t, WallMemo> wall_memo_;
  SuspensionTracker* suspensions_ = nullptr;
  CountersBlock* counters_ = nullptr;
  std::function<void()> quiet_hook_;
  std::vector<SuspensionRecord> suspension_batch_;
  uint64_t wall_reused_ = 0;
  uint32_t wall_cursor_ = 0;
  uint64_t last_stats_mono_ = 0;
  uint64_t samples_sent_ = 0;
  uint64_t dropped_buffer_full_ = 0;
  bool handler_lost_ = false;

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool finished_ = false;
  uint8_t end_reason_ = 0;
  std::atomic<bool> quiet_{false};
};

}  // namespace clrscope
