#pragma once
// The thread pool's own story, from the runtime's Threading events (provider
// Microsoft-Windows-DotNETRuntime, keyword Threading 0x10000, Informational): workers started and
// stopped with the pool's count after each, and the injection algorithm's adjustments with their
// reason (starvation, hill climbing, a blocked worker). They travel as RUNTIME_EVENT records
// (structs/wire/PROTOCOL.md, RUNTIME_EVENT, says which figure goes where), a kind of their own so
// the GC table reads GC events only. Pure byte decoding: tested on bytes without a runtime.
#include <cstddef>
#include <cstdint>

#include "core/wire_writer.h"

namespace clrscope {

namespace threadpool_events {
constexpr uint64_t kThreadingKeyword = 0x10000;
constexpr uint32_t kWorkerThreadStart = 50;
constexpr uint32_t kWorkerThreadStop = 51;
constexpr uint32_t kAdjustmentSample = 54;
constexpr uint32_t kAdjustment = 55;
// ThreadPoolWorkerThreadWait (57) is left out on purpose: a busy pool raises it each time a worker
// runs out of work, thousands of times a second, and the story needs none of it.
}  // namespace threadpool_events

inline bool is_threadpool_event(uint32_t id) {
  return id == threadpool_events::kWorkerThreadStart || id == threadpool_events::kWorkerThreadStop ||
         id == threadpool_events::kAdjustmentSample || id == threadpool_events::kAdjustment;
}

// Fills out's event, version and a..d (not mono or tid); false for other events and payloads too
// short. Start/Stop: a ActiveWorkerThreadCount, b RetiredWorkerThreadCount. AdjustmentSample:
// a Throughput in thousandths of an item per second. Adjustment: a NewWorkerThreadCount,
// b Reason (0 warm-up ... 6 starvation, 7 thread timed out, 8 cooperative blocking), c
// AverageThroughput in thousandths.
bool threadpool_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                         RuntimeEventRecord* out);

}  // namespace clrscope
