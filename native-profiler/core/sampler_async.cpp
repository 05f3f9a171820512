// Async call stacks on the stream (issue 14): a sample taken while its thread ran an async box
// names the box's task (TASK_SAMPLES), and TASK records give each task of its chain its name and
// its awaiter, so the reader can rebuild the logical chain as it stood at the sample. With
// CLRSCOPE_ASYNC_LOG=1 each such sample also logs its chain (test/integration/async-chain.test.ts).
#include "core/async_tracker.h"
#include "core/log.h"
#include "core/sampler.h"

namespace clrscope {
namespace {
// Deeper chains are cut here (the reader shows the chain up to the cut); the tracker's own
// chain() uses the same bound.
constexpr uint32_t kChainLevels = 32;
// TASK records remembered as sent; past this the memory is dropped and tasks are sent again.
constexpr size_t kTasksRemembered = 1u << 16;
}  // namespace

void Sampler::define_task_chain(uint32_t box) {
  if (tasks_sent_.size() > kTasksRemembered) tasks_sent_.clear();
  uint32_t seen[kChainLevels];
  uint32_t count = 0;
  for (uint32_t id = box; id != 0 && count < kChainLevels;) {
    for (uint32_t i = 0; i < count; ++i) {
      if (seen[i] == id) return;  // a cycle (ids reused in the tracker's tables): the reader stops there too
    }
    seen[count++] = id;
    const uint32_t awaiter = async_->awaiter_of(id);
    const std::string name = async_->name_of(id);
    const uint32_t name_id = name.empty() ? 0 : string_id(name);
    const uint64_t value = static_cast<uint64_t>(awaiter) << 32 | name_id;
    auto it = tasks_sent_.find(id);
    if (it == tasks_sent_.end()) {
      tasks_sent_.emplace(id, value);
      writer_.task(id, awaiter, name_id, false);
    } else if (it->second != value) {
      it->second = value;
      writer_.task(id, awaiter, name_id, true);
    }
    id = awaiter;
  }
}

void Sampler::log_async_sample(const Drained& d) {
  std::string move_next = "-";
  for (size_t i = 0; i < d.count; ++i) {
    const uint32_t id = ids_[d.first + i];
    const std::string& name = id < async_names_.size() ? async_names_[id] : std::string();
    if (name.find(".MoveNext") != std::string::npos && name.find(">d__") != std::string::npos) {
      move_next = name;
      break;
    }
  }
  log_line("async sample thread=%u box=%u movenext=%s chain=%s", d.wire_id, d.async_box, move_next.c_str(),
           async_->chain(d.async_box).c_str());
}

}  // namespace clrscope
