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

// Wall time between construction and destruction, charged to a part: on a program's thread a
// callback rarely blocks, and the monotonic clock is read without a system call where the
// thread's CPU clock is not.
class CostSpan {
 public:
  explicit CostSpan(CostPart part) : part_(part), began_(platform::mono_now_ns()) {}
  ~CostSpan() { add_own_cost(part_, platform::mono_now_ns() - began_); }
  CostSpan(const CostSpan&) = delete;
  CostSpan& operator=(const CostSpan&) = delete;

 private:
  CostPart part_;
  uint64_t began_;
};

// A CostSpan that may hold others on its thread (a callback that captures an event's stack):
// each charges only its own time, so the parts add up to the whole. Not in a signal handler (its
// thread-local may be allocated on first use).
class NestedCostSpan {
 public:
  explicit NestedCostSpan(CostPart part);
  ~NestedCostSpan();
  NestedCostSpan(const NestedCostSpan&) = delete;
  NestedCostSpan& operator=(const NestedCostSpan&) = delete;

 private:
  CostPart part_;
  uint64_t began_;
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
