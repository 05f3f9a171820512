#pragma once
// The profiler's table of distinct stacks (frame id sequences plus the incomplete/elided flags)
// for wire v2: a stack is sent once as a STACK definition and samples name its id. Filled on
// the sampler thread only, never in a signal handler. Bounded: when a new stack does not fit,
// intern() says so and the owner resets the table (and tells the reader, STACK_RESET); it never
// grows past kMaxBytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/page_memory.h"

namespace clrscope {

class StackTable {
 public:
  static constexpr uint32_t kMaxStacks = 32768;
  static constexpr uint32_t kMaxFrames = 1u << 19;  // frame ids of all stacks, end to end
  static constexpr uint32_t kSlots = 2 * kMaxStacks;  // open addressing, load <= 1/2
  struct Entry {
    uint32_t start;
    uint32_t hash;
    uint16_t length;
    uint8_t flags;
  };
  // Everything the table can ever hold: frames, entries and hash slots at their caps.
  static constexpr size_t kMaxBytes =
      kMaxFrames * sizeof(uint32_t) + kMaxStacks * sizeof(Entry) + kSlots * sizeof(uint32_t);

  static constexpr uint32_t kFull = 0;

  StackTable() = default;
  StackTable(const StackTable&) = delete;
  StackTable& operator=(const StackTable&) = delete;

  // The id (1..kMaxStacks) of this stack, adding it if new (*added says which). kFull when a new
  // stack would exceed a cap: call reset() and intern again. `hash` is hash(frames, count, flags).
  uint32_t intern(const uint32_t* frames, uint16_t count, uint8_t flags, uint32_t hash, bool* added);
  uint32_t intern(const uint32_t* frames, uint16_t count, uint8_t flags, bool* added) {
    return intern(frames, count, flags, hash(frames, count, flags), added);
  }
  static uint32_t hash(const uint32_t* frames, uint16_t count, uint8_t flags);
  // True when stack `id` (from intern) is exactly these frames and flags: a cheap check of a
  // thread's previous stack before hashing.
  bool same(uint32_t id, const uint32_t* frames, uint16_t count, uint8_t flags) const {
    return id != 0 && id <= entries_.size() && equals(entries_[id - 1], frames, count, flags);
  }
  // Forgets every stack; ids start from 1 again. Keeps the memory already allocated.
  void reset();

  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  // Bytes allocated now (at most kMaxBytes).
  size_t allocated_bytes() const {
    return frames_.capacity() * sizeof(uint32_t) + entries_.capacity() * sizeof(Entry) +
           slots_.capacity() * sizeof(uint32_t);
  }

 private:
  bool equals(const Entry& e, const uint32_t* frames, uint16_t count, uint8_t flags) const;
  void grow_slots();

  // In page memory (page_memory.h): up to kMaxBytes, given back whole at detach.
  std::vector<uint32_t, PageAllocator<uint32_t>> frames_;
  std::vector<Entry, PageAllocator<Entry>> entries_;
  std::vector<uint32_t, PageAllocator<uint32_t>> slots_;  // 0 empty, else entry index + 1
};

}  // namespace clrscope
