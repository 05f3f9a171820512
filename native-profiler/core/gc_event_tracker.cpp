#include "core/gc_event_tracker.h"

#include "core/gc_event_payloads.h"

namespace clrscope {

void GcEventTracker::on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                      uint64_t mono, uint32_t tid) {
  GcEventRecord r;
  if (!gc_event_from_runtime_event(event_id, version, data, size, sizeof(void*), &r)) return;
  r.mono = mono;
  r.tid = tid;
  held_.add(r);
}

}  // namespace clrscope
