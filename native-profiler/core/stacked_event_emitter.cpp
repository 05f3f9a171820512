// Exceptions, lock waits and allocations, each with the stack it happened at (EVENT records,
// wire::kEvent*). The runtime's callbacks capture them into the event rings; the drain names
// their frames. Exceptions over their stack budget go out as counts by type, with no stack.
#include "core/emitters.h"
#include "core/event_capture.h"
#include "core/log.h"
#include "core/platform.h"
#include "core/sample_stream.h"
#include "core/sampling_shared.h"

namespace clrscope {
namespace {

class StackedEventEmitter final : public Emitter {
 public:
  StackedEventEmitter(SampleStream* stream, SamplingShared* shared, TypeCounts* skipped)
      : stream_(stream), shared_(shared), skipped_(skipped) {}

  // Exceptions over their stack budget, one event per type per drain, on no thread and with no
  // stack: the counts stay exact while the stacks are a sample.
  void before_captures() override {
    if (skipped_ == nullptr) return;
    const uint64_t now = platform::mono_now_ns();
    skipped_->take([&](uint64_t type_id, uint64_t count) {
      EventRecord e;
      e.kind = wire::kEventException;
      e.mono = now;
      e.thread_id = 0;
      e.label_id = stream_->type_label(type_id);
      e.value1 = count;
      stream_->writer.event(e, nullptr, 0, false);
      ++stream_->events_sent;
    });
  }

  void event(const EventRecord& e, uint64_t /*live_token*/, const uint32_t* frames, uint16_t count) override {
    // 16 for the event's own fields, 10 for its place in an EVENT_MESSAGES record.
    if (!stream_->room_for(WireWriter::sample_size(count) + 16 + (e.message_id != 0 ? 10 : 0))) return;
    stream_->writer.event(e, frames, count, count > 0);
    ++stream_->events_sent;
  }

  void log_totals() const override {
    log_line("%llu event samples sent, %llu events lost (thread unknown or event ring full)",
             static_cast<unsigned long long>(stream_->events_sent),
             static_cast<unsigned long long>(shared_->dropped_events.load(std::memory_order_relaxed)));
    const MessageTable& messages = stream_->messages;
    if (messages.kept() != 0) {
      log_line("exception messages: %llu distinct kept, %llu sent as \"%s\" past the cap of %llu",
               static_cast<unsigned long long>(messages.kept()), static_cast<unsigned long long>(messages.overflowed()),
               MessageTable::kOverflowText, static_cast<unsigned long long>(MessageTable::kMaxMessages));
    }
  }

 private:
  SampleStream* stream_;
  SamplingShared* shared_;
  TypeCounts* skipped_;
};

}  // namespace

std::unique_ptr<Emitter> make_stacked_event_emitter(SampleStream* stream, SamplingShared* shared, TypeCounts* skipped) {
  return std::make_unique<StackedEventEmitter>(stream, shared, skipped);
}

}  // namespace clrscope
