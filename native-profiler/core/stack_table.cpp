#include "core/stack_table.h"

#include <algorithm>
#include <cstring>

namespace clrscope {
namespace {

constexpr uint32_t kInitialSlots = 1024;

}  // namespace

uint32_t StackTable::hash(const uint32_t* frames, uint16_t count, uint8_t flags) {
  // One multiply per frame in four independent lanes (the sampler hashes every sample's stack;
  // four chains run side by side instead of one long one); the finalizer spreads the result
  // over the table's low bits.
  uint32_t a = 0x9747b28cu ^ (static_cast<uint32_t>(count) << 8) ^ flags, b = 0x85ebca6bu, c = 0xc2b2ae35u, d = 0x27d4eb2fu;
  uint16_t i = 0;
  for (; i + 4 <= count; i += 4) {
    a = (a ^ frames[i]) * 0x9E3779B1u;
    b = (b ^ frames[i + 1]) * 0x9E3779B1u;
    c = (c ^ frames[i + 2]) * 0x9E3779B1u;
    d = (d ^ frames[i + 3]) * 0x9E3779B1u;
  }
  for (; i < count; ++i) a = (a ^ frames[i]) * 0x9E3779B1u;
  uint32_t h = a ^ ((b << 7) | (b >> 25)) ^ ((c << 13) | (c >> 19)) ^ ((d << 21) | (d >> 11));
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

namespace {

// Doubles a vector's capacity, never past `cap`, so allocation stays within kMaxBytes.
template <typename T>
void reserve_capped(T* v, size_t need, size_t cap) {
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

uint32_t StackTable::intern(const uint32_t* frames, uint16_t count, uint8_t flags, uint32_t h, bool* added) {
  *added = false;
  if (slots_.empty()) slots_.assign(kInitialSlots, 0);
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
