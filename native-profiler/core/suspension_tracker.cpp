#include "core/suspension_tracker.h"

namespace clrscope {

void SuspensionTracker::on_suspend_started(uint8_t reason, uint64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  // A suspension we never saw end (callbacks enabled mid-flight) is dropped, not merged.
  active_ = true;
  suspended_.store(true, std::memory_order_release);
  current_ = SuspensionRecord{now, 0, 0, reason, -1, 0};
}

void SuspensionTracker::on_suspend_finished(uint64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_) current_.suspend_ns = now - current_.mono;
}

void SuspensionTracker::on_suspend_aborted(uint64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_) finish_locked(now, true);
}

void SuspensionTracker::on_gc_started(int highest_generation, bool induced) {
  for (int g = 0; g <= highest_generation && g < 3; ++g) counters_->add(counters_->collections[g]);
  if (induced) counters_->add(counters_->induced);
  std::lock_guard<std::mutex> lock(mu_);
  if (!active_) return;
  if (highest_generation > current_.generation) current_.generation = static_cast<int8_t>(highest_generation);
  if (induced) current_.flags |= wire::kSuspensionInduced;
}

void SuspensionTracker::on_resume_finished(uint64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_) finish_locked(now, false);
}

void SuspensionTracker::finish_locked(uint64_t now, bool aborted) {
  active_ = false;
  suspended_.store(false, std::memory_order_release);
  current_.duration_ns = now - current_.mono;
  if (aborted) current_.flags |= wire::kSuspensionAborted;
  counters_->add(counters_->paused_ns, current_.duration_ns);
  if (current_.generation >= 0) {
    counters_->add(counters_->gc_paused_ns, current_.duration_ns);
    counters_->last_gc_pause_ns.store(current_.duration_ns, std::memory_order_relaxed);
  }
  // Bounded: if nobody reads (the stream went quiet), old records make room for new ones.
  if (done_.size() >= 65536) done_.erase(done_.begin(), done_.begin() + 32768);
  done_.push_back(current_);
}

void SuspensionTracker::take(std::vector<SuspensionRecord>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->insert(out->end(), done_.begin(), done_.end());
  done_.clear();
}

}  // namespace clrscope
