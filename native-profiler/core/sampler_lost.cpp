// When the program takes the stream's descriptor (core/own_descriptor.h), the reader has already
// seen the connection end, without an END: the program's close was the last reference to
// clrscope's socket. The stream cannot say why any more, so a second, short connection does:
// HELLO marked kHelloAfterLoss, the last STATS and an END of reason kEndConnectionLost with the
// descriptor's number. The reader adds those to the process's stream it saw cut
// (structs/wire/PROTOCOL.md, END).
#include "core/log.h"
#include "core/outbox.h"
#include "core/own_descriptor.h"
#include "core/platform.h"
#include "core/sampler_rooms.h"
#include "core/transport.h"

namespace clrscope {

void Sampler::report_lost_connection() {
  if (lost_reported_) return;
  lost_reported_ = true;
  const TransportLoss loss = transport_->loss();
  log_line("the program closed clrscope's connection (descriptor %d)%s; sampling stopped, nothing more is sent or "
           "read there, the program carries on",
           loss.descriptor,
           loss.how == static_cast<uint8_t>(DescriptorState::kReplaced) ? " and put a file of its own at that number" : "");
  std::unique_ptr<Transport> again = transport_->reconnect();
  if (!again) {
    log_line("could not connect to the workstation again to say why the stream ended");
    return;
  }
  const uint64_t now = platform::mono_now_ns();
  Outbox out(again.get(), 64 * 1024);
  WireWriter writer(out.buffer());
  writer.preamble();
  HelloRecord h = hello_record(now);
  h.flags |= wire::kHelloAfterLoss;
  writer.hello(h);
  writer.stats(rooms_->stream.stats_record(now, *shared_));
  writer.end(now, wire::kEndConnectionLost, loss.descriptor, loss.how);
  // A few hundred bytes into an empty socket buffer: they go at once unless the reader is gone.
  const bool told = out.drain(1000);
  again->finish();
  log_line(told ? "told the workstation why the stream ended" : "could not tell the workstation why the stream ended");
}

}  // namespace clrscope
