#include "core/stack_table.h"

#include <algorithm>
#include <cstring>

namespace clrscope {
namespace {

constexpr uint32_t kInitialSlots = 1024;

uint32_t mix(uint32_t h, uint32_t k) {
  // murmur3's per-word step: cheap, and spreads the small, close frame ids across the table.
  k *= 0xcc9e2d51u;
  k = (k << 15) | (k >> 17);
  k *= 0x1b873593u;
  h ^= k;
  h = (h << 13) | (h >> 19);
  return h * 5 + 0xe6546b64u;
}

uint32_t hash_of(const uint32_t* frames, uint16_t count, uint8_t flags) {
  uint32_t h = 0x9747b28cu ^ flags;
  for (uint16_t i = 0; i < count; ++i) h = mix(h, frames[i]);
  h ^= count;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

// Doubles a vector's capacity, never past `cap`, so allocation stays within kMaxBytes.
template <typename T>
void reserve_capped(std::vector<T>* v, size_t need, size_t cap) {
  if (need <= v->capacity()) return;
  size_t size = v->capacity() == 0 ? 256 : v->capacity() * 2;
  while (size < need) size *= 2;
  v->reserve(size < cap ? size : cap);
}

}  // namespace

bool StackTable::equals(const Entry& e, const uint32_t* frames, uint16_t count, uint8_t flags) const {
  return e.length == count && e.flags == flags &&
         (count == 0 || std::memcmp(frames_.data() + e.start, frames, count * sizeof(uint32_t)) == 0);
}

uint32_t StackTable::intern(const uint32_t* frames, uint16_t count, uint8_t flags, bool* added) {
  *added = false;
  if (slots_.empty()) slots_.assign(kInitialSlots, 0);
  const uint32_t h = hash_of(frames, count, flags);
  const uint32_t mask = static_cast<uint32_t>(slots_.size()) - 1;
  uint32_t slot = h & mask;
  for (;;) {
    const uint32_t v = slots_[slot];
    if (v == 0) break;
    const Entry& e = entries_[v - 1];
    if (e.hash == h && equals(e, frames, count, flags)) return v;
    slot = (slot + 1) & mask;
  }
  if (entries_.size() >= kMaxStacks || frames_.size() + count > kMaxFrames) return kFull;
  reserve_capped(&frames_, frames_.size() + count, kMaxFrames);
  reserve_capped(&entries_, entries_.size() + 1, kMaxStacks);
  Entry e;
  e.start = static_cast<uint32_t>(frames_.size());
  e.hash = h;
  e.length = count;
  e.flags = flags;
  frames_.insert(frames_.end(), frames, frames + count);
  entries_.push_back(e);
  const uint32_t id = static_cast<uint32_t>(entries_.size());
  slots_[slot] = id;
  *added = true;
  if (entries_.size() * 2 > slots_.size()) grow_slots();
  return id;
}

void StackTable::grow_slots() {
  const size_t size = slots_.size() * 2;
  if (size > kSlots) return;  // entries are capped at kMaxStacks, so the load stays <= 1/2
  slots_.assign(size, 0);
  const uint32_t mask = static_cast<uint32_t>(size) - 1;
  for (uint32_t i = 0; i < entries_.size(); ++i) {
    uint32_t slot = entries_[i].hash & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = i + 1;
  }
}

void StackTable::reset() {
  frames_.clear();
  entries_.clear();
  std::fill(slots_.begin(), slots_.end(), 0);
}

}  // namespace clrscope
