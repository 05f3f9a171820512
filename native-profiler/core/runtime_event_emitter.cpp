// The runtime's events that are not a GC's (RUNTIME_EVENT records), as the tracker held them:
// never dropped for a lagging reader, since a wait missing its stop or a worker missing its start
// would tell the pool's story wrong; the tracker's bound keeps them finite.
#include <vector>

#include "core/emitters.h"
#include "core/log.h"
#include "core/runtime_event_tracker.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

class RuntimeEventEmitter final : public Emitter {
 public:
  RuntimeEventEmitter(SampleStream* stream, RuntimeEventTracker* events) : stream_(stream), events_(events) {}

  void flush(const FlushPoint& /*at*/) override {
    batch_.clear();
    events_->take(&batch_);
    for (const RuntimeEventRecord& r : batch_) stream_->writer.runtime_event(r);
    sent_ += batch_.size();
  }

  void log_totals() const override {
    log_line("runtime events sent: %llu, of them %llu wait starts (%llu dropped unread)",
             static_cast<unsigned long long>(sent_), static_cast<unsigned long long>(events_->waits()),
             static_cast<unsigned long long>(events_->dropped()));
  }

 private:
  SampleStream* stream_;
  RuntimeEventTracker* events_;
  std::vector<RuntimeEventRecord> batch_;
  uint64_t sent_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_runtime_event_emitter(SampleStream* stream, RuntimeEventTracker* events) {
  return std::make_unique<RuntimeEventEmitter>(stream, events);
}

}  // namespace clrscope
