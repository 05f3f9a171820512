#pragma once
// One kind of record the sampler sends: CPU and wall samples, stacked events (exceptions, lock
// waits, allocations), the live heap, suspensions, async operations, counters, STATS. Each kind
// is an Emitter in a file of its own, registered once (Sampler::register_emitters), so a new
// kind is a new file and one line there rather than more of the Sampler. Emitters run on the
// sampler thread only, never in a signal handler.
#include <cstdint>

namespace clrscope {

struct EventRecord;

// One thread's CPU or wall capture taken out of the ring, its frames named.
struct NamedCapture {
  uint64_t mono, cpu_ns, wall_ns;
  uint64_t cpu_after, switches;  // the thread's CPU clock and context switches after the capture
  uint32_t wire_id;
  uint32_t async_box;  // the async box the thread ran (0: none)
  uint32_t request;    // the HTTP request it was taken in (RequestTracker's seq; 0: none known)
  uintptr_t root;      // the root of its async chain (0: none known), which a request may claim later
  uint8_t kinds;       // CaptureKind bits
  uint8_t flags;       // the stack's wire::kSample* bits (incomplete, elided)
  const uint32_t* frames;
  uint16_t count;
};

// When an emitter's held records go out: each tick, or the last time as the stream ends
// (`last`: all of them, whatever a tick's bounds). `wall`: wall sampling was on then.
struct FlushPoint {
  uint64_t now;
  bool last;
  bool wall;
};

class Emitter {
 public:
  virtual ~Emitter() = default;
  // Once, after HELLO.
  virtual void begin(uint64_t /*mono*/) {}
  // Each drain of the capture rings, before the captures taken out go out.
  virtual void before_captures() {}
  virtual void sample(const NamedCapture& /*capture*/) {}
  // A stacked event, its frames from the program's innermost frame; `live_token`: the live
  // heap's token of its object (0: not tracked).
  virtual void event(const EventRecord& /*event*/, uint64_t /*live_token*/, const uint32_t* /*frames*/,
                     uint16_t /*count*/) {}
  // After the tick's captures went out.
  virtual void flush(const FlushPoint& /*at*/) {}
  // Once the stream ended: a line for the log of what it sent, if it has one.
  virtual void log_totals() const {}
};

}  // namespace clrscope
