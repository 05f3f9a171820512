#include "core/gc_event_tracker.h"

#include "core/gc_event_payloads.h"

namespace clrscope {

void GcEventTracker::on_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                      uint64_t mono, uint32_t tid) {
  GcEventRecord r;
  if (!gc_event_from_runtime_event(event_id, version, data, size, sizeof(void*), &r)) return;
  r.mono = mono;
  r.tid = tid;
  std::lock_guard<std::mutex> lock(mu_);
  if (held_.size() >= kMaxHeld) {
    held_.erase(held_.begin(), held_.begin() + kMaxHeld / 2);
    dropped_ += kMaxHeld / 2;
  }
  held_.push_back(r);
}

void GcEventTracker::take(std::vector<GcEventRecord>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->insert(out->end(), held_.begin(), held_.end());
  held_.clear();
}

uint64_t GcEventTracker::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

}  // namespace clrscope
