#include "core/request_tracker.h"

#include <utility>

namespace clrscope {

void RequestTracker::on_event(const uint8_t* data, size_t size, uint64_t mono, uint32_t tid) {
  RequestEvent e;
  if (parse_request_event(data, size, &e)) on_request_event(e, mono, tid);
}

void RequestTracker::on_request_event(const RequestEvent& e, uint64_t mono, uint32_t tid) {
  const uint64_t key = span_key(e.span_id);
  if (key == 0) return;
  if (e.start) {
    HeldRequest r;
    r.start_mono = mono;
    r.start_tid = tid;
    r.method = e.method;
    r.endpoint = e.path;  // until the stop's route values make it a pattern
    r.trace_id = e.trace_id;
    r.span_id = e.span_id;
    std::lock_guard<std::mutex> lock(mu_);
    if (open_.size() >= kMaxInFlight) {
      ++untracked_;
      return;
    }
    open_[key] = std::move(r);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_.find(key);
  if (it == open_.end()) return;  // begun before the session, or not tracked
  HeldRequest r = std::move(it->second);
  open_.erase(it);
  r.end_mono = mono;
  r.end_tid = tid;
  r.status = e.status;
  r.endpoint = route_pattern(r.endpoint, e.route_values);
  if (ended_.size() >= kMaxHeld) {
    ended_.erase(ended_.begin(), ended_.begin() + kMaxHeld / 2);
    dropped_ += kMaxHeld / 2;
  }
  ended_.push_back(std::move(r));
}

void RequestTracker::take(std::vector<HeldRequest>* out, bool in_flight) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : ended_) out->push_back(std::move(r));
  ended_.clear();
  if (in_flight) {
    for (auto& [key, r] : open_) out->push_back(r);
  }
}

uint64_t RequestTracker::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

uint64_t RequestTracker::untracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return untracked_;
}

}  // namespace clrscope
