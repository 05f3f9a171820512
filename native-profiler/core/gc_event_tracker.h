#pragma once
// The runtime's GC events (core/gc_event_payloads.h) as they arrive on the runtime's threads,
// held for the sampler thread to send as GC_EVENT records (the runtime's other events have
// core/runtime_event_tracker.h). About ten events per GC; bounded (core/held_events.h).
#include <cstdint>
#include <vector>

#include "core/held_events.h"
#include "core/wire_writer.h"

namespace clrscope {

class GcEventTracker {
 public:
  static constexpr size_t kMaxHeld = 65536;

  // A runtime thread, as EventPipeEventDelivered hands it one of the runtime's events: kept when
  // it is a GC event the table reads. `tid`: the OS thread that raised it.
  void on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size, uint64_t mono,
                        uint32_t tid);

  // Sampler thread: the events held since the last call, in order of arrival.
  void take(std::vector<GcEventRecord>* out) { held_.take(out); }

  uint64_t dropped() const { return held_.dropped(); }

 private:
  HeldEvents<GcEventRecord, kMaxHeld> held_;
};

}  // namespace clrscope
