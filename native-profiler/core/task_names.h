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

}  // namespace clrscope
