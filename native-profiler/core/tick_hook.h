#pragma once
// Work another part of the profiler does on the sampler thread, in step with the stream: the
// measuring controller reads the workstation's commands and writes its records through this.
#include <cstdint>

namespace clrscope {

class Outbox;
class Transport;
class WireWriter;

class TickHook {
 public:
  virtual ~TickHook() = default;
  // Right after HELLO.
  virtual void on_begin(WireWriter* writer, Transport* transport) = 0;
  // Each tick, before the sampler looks for the reader's shutdown: reads what the reader sent
  // (so a command sent just before a shutdown is still read) and writes records. Records that
  // may be dropped when the reader lags check `outbox` for room first.
  virtual void on_tick(uint64_t now, Transport* transport, WireWriter* writer, Outbox* outbox) = 0;
  // Just before END.
  virtual void on_end(uint64_t now, WireWriter* writer) = 0;
  // The stream stopped (the reader asked, went away or fell too far behind).
  virtual void on_quiet() = 0;
};

}  // namespace clrscope
