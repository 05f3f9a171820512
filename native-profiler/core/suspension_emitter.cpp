// The runtime's suspensions and the GCs within them (SUSPENSION records), as the tracker put
// them together from the runtime's callbacks.
#include <vector>

#include "core/emitters.h"
#include "core/sample_stream.h"
#include "core/suspension_tracker.h"

namespace clrscope {
namespace {

class SuspensionEmitter final : public Emitter {
 public:
  SuspensionEmitter(SampleStream* stream, SuspensionTracker* suspensions) : stream_(stream), suspensions_(suspensions) {}

  void flush(const FlushPoint& /*at*/) override {
    batch_.clear();
    suspensions_->take(&batch_);
    // Pauses are few and are what a GC view is made of: kept like definitions, not dropped like
    // samples when the reader lags.
    for (const SuspensionRecord& r : batch_) stream_->writer.suspension(r);
  }

 private:
  SampleStream* stream_;
  SuspensionTracker* suspensions_;
  std::vector<SuspensionRecord> batch_;
};

}  // namespace

std::unique_ptr<Emitter> make_suspension_emitter(SampleStream* stream, SuspensionTracker* suspensions) {
  return std::make_unique<SuspensionEmitter>(stream, suspensions);
}

}  // namespace clrscope
