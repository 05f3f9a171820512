#pragma once
// The runtime's events that are not a GC's, as they arrive on the runtime's threads: the thread
// pool's (core/threadpool_event_payloads.h) and a thread's blocking waits
// (core/wait_event_payloads.h), held for the sampler thread to send as RUNTIME_EVENT records.
// Kept apart from the GC events (core/gc_event_tracker.h) so that a program waiting thousands of
// times a second cannot push a GC's events out of the bound; bounded itself (core/held_events.h).
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/held_events.h"
#include "core/wire_writer.h"

namespace clrscope {

class RuntimeEventTracker {
 public:
  static constexpr size_t kMaxHeld = 65536;

  // A runtime thread, as EventPipeEventDelivered hands it one of the runtime's events: kept when
  // it is one of the pool's or a wait's. `tid`: the OS thread that raised it.
  void on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size, uint64_t mono,
                        uint32_t tid);

  // Sampler thread: the events held since the last call, in order of arrival.
  void take(std::vector<RuntimeEventRecord>* out) { held_.take(out); }

  uint64_t dropped() const { return held_.dropped(); }
  // Waits seen (WaitHandleWaitStart), for the log: a .NET 8 runtime never raises them.
  uint64_t waits() const { return waits_.load(std::memory_order_relaxed); }

 private:
  HeldEvents<RuntimeEventRecord, kMaxHeld> held_;
  std::atomic<uint64_t> waits_{0};
};

}  // namespace clrscope
