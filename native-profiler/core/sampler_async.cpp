// The experiment's output for async call stacks (issue 14, design A): one log line per sample
// taken while its thread ran an async box, with the box's logical chain and the sample's
// innermost state machine frame, so a check can compare the two (test/integration/async-chain-log.mjs).
// Wire records come once the chain's shape is settled.
#include "core/async_tracker.h"
#include "core/log.h"
#include "core/sampler.h"

namespace clrscope {

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
