// The thread pool's threads, queue and completed work items over time (POOL_GAUGE records), as
// System.Runtime's counters give them once a second (core/event_counters.h). The runtime raises
// no event for a queued or completed work item short of the per-item ones, whose cost on a busy
// service is the thing being diagnosed; the counters poll the pool's own totals instead, so a
// recording can say how much work waited while the pool was short of threads.
#include <cmath>

#include "core/emitters.h"
#include "core/event_counters.h"
#include "core/log.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

uint32_t whole(double v) {
  if (!(v > 0)) return 0;
  return v >= 4294967295.0 ? 4294967295u : static_cast<uint32_t>(std::lround(v));
}

class PoolGaugeEmitter final : public Emitter {
 public:
  PoolGaugeEmitter(SampleStream* stream, const RuntimeGauges* gauges) : stream_(stream), gauges_(gauges) {}

  // Once per counter interval: the first tick after its completed items arrived. The thread count
  // and the queue length come in the same polling pass, a tick's wait at most apart.
  void flush(const FlushPoint& at) override {
    const uint64_t intervals = gauges_->pool_intervals.load(std::memory_order_acquire);
    if (intervals == sent_intervals_) return;
    if (!gauges_->has(RuntimeGauges::kPoolThreads) || !gauges_->has(RuntimeGauges::kPoolQueueLength)) return;
    sent_intervals_ = intervals;
    stream_->writer.pool_gauge(at.now, whole(gauges_->value[RuntimeGauges::kPoolThreads].load(std::memory_order_relaxed)),
                               whole(gauges_->value[RuntimeGauges::kPoolQueueLength].load(std::memory_order_relaxed)),
                               gauges_->completed_items.load(std::memory_order_relaxed));
    ++sent_;
  }

  void log_totals() const override {
    log_line("thread-pool gauges sent: %llu", static_cast<unsigned long long>(sent_));
  }

 private:
  SampleStream* stream_;
  const RuntimeGauges* gauges_;
  uint64_t sent_intervals_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_pool_gauge_emitter(SampleStream* stream, const RuntimeGauges* gauges) {
  return std::make_unique<PoolGaugeEmitter>(stream, gauges);
}

}  // namespace clrscope
