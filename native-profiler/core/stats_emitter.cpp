// STATS: what was sent and what was dropped where, once a second and once more at the end, so a
// reader can tell a quiet program from a lossy recording.
#include "core/emitters.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

constexpr uint64_t kEveryNs = 1000000000ull;

class StatsEmitter final : public Emitter {
 public:
  StatsEmitter(SampleStream* stream, SamplingShared* shared) : stream_(stream), shared_(shared) {}
  void begin(uint64_t mono) override { last_mono_ = mono; }
  void flush(const FlushPoint& at) override {
    if (!at.last && at.now - last_mono_ < kEveryNs) return;
    stream_->writer.stats(stream_->stats_record(at.now, *shared_));
    last_mono_ = at.now;
  }

 private:
  SampleStream* stream_;
  SamplingShared* shared_;
  uint64_t last_mono_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_stats_emitter(SampleStream* stream, SamplingShared* shared) {
  return std::make_unique<StatsEmitter>(stream, shared);
}

}  // namespace clrscope
