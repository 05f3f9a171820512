#include "core/live_heap.h"

#include "core/platform.h"

namespace clrscope {

LiveHeap::LiveHeap(const HandleOps& ops, uint32_t capacity)
    : ops_(ops),
      capacity_(capacity == 0 ? 1 : capacity > 65536 ? 65536 : capacity),
      state_(new std::atomic<uint64_t>[capacity_]),
      handle_(new uint64_t[capacity_]()),
      type_(new uint64_t[capacity_]()),
      free_(new uint32_t[capacity_]) {
  // Generations start at 1 so that no token is 0.
  for (uint32_t i = 0; i < capacity_; ++i) state_[i].store((uint64_t{1} << 2) | kFree, std::memory_order_relaxed);
  for (uint32_t i = 0; i < capacity_; ++i) free_[i] = capacity_ - 1 - i;
  free_top_ = capacity_;
  free_count_.store(capacity_, std::memory_order_release);
}

void LiveHeap::lock() const {
  while (free_lock_.test_and_set(std::memory_order_acquire)) {
  }
}

void LiveHeap::unlock() const { free_lock_.clear(std::memory_order_release); }

bool LiveHeap::pop_free(uint32_t* slot) {
  // Most samples arrive while slots are free; a full table is known without the lock.
  if (free_count_.load(std::memory_order_relaxed) == 0) return false;
  lock();
  const bool got = free_top_ > 0;
  if (got) {
    *slot = free_[--free_top_];
    free_count_.store(free_top_, std::memory_order_relaxed);
  }
  unlock();
  return got;
}

void LiveHeap::free_slot(uint32_t slot, uint64_t word) {
  handle_[slot] = 0;
  state_[slot].store(((gen_of(word) + 1) << 2) | kFree, std::memory_order_release);
  lock();
  free_[free_top_++] = slot;
  free_count_.store(free_top_, std::memory_order_relaxed);
  unlock();
}

uint64_t LiveHeap::track(uint64_t object, uint64_t type_id) {
  uint32_t slot = 0;
  if (object == 0 || !pop_free(&slot)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  // Popped slots are free and ours alone until published below.
  const uint64_t word = state_[slot].load(std::memory_order_acquire);
  state_[slot].store((gen_of(word) << 2) | kClaimed, std::memory_order_relaxed);
  const uint64_t handle = ops_.create(ops_.context, object);
  if (handle == 0) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    free_slot(slot, word);
    return 0;
  }
  handle_[slot] = handle;
  type_[slot] = type_id;
  state_[slot].store((gen_of(word) << 2) | kLive, std::memory_order_release);
  tracked_.fetch_add(1, std::memory_order_relaxed);
  return token_of(word, slot);
}

void LiveHeap::untrack(uint64_t token) {
  const uint32_t slot = slot_of(token);
  if (slot >= capacity_) return;
  const uint64_t gen = token >> 16;
  const uint64_t claimed = (gen << 2) | kClaimed;
  uint64_t expected = 0;
  for (;;) {
    // Live, or marked a survivor by a sweep: ours to take back.
    expected = (gen << 2) | kLive;
    if (state_[slot].compare_exchange_strong(expected, claimed, std::memory_order_acq_rel)) break;
    expected = (gen << 2) | kSurvived;
    if (state_[slot].compare_exchange_strong(expected, claimed, std::memory_order_acq_rel)) break;
    // Claimed by a sweep looking at its handle (a GC's sweep runs while a thread inside a runtime
    // callback keeps running): wait for its verdict, a few instructions. Anything else (a new
    // generation) means the sweep found the object gone and freed the slot.
    if (expected != claimed) return;
  }
  ops_.destroy(ops_.context, handle_[slot]);
  free_slot(slot, expected);
}

bool LiveHeap::sweep(uint64_t mono) {
  if (sweeping_.test_and_set(std::memory_order_acquire)) return false;
  const uint64_t start = platform::mono_now_ns();
  for (uint32_t slot = 0; slot < capacity_; ++slot) {
    uint64_t word = state_[slot].load(std::memory_order_acquire);
    const uint64_t st = word & 3;
    if (st != kLive && st != kSurvived) continue;
    // Claimed before its handle is read: untrack() on an allocating thread may run during the
    // sweep, and must not destroy the handle (and zero it) while it is being checked here.
    if (!state_[slot].compare_exchange_strong(word, (gen_of(word) << 2) | kClaimed, std::memory_order_acq_rel)) continue;
    const int check = ops_.check(ops_.context, handle_[slot], type_[slot]);
    if (check == kHandleAlive) {
      state_[slot].store((gen_of(word) << 2) | kSurvived, std::memory_order_release);
      continue;
    }
    ops_.destroy(ops_.context, handle_[slot]);
    (check == kHandleOtherType ? other_type_ : collected_).fetch_add(1, std::memory_order_relaxed);
    free_slot(slot, word);
  }
  last_sweep_mono_.store(mono, std::memory_order_relaxed);
  const uint64_t took = platform::mono_now_ns() - start;
  sweep_ns_.fetch_add(took, std::memory_order_relaxed);
  if (took > sweep_max_ns_.load(std::memory_order_relaxed)) sweep_max_ns_.store(took, std::memory_order_relaxed);
  sweeps_.fetch_add(1, std::memory_order_release);
  sweeping_.clear(std::memory_order_release);
  return true;
}

void LiveHeap::release_all() {
  while (sweeping_.test_and_set(std::memory_order_acquire)) {
  }
  for (uint32_t slot = 0; slot < capacity_; ++slot) {
    uint64_t word = state_[slot].load(std::memory_order_acquire);
    const uint64_t st = word & 3;
    if (st != kLive && st != kSurvived) continue;
    if (!state_[slot].compare_exchange_strong(word, (gen_of(word) << 2) | kClaimed, std::memory_order_acq_rel)) continue;
    ops_.destroy(ops_.context, handle_[slot]);
    free_slot(slot, word);
  }
  sweeping_.clear(std::memory_order_release);
}

bool LiveHeap::survivor(uint64_t token) const {
  const uint32_t slot = slot_of(token);
  if (token == 0 || slot >= capacity_) return false;
  return state_[slot].load(std::memory_order_acquire) == (((token >> 16) << 2) | kSurvived);
}

uint64_t LiveHeap::token_at(uint32_t slot) const {
  if (slot >= capacity_) return 0;
  const uint64_t word = state_[slot].load(std::memory_order_acquire);
  const uint64_t st = word & 3;
  return st == kLive || st == kSurvived ? token_of(word, slot) : 0;
}

LiveHeapCounts LiveHeap::counts() const {
  LiveHeapCounts c;
  c.tracked = tracked_.load(std::memory_order_relaxed);
  c.collected = collected_.load(std::memory_order_relaxed);
  c.dropped = dropped_.load(std::memory_order_relaxed);
  c.refused = refused_.load(std::memory_order_relaxed);
  c.other_type = other_type_.load(std::memory_order_relaxed);
  c.sweeps = sweeps_.load(std::memory_order_acquire);
  c.sweep_ns = sweep_ns_.load(std::memory_order_relaxed);
  c.sweep_max_ns = sweep_max_ns_.load(std::memory_order_relaxed);
  c.last_sweep_mono = last_sweep_mono_.load(std::memory_order_relaxed);
  return c;
}

}  // namespace clrscope
