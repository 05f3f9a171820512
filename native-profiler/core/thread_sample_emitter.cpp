// CPU and wall samples of the program's threads, as their captures come out of the ring. Each
// sample's stack is also kept as its thread's latest (for CPU that comes without a capture) and,
// for a wall capture, as the memo an idle thread's next wall sample may be answered from.
#include "core/async_chains.h"
#include "core/capture_ring.h"
#include "core/emitters.h"
#include "core/request_tracker.h"
#include "core/sample_stream.h"
#include "core/thread_book.h"

namespace clrscope {
namespace {

class ThreadSampleEmitter final : public Emitter {
 public:
  ThreadSampleEmitter(SampleStream* stream, ThreadBook* book, AsyncChains* chains, RequestTracker* requests)
      : stream_(stream), book_(book), chains_(chains), requests_(requests) {}

  void sample(const NamedCapture& c) override {
    uint8_t flags = c.flags;
    if (c.kinds & kCaptureCpu) flags |= wire::kSampleCpu;
    if (c.kinds & kCaptureWall) flags |= wire::kSampleWall;
    const uint16_t n = c.count;
    if (!stream_->room_for(WireWriter::sample_size(n))) return;
    const uint32_t task = chains_ != nullptr ? c.async_box : 0;
    if (task != 0) chains_->define_task_chain(task);
    stream_->writer.sample(c.mono, c.wire_id, flags, (flags & wire::kSampleCpu) ? c.cpu_ns : 0,
                           (flags & wire::kSampleWall) ? c.wall_ns : 0, c.frames, n, task, 0, c.request);
    ++stream_->samples_sent;
    // A request begun before its chain had a root may claim it when it ends (core/request_tracker.h).
    if (requests_ != nullptr && c.request == 0 && c.root != 0) requests_->remember(c.root, c.mono, stream_->writer.samples_written());
    if (task != 0 && chains_->logs_samples()) chains_->log_sample(c);
    SampledThread* known = book_->find(c.wire_id);
    if (known == nullptr) return;
    SampledThread& t = *known;
    t.retries = 0;
    t.last_flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
    t.last_frames.assign(c.frames, c.frames + c.count);
    if (c.kinds & kCaptureWall) {
      // A lone leaf (a stack that could not be read) is not worth repeating.
      t.memo = c.count > 1;
      t.memo_checked = false;
      t.memo_cpu = c.cpu_after;
      t.memo_switches = c.switches;
      t.memo_flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
      t.memo_frames.assign(c.frames, c.frames + c.count);
    } else {
      t.memo = false;  // it ran
    }
  }

 private:
  SampleStream* stream_;
  ThreadBook* book_;
  AsyncChains* chains_;
  RequestTracker* requests_;
};

}  // namespace

std::unique_ptr<Emitter> make_thread_sample_emitter(SampleStream* stream, ThreadBook* book, AsyncChains* chains,
                                                    RequestTracker* requests) {
  return std::make_unique<ThreadSampleEmitter>(stream, book, chains, requests);
}

}  // namespace clrscope
