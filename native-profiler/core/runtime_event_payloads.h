#pragma once
// Payloads of the runtime's own events (provider Microsoft-Windows-DotNETRuntime) that the
// profiler reads from its in-process EventPipe session. Layouts are the runtime's event
// manifest's templates: fields packed back to back, little-endian. Pure byte decoding, so the
// parsers are tested on bytes without a runtime.
#include <cstddef>
#include <cstdint>

#include "core/runtime_counters.h"

namespace clrscope {

namespace runtime_events {
constexpr uint64_t kGcKeyword = 0x1;
constexpr uint64_t kContentionKeyword = 0x4000;
constexpr uint32_t kInformational = 4;
constexpr uint32_t kGcHeapStats = 4;
constexpr uint32_t kContentionStart = 81;
}  // namespace runtime_events

// Applies one event to the counters; unknown events and short payloads are ignored.
void apply_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                         RuntimeCounters* counters);

}  // namespace clrscope
