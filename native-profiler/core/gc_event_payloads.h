#pragma once
// The figures a GC table needs from the runtime's GC events (provider
// Microsoft-Windows-DotNETRuntime, keyword GC), decoded from their payloads into a GC_EVENT
// record's a..d (structs/wire/PROTOCOL.md, GC_EVENT, says which figure goes where). The
// TypeScript side decodes a .nettrace file's same payloads the same way
// (structs/formats/nettrace/gc-event-payloads.ts), so one table builder reads both. Pure byte
// decoding: tested on bytes without a runtime.
#include <cstddef>
#include <cstdint>

#include "core/wire_writer.h"

namespace clrscope {

namespace gc_events {
constexpr uint32_t kGcStart = 1;
constexpr uint32_t kGcEnd = 2;
constexpr uint32_t kRestartEeEnd = 3;
constexpr uint32_t kHeapStats = 4;
constexpr uint32_t kRestartEeBegin = 7;
constexpr uint32_t kSuspendEeEnd = 8;
constexpr uint32_t kSuspendEeBegin = 9;
constexpr uint32_t kTriggered = 35;
constexpr uint32_t kPerHeapHistory = 204;
constexpr uint32_t kGlobalHeapHistory = 205;
}  // namespace gc_events

// Whether the GC table reads this event of the runtime's provider.
inline bool is_gc_table_event(uint32_t id) {
  return (id >= gc_events::kGcStart && id <= gc_events::kHeapStats) ||
         (id >= gc_events::kRestartEeBegin && id <= gc_events::kSuspendEeBegin) || id == gc_events::kTriggered ||
         id == gc_events::kPerHeapHistory || id == gc_events::kGlobalHeapHistory;
}

// Fills out's event, version and a..d (not mono or tid) for one of the events above; false for
// other events and payloads too short for their version. `pointer_size` is the target's.
bool gc_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                 size_t pointer_size, GcEventRecord* out);

}  // namespace clrscope
