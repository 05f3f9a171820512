#pragma once
// The runtime's GC events (core/gc_event_payloads.h) as they arrive on the runtime's threads,
// held for the sampler thread to send as GC_EVENT records (the runtime's other events have
// core/runtime_event_tracker.h). About ten events per GC; bounded, so
// a stream that stopped being read cannot make it grow (the oldest half goes, counted).
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/wire_writer.h"

namespace clrscope {

class GcEventTracker {
 public:
  static constexpr size_t kMaxHeld = 65536;

  GcEventTracker() { held_.reserve(1024); }

  // A runtime thread, as EventPipeEventDelivered hands it one of the runtime's events: kept when
  // it is a GC event the table reads. `tid`: the OS thread that raised it.
  void on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size, uint64_t mono,
                        uint32_t tid);

  // Sampler thread: the events held since the last call, in order of arrival.
  void take(std::vector<GcEventRecord>* out);

  uint64_t dropped() const;

 private:
  mutable std::mutex mu_;
  std::vector<GcEventRecord> held_;
  uint64_t dropped_ = 0;
};

}  // namespace clrscope
