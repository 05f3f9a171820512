#pragma once
// Event samples (an exception thrown, a lock waited for, an allocation sampled) captured on the
// thread they happened on, from inside the runtime's callback: the thread walks its own stack
// with the signal handler's walker, synchronously, and hands the raw frames to the sampler
// thread through a ring of its own. Runs in normal context (never in a signal handler), but on a
// target thread, so it stays cheap: one walk, no symbolization, no allocation once the thread's
// stack bounds are known.
#include <atomic>
#include <cstdint>

#include "core/sampling_shared.h"

namespace clrscope {

struct EventInfo {
  uint8_t kind = 0;       // wire::EventKind
  uint64_t type_id = 0;   // the runtime's ClassID naming the event (0: none)
  uint64_t value1 = 0;
  uint64_t value2 = 0;
  bool has_value2 = false;
  // Allocations: the sampled object's address as the event gave it (0: the event has none), and
  // the live-heap token of its weak handle (core/live_heap.h; 0: not tracked).
  uint64_t object = 0;
  uint64_t live_token = 0;
  // Exceptions: the message's UTF-16 units where they lie (inside the managed string, which
  // cannot move while the throwing thread is in its callback) and the string's length; nullptr:
  // no message. record_event copies at most kMaxEventText units into the event ring.
  const char16_t* text = nullptr;
  uint32_t text_len = 0;
};

// Records the event with the calling thread's stack. False (counted in dropped_events) when the
// thread is not one the registry knows, or the ring is full.
bool record_event(SamplingShared& shared, const EventInfo& e);

// At most `per_second` events in each second of the monotonic clock; lock-free, any thread.
class RateBudget {
 public:
  void set_rate(uint32_t per_second) { per_second_.store(per_second, std::memory_order_relaxed); }
  bool take(uint64_t mono_ns);

 private:
  std::atomic<uint32_t> per_second_{0};
  std::atomic<uint64_t> window_{0};
  std::atomic<uint32_t> used_{0};
};

// Counts by type (ClassID) of events that were not captured (over their budget): a fixed
// open-addressed table, lock-free, so the counts stay exact while stacks are limited. Types
// beyond its capacity are counted under type 0.
class TypeCounts {
 public:
  static constexpr uint32_t kSlots = 512;
  void add(uint64_t type_id, uint64_t n);
  // Takes every non-zero count (fn(type_id, count)), leaving zero. Sampler thread.
  template <typename Fn>
  void take(Fn&& fn) {
    for (uint32_t i = 0; i < kSlots; ++i) {
      const uint64_t n = counts_[i].exchange(0, std::memory_order_acq_rel);
      if (n != 0) fn(keys_[i].load(std::memory_order_acquire), n);
    }
    const uint64_t other = other_.exchange(0, std::memory_order_acq_rel);
    if (other != 0) fn(0, other);
  }

 private:
  std::atomic<uint64_t> keys_[kSlots] = {};
  std::atomic<uint64_t> counts_[kSlots] = {};
  std::atomic<uint64_t> other_{0};
};

}  // namespace clrscope
