#pragma once
// The profiler's own cost, by part, for the STATS record (structs/wire/PROTOCOL.md, STATS): a
// user sees what clrscope took from the program, and the benchmarks see which part to cut.
// Cumulative nanoseconds; every add is one relaxed atomic, safe in a signal handler.
#include <atomic>
#include <cstdint>

#include "core/platform.h"

namespace clrscope {

enum CostPart : int {
  kCostHandler = 0,     // inside the capture signal handler (program threads)
  kCostCallbacks,       // inside clrscope's runtime callbacks, events excepted (program threads)
  kCostRuntimeEvents,   // inside EventPipeEventDelivered (the runtime event session), stacks excepted
  kCostEventStacks,     // capturing the stacks of exceptions, lock waits, allocations (program threads)
  kCostSymbols,         // naming new code and types (sampler thread CPU)
  kCostWriter,          // emitters and sending (sampler thread CPU, symbols excepted)
  kCostParts
};

void add_own_cost(CostPart part, uint64_t ns);
uint64_t own_cost(CostPart part);

// Every part and the process's CPU at one moment: a stream reports what came after its start.
struct CostReading {
  uint64_t parts[kCostParts] = {};
  uint64_t process_cpu_ns = 0;
};
CostReading read_own_costs();
// The clock calibrated (calibrate_cost_clock), then read_own_costs(): where a stream's cost starts.
CostReading start_own_costs();

// The spans on the program's threads are many and short (a capture, a callback), and the thread's
// CPU clock costs a system call: one span in kCostSampleEvery reads it, and counts for that many.
// The thread's CPU rather than the monotonic clock, so that time the thread spent preempted (a
// loaded machine) is not charged to clrscope.
constexpr uint64_t kCostSampleEvery = 8;

// Whether this span is the one in kCostSampleEvery that measures. Async-signal-safe.
bool cost_span_measured(CostPart part);
// What two reads of the thread's CPU clock in a row add to a span (the system call's own time
// between them), found once by calibrate_cost_clock(): a short callback measured with them would
// otherwise count that too, several times its own cost. Async-signal-safe.
uint64_t cost_clock_floor_ns();
void calibrate_cost_clock();

// A span in the signal handler. Async-signal-safe.
class CostSpan {
 public:
  explicit CostSpan(CostPart part)
      : part_(part), began_(cost_span_measured(part) ? platform::current_thread_cpu_ns() : 0) {}
  ~CostSpan() {
    if (began_ == 0) return;
    const uint64_t spent = platform::current_thread_cpu_ns() - began_;
    const uint64_t floor = cost_clock_floor_ns();
    if (spent > floor) add_own_cost(part_, (spent - floor) * kCostSampleEvery);
  }
  CostSpan(const CostSpan&) = delete;
  CostSpan& operator=(const CostSpan&) = delete;

 private:
  CostPart part_;
  uint64_t began_;
};

// A span that may hold others on its thread (a callback that captures an event's stack): each
// charges only its own time, so the parts add up to the whole; whether they measure is decided
// once, by the outermost. Not in a signal handler (its thread-locals may be allocated on first use).
class NestedCostSpan {
 public:
  // `once`: a span that comes once (the profiler's start and end), measured whenever it comes:
  // one in eight, counted eightfold, would make it eight times what it was or nothing.
  explicit NestedCostSpan(CostPart part, bool once = false);
  ~NestedCostSpan();
  NestedCostSpan(const NestedCostSpan&) = delete;
  NestedCostSpan& operator=(const NestedCostSpan&) = delete;

 private:
  CostPart part_;
  uint64_t began_;        // 0: this span does not measure
  uint64_t outer_inner_;  // the enclosing span's inner time so far, restored at the end
};

// CPU time of the calling thread between construction and destruction, charged to a part: for
// the sampler thread, which may wait inside the runtime while naming code.
class CpuCostSpan {
 public:
  explicit CpuCostSpan(CostPart part) : part_(part), began_(platform::current_thread_cpu_ns()) {}
  ~CpuCostSpan() {
    const uint64_t now = platform::current_thread_cpu_ns();
    if (now > began_) add_own_cost(part_, now - began_);
  }
  CpuCostSpan(const CpuCostSpan&) = delete;
  CpuCostSpan& operator=(const CpuCostSpan&) = delete;

 private:
  CostPart part_;
  uint64_t began_;
};

}  // namespace clrscope
