#include "core/task_table.h"

namespace clrscope {
namespace {
constexpr uint32_t kMask = TaskTable::kStripeSlots - 1;
}  // namespace

TaskTable::TaskTable() : stripes_(new Stripe[kStripes]) {
  for (uint32_t i = 0; i < kStripes; ++i) stripes_[i].slots = new Entry[kStripeSlots]();
}

TaskTable::~TaskTable() {
  for (uint32_t i = 0; i < kStripes; ++i) delete[] stripes_[i].slots;
  delete[] stripes_;
}

// Consecutive ids spread over every stripe and slot (murmur3's finalizer): the top 6 bits pick
// the stripe, the low 13 the first slot.
uint32_t TaskTable::mix(uint32_t id) {
  uint32_t h = id;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

uint32_t TaskTable::find(const Stripe& s, uint32_t id) {
  for (uint32_t i = mix(id) & kMask, n = 0; n < kStripeSlots; i = (i + 1) & kMask, ++n) {
    if (s.slots[i].id == id) return i;
    if (s.slots[i].id == 0) return kStripeSlots;
  }
  return kStripeSlots;
}

// Linear probing's deletion by backward shift: later entries of the probe run move into the gap
// when their home slot allows, so no tombstones build up over millions of tasks.
void TaskTable::erase_at(Stripe& s, uint32_t at) {
  uint32_t gap = at;
  uint32_t j = at;
  for (;;) {
    s.slots[gap].id = 0;
    for (;;) {
      j = (j + 1) & kMask;
      if (s.slots[j].id == 0) return;
      const uint32_t home = mix(s.slots[j].id) & kMask;
      // The entry at j stays when its home lies cyclically in (gap, j].
      const bool stays = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j);
      if (!stays) break;
    }
    s.slots[gap] = s.slots[j];
    gap = j;
  }
}

bool TaskTable::begin(uint32_t id, uint32_t name) {
  if (id == 0) return false;
  Stripe& s = stripe_of(id);
  std::lock_guard<std::mutex> hold(s.lock);
  uint32_t i = mix(id) & kMask;
  for (; s.slots[i].id != 0; i = (i + 1) & kMask) {
    if (s.slots[i].id == id) {
      s.slots[i] = Entry{id, 0, name, 0};
      return true;
    }
  }
  if (s.count >= kStripeLive) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  s.slots[i] = Entry{id, 0, name, 0};
  ++s.count;
  live_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool TaskTable::set_awaiter(uint32_t id, uint32_t awaiter) {
  if (id == 0) return false;
  Stripe& s = stripe_of(id);
  std::lock_guard<std::mutex> hold(s.lock);
  const uint32_t i = find(s, id);
  if (i == kStripeSlots) return false;
  s.slots[i].awaiter = awaiter;
  return true;
}

void TaskTable::end(uint32_t id) {
  if (id == 0) return;
  Stripe& s = stripe_of(id);
  std::lock_guard<std::mutex> hold(s.lock);
  const uint32_t i = find(s, id);
  if (i != kStripeSlots && s.slots[i].ended == 0) s.slots[i].ended = sweeps_.load(std::memory_order_relaxed) + 1;
}

uint32_t TaskTable::awaiter_of(uint32_t id) const {
  if (id == 0) return 0;
  Stripe& s = stripe_of(id);
  std::lock_guard<std::mutex> hold(s.lock);
  const uint32_t i = find(s, id);
  return i == kStripeSlots ? 0 : s.slots[i].awaiter;
}

uint32_t TaskTable::name_of(uint32_t id) const {
  if (id == 0) return 0;
  Stripe& s = stripe_of(id);
  std::lock_guard<std::mutex> hold(s.lock);
  const uint32_t i = find(s, id);
  return i == kStripeSlots ? 0 : s.slots[i].name;
}

void TaskTable::sweep(uint32_t stripes) {
  const uint32_t now = sweeps_.fetch_add(1, std::memory_order_relaxed) + 1;
  for (uint32_t k = 0; k < stripes && k < kStripes; ++k) {
    Stripe& s = stripes_[cursor_];
    cursor_ = (cursor_ + 1) % kStripes;
    std::lock_guard<std::mutex> hold(s.lock);
    uint32_t removed = 0;
    for (uint32_t i = 0; i < kStripeSlots; ++i) {
      // A removal shifts a later entry into slot i: look at it again. (One shifted in from the
      // start of the stripe, already passed, waits for the next sweep.)
      while (s.slots[i].id != 0 && s.slots[i].ended != 0 && now + 1 - s.slots[i].ended >= kSweepGrace) {
        erase_at(s, i);
        ++removed;
      }
    }
    s.count -= removed;
    live_.fetch_sub(removed, std::memory_order_relaxed);
    removed_.fetch_add(removed, std::memory_order_relaxed);
  }
}

}  // namespace clrscope
