#pragma once
// What the stream's TASK records say of a task (PROTOCOL.md, TASK): its awaiter and its name.
// Two sources give it: the TPL events' tracker (core/async_tracker.h, approach A) and the heap
// walk's chains (core/heap_chains.h, approach B). Sampler thread.
#include <cstdint>
#include <string>

namespace clrscope {

class TaskNames {
 public:
  virtual ~TaskNames() = default;
  // The task that awaits `id` (0: none known) and `id`'s name ("": unknown).
  virtual uint32_t awaiter_of(uint32_t id) const = 0;
  virtual std::string name_of(uint32_t id) const = 0;
};

// The outermost task of `id`'s chain as far as its awaiters are known (`id` itself when none
// awaits it; 0 for 0): with TPL events, an HTTP request's connection (core/request_tracker.h).
// Deeper chains than the stream keeps are cut, and a cycle ends where it closes.
inline uint32_t task_chain_root(const TaskNames& names, uint32_t id) {
  constexpr uint32_t kLevels = 32;
  uint32_t root = id;
  for (uint32_t level = 0; root != 0 && level < kLevels; ++level) {
    const uint32_t next = names.awaiter_of(root);
    if (next == 0 || next == id) break;
    root = next;
  }
  return root;
}

}  // namespace clrscope
