#include "core/runtime_event_tracker.h"

#include "core/threadpool_event_payloads.h"
#include "core/wait_event_payloads.h"

namespace clrscope {

void RuntimeEventTracker::on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                           uint64_t mono, uint32_t tid) {
  RuntimeEventRecord r;
  if (!threadpool_event_from_runtime_event(event_id, version, data, size, &r) &&
      !wait_event_from_runtime_event(event_id, version, data, size, sizeof(void*), &r)) {
    return;
  }
  r.mono = mono;
  r.tid = tid;
  held_.add(r);
  if (event_id == wait_events::kWaitStart) waits_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace clrscope
