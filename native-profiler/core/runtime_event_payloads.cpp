#include "core/runtime_event_payloads.h"

#include <cstring>

namespace clrscope {
namespace {

template <typename T>
T read_at(const uint8_t* data, size_t offset) {
  T v;
  std::memcpy(&v, data + offset, sizeof v);
  return v;
}

// GCHeapStats (every version starts the same): ten u64 — generation size and promoted bytes
// for gens 0..3 in pairs, finalization-promoted size and count — then three u32: pinned
// objects, sync blocks, GC handles.
constexpr size_t kHeapStatsCommon = 10 * 8 + 3 * 4;

void apply_heap_stats(const uint8_t* data, size_t size, RuntimeCounters* c) {
  if (size < kHeapStatsCommon) return;
  c->promoted[0].store(read_at<uint64_t>(data, 8), std::memory_order_relaxed);
  c->promoted[1].store(read_at<uint64_t>(data, 24), std::memory_order_relaxed);
  c->finalization_promoted.store(read_at<uint64_t>(data, 64), std::memory_order_relaxed);
  c->finalization_promoted_count.store(read_at<uint64_t>(data, 72), std::memory_order_relaxed);
  c->pinned_objects.store(read_at<uint32_t>(data, 80), std::memory_order_relaxed);
  c->sync_blocks.store(read_at<uint32_t>(data, 84), std::memory_order_relaxed);
  c->gc_handles.store(read_at<uint32_t>(data, 88), std::memory_order_relaxed);
}

}  // namespace

void apply_runtime_event(uint32_t event_id, uint32_t, const uint8_t* data, size_t size, RuntimeCounters* counters) {
  if (data == nullptr && size != 0) return;
  switch (event_id) {
    case runtime_events::kContentionStart:
      counters->add(counters->contentions);
      break;
    case runtime_events::kGcHeapStats:
      apply_heap_stats(data, size, counters);
      break;
    default:
      break;
  }
}

}  // namespace clrscope
