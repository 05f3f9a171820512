// HTTP requests (REQUEST records), as the tracker held them: each ended request once, and those
// still in flight at the stream's end with no end. Never dropped for a lagging reader (the
// tracker bounds them); the method and endpoint strings are interned, the trace and span ids
// are sent once each without being remembered, so the writer's memory does not grow by request.
#include <vector>

#include "core/emitters.h"
#include "core/log.h"
#include "core/request_tracker.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

class RequestEmitter final : public Emitter {
 public:
  RequestEmitter(SampleStream* stream, RequestTracker* requests) : stream_(stream), requests_(requests) {}

  void flush(const FlushPoint& at) override {
    batch_.clear();
    requests_->take(&batch_, at.last);
    for (const HeldRequest& h : batch_) {
      RequestRecord r{};
      r.mono = h.start_mono;
      r.end_mono = h.end_mono;
      r.start_tid = h.start_tid;
      r.end_tid = h.end_tid;
      r.status = h.status;
      r.method = stream_->string_id(h.method);
      r.endpoint = stream_->string_id(h.endpoint);
      r.trace_id = stream_->unremembered_string(h.trace_id);
      r.span_id = stream_->unremembered_string(h.span_id);
      r.seq = h.seq;
      if (!h.backfill.empty()) stream_->writer.request_backfill(h.seq, h.backfill.data(), h.backfill.size());
      stream_->writer.request(r);
    }
    sent_ += batch_.size();
    windows_.clear();
    requests_->take_windows(&windows_, at.last, at.now);
    for (const ListenWindow& w : windows_) {
      stream_->writer.request_window(w.start, w.end, w.begun, w.cut, w.max_per_s);
      ++windows_sent_;
      cut_ += w.cut;
    }
  }

  void log_totals() const override {
    log_line("requests sent: %llu (%llu dropped unread, %llu not tracked); %llu begun in an async chain, %llu samples "
             "followed to their request through it",
             static_cast<unsigned long long>(sent_), static_cast<unsigned long long>(requests_->dropped()),
             static_cast<unsigned long long>(requests_->untracked()), static_cast<unsigned long long>(requests_->rooted()),
             static_cast<unsigned long long>(requests_->matched()));
    log_line("requests: %llu begun outside any async chain and followed from their end, taking back %llu samples",
             static_cast<unsigned long long>(requests_->backfilled()), static_cast<unsigned long long>(requests_->backfilled_samples()));
    log_line("requests: %llu listening windows sent, %llu requests cut by a window's end", static_cast<unsigned long long>(windows_sent_),
             static_cast<unsigned long long>(cut_));
  }

 private:
  SampleStream* stream_;
  RequestTracker* requests_;
  std::vector<HeldRequest> batch_;
  std::vector<ListenWindow> windows_;
  uint64_t sent_ = 0;
  uint64_t windows_sent_ = 0;
  uint64_t cut_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_request_emitter(SampleStream* stream, RequestTracker* requests) {
  return std::make_unique<RequestEmitter>(stream, requests);
}

}  // namespace clrscope
