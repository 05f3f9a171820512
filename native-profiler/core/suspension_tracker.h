#pragma once
// Turns the runtime's suspend/GC/resume notifications into one record per suspension: when it
// began, how long it took to stop every thread, how long the program was paused, why, and which
// generation a GC collected in it. The runtime serializes suspensions and calls these on the
// suspending thread; the sampler thread takes the finished records.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/runtime_counters.h"
#include "core/wire_writer.h"

namespace clrscope {

class SuspensionTracker {
 public:
  explicit SuspensionTracker(RuntimeCounters* counters) : counters_(counters) {}

  void on_suspend_started(uint8_t reason, uint64_t now);
  void on_suspend_finished(uint64_t now);
  void on_suspend_aborted(uint64_t now);
  void on_gc_started(int highest_generation, bool induced);
  void on_resume_finished(uint64_t now);

  // Whether the runtime is suspended now (between RuntimeSuspendStarted and RuntimeResumeFinished
  // or an abort). A background GC's GarbageCollectionFinished comes with it running.
  bool suspended() const { return suspended_.load(std::memory_order_acquire); }

  // Sampler thread: the suspensions finished since the last call, in order of their end.
  void take(std::vector<SuspensionRecord>* out);

 private:
  void finish_locked(uint64_t now, bool aborted);

  RuntimeCounters* counters_;
  std::mutex mu_;
  bool active_ = false;
  std::atomic<bool> suspended_{false};
  SuspensionRecord current_{};
  std::vector<SuspensionRecord> done_;
};

}  // namespace clrscope
