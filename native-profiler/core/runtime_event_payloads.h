#pragma once
// Payloads of the runtime's own events (provider Microsoft-Windows-DotNETRuntime) that the
// profiler reads from its in-process EventPipe session. Layouts are the runtime's event
// manifest's templates: fields packed back to back, little-endian. Pure byte decoding, so the
// parsers are tested on bytes without a runtime.
#include <cstddef>
#include <cstdint>

#include "core/runtime_counters.h"

namespace clrscope {

struct EventInfo;

namespace runtime_events {
constexpr uint64_t kGcKeyword = 0x1;
constexpr uint64_t kContentionKeyword = 0x4000;
constexpr uint32_t kInformational = 4;
constexpr uint32_t kGcHeapStats = 4;
constexpr uint32_t kContentionStart = 81;
constexpr uint32_t kContentionStop = 91;
constexpr uint32_t kAllocationTick = 10;
constexpr uint32_t kAllocationSampled = 303;
constexpr uint64_t kAllocationSamplingKeyword = 0x80000000000ull;
constexpr uint32_t kVerbose = 5;
// AllocationSampled samples each allocated byte with this probability's inverse (dotnet/runtime
// docs/design/features/AllocationSampling.md).
constexpr double kAllocationSamplingMean = 102400.0;
}  // namespace runtime_events

// An event sample from one of the runtime's events, upscaled: a ContentionStop (v1+: the wait
// in ns), an AllocationTick (v2+: the bytes allocated since the previous tick, all put on the
// object that crossed the threshold, as PerfView does) or an AllocationSampled (bytes and
// objects as unbiased estimates: size / (1 - q^size) and 1 / (1 - q^size), q = 1 - 1/102400).
// Allocations also give the object's address (`object`; AllocationTick v3+), which is where the
// object is being put: its MethodTable is not written yet when the event fires.
// False for other events and short payloads. `pointer_size` is the target's (8 on x64).
bool event_sample_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                     size_t pointer_size, EventInfo* out);

// The lock's owner as a ContentionStart (v2+, .NET 8+) names it: for a Monitor (the runtime's
// AwareLock) the OS thread id of the thread holding it when the wait began (syncblk.cpp,
// m_HoldingOSThreadId); for a System.Threading.Lock its managed thread id (Lock.OwningThreadId);
// 0 when the runtime did not know. False for other events and short payloads.
bool contention_owner(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size, size_t pointer_size,
                      uint64_t* owner);

// Applies one event to the counters; unknown events and short payloads are ignored.
void apply_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                         RuntimeCounters* counters);

}  // namespace clrscope
