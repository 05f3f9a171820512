// The measuring controller's side of the stream (TickHook): the workstation's commands read and
// turned into jobs for the worker, its state changes and replies written as they come, and the
// probes' figures sent while methods are measured and for a while after.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/log.h"
#include "core/outbox.h"
#include "core/transport.h"
#include "core/wire_writer.h"
#include "shim/measure_controller.h"

namespace clrscope {

using namespace measure_wire;

namespace {
// How often figures go out, and how long after a revert (calls still running in the wrapped
// code finish and are counted).
constexpr uint64_t kFiguresEveryNs = 250000000ull;
constexpr uint64_t kSettleNs = 2000000000ull;
// Commands read per tick at most, so a flood of them cannot hold the samples up.
constexpr size_t kCommandBytesPerTick = 64 * 1024;
}  // namespace

void MeasureController::on_begin(WireWriter* writer, Transport* transport) {
  // Announced only where commands can be read (a named pipe's transport reads none).
  if (!transport->receives()) return;
  Bytes body;
  control_ready_body(&body);
  writer->raw(kControlReady, body.data(), body.size());
}

void MeasureController::on_tick(uint64_t now, Transport* transport, WireWriter* writer, Outbox* outbox) {
  // Commands first: a reader that sends a command and then shuts down expects it carried out.
  size_t taken = 0;
  uint8_t buf[4096];
  while (!commands_broken_ && taken < kCommandBytesPerTick) {
    size_t got = 0;
    if (transport->receive(buf, sizeof buf, &got) != Transport::Received::kData) break;
    taken += got;
    if (!commands_.push(buf, got, &command_batch_)) {
      commands_broken_ = true;
      log_line("the workstation sent a malformed command; further commands are ignored");
    }
  }
  for (const Command& c : command_batch_) {
    Job job;
    job.request = c.request;
    if (c.type == kCommandMeasure) {
      job.kind = Job::kMeasure;
      job.pattern = c.pattern;
      post_job(std::move(job));
    } else if (c.type == kCommandRevert) {
      job.kind = Job::kRevert;
      job.measure_id = c.measure_id;
      post_job(std::move(job));
    } else {
      post_reply(c.request, kReplyUnknownCommand, 0, "this profiler does not know command type " + std::to_string(c.type));
    }
  }
  command_batch_.clear();
  std::vector<std::pair<uint8_t, Bytes>> records;
  {
    std::lock_guard<std::mutex> lock(mu_);
    records.swap(outgoing_);
  }
  // State changes and replies are few and are what the figures hang on: kept like definitions.
  for (const auto& r : records) writer->raw(r.first, r.second.data(), r.second.size());
  if (now >= next_figures_mono_) {
    next_figures_mono_ = now + kFiguresEveryNs;
    emit_figures(now, writer, outbox, false);
  }
}

void MeasureController::on_end(uint64_t now, WireWriter* writer) {
  std::vector<std::pair<uint8_t, Bytes>> records;
  {
    std::lock_guard<std::mutex> lock(mu_);
    records.swap(outgoing_);
  }
  for (const auto& r : records) writer->raw(r.first, r.second.data(), r.second.size());
  emit_figures(now, writer, nullptr, true);
}

void MeasureController::on_quiet() {
  // Nobody reads the figures any more: the program gets its original code back.
  if (!rejit_enabled()) return;
  Job job;
  job.kind = Job::kRevert;
  post_job(std::move(job));
}

void MeasureController::emit_figures(uint64_t now, WireWriter* writer, Outbox* outbox, bool final) {
  std::vector<uint32_t> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t id = 1; id < methods_.size(); ++id) {
      const Method& m = *methods_[id];
      const bool settling = (m.state == kReverted || m.state == kUnloaded) && now - m.settled_mono < kSettleNs;
      if (is_measuring(m.state) || settling || (final && m.state != kRefused && m.state != 0)) ids.push_back(id);
    }
  }
  if (ids.empty()) return;
  std::vector<measure::Figures> figures;
  figures_.read(ids, &figures);
  const uint64_t dropped = figures_.dropped_calls();
  Bytes body;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto sent = sent_calls_.find(ids[i]);
    if (sent != sent_calls_.end() ? sent->second == figures[i].calls : figures[i].calls == 0) continue;
    figures_body(now, ids[i], dropped, figures[i], &body);
    if (outbox != nullptr && !outbox->room_for_sample(body.size() + 5)) continue;  // cumulative: the next one catches up
    writer->raw(kMeasureFigures, body.data(), body.size());
    sent_calls_[ids[i]] = figures[i].calls;
  }
}

}  // namespace clrscope
