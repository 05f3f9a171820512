#pragma once
// Records the runtime's threads hand over, held for the sampler thread to send: the GC events
// (core/gc_event_tracker.h) and the runtime's other events (core/runtime_event_tracker.h).
// Bounded, so a stream that stopped being read cannot make it grow: at the bound the oldest half
// goes, counted.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace clrscope {

template <typename Record, size_t kMaxHeld = 65536>
class HeldEvents {
 public:
  HeldEvents() { held_.reserve(1024); }

  // A runtime thread: keeps one record.
  void add(const Record& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (held_.size() >= kMaxHeld) {
      held_.erase(held_.begin(), held_.begin() + kMaxHeld / 2);
      dropped_ += kMaxHeld / 2;
    }
    held_.push_back(r);
  }

  // Sampler thread: the records held since the last call, in order of arrival.
  void take(std::vector<Record>* out) {
    std::lock_guard<std::mutex> lock(mu_);
    out->insert(out->end(), held_.begin(), held_.end());
    held_.clear();
  }

  uint64_t dropped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return dropped_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Record> held_;
  uint64_t dropped_ = 0;
};

}  // namespace clrscope
