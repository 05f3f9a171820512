// The counters block (core/counters_block.h) is refreshed in step with the stream, each tick and
// once more at its end, so the figures a reader of the shared memory sees agree with it.
#include "core/counters_block.h"
#include "core/emitters.h"

namespace clrscope {
namespace {

class CountersEmitter final : public Emitter {
 public:
  explicit CountersEmitter(CountersBlock* block) : block_(block) {}
  void flush(const FlushPoint& at) override { block_->publish(at.now); }

 private:
  CountersBlock* block_;
};

}  // namespace

std::unique_ptr<Emitter> make_counters_emitter(CountersBlock* block) { return std::make_unique<CountersEmitter>(block); }

}  // namespace clrscope
