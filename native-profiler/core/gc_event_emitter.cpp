// The runtime's GC events (GC_EVENT records), as the tracker held them: a handful per GC, kept
// like suspensions (never dropped for a lagging reader), since a GC table missing one event is
// a wrong table.
#include <vector>

#include "core/emitters.h"
#include "core/gc_event_tracker.h"
#include "core/log.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

class GcEventEmitter final : public Emitter {
 public:
  GcEventEmitter(SampleStream* stream, GcEventTracker* events) : stream_(stream), events_(events) {}

  void flush(const FlushPoint& /*at*/) override {
    batch_.clear();
    events_->take(&batch_);
    for (const GcEventRecord& r : batch_) stream_->writer.gc_event(r);
    sent_ += batch_.size();
  }

  void log_totals() const override {
    log_line("GC events sent: %llu (%llu dropped unread)", static_cast<unsigned long long>(sent_),
             static_cast<unsigned long long>(events_->dropped()));
  }

 private:
  SampleStream* stream_;
  GcEventTracker* events_;
  std::vector<GcEventRecord> batch_;
  uint64_t sent_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_gc_event_emitter(SampleStream* stream, GcEventTracker* events) {
  return std::make_unique<GcEventEmitter>(stream, events);
}

}  // namespace clrscope
