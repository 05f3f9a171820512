#include "core/runtime_event_payloads.h"

#include <cmath>
#include <cstring>

#include "core/event_capture.h"
#include "core/payload_read.h"
#include "core/wire_writer.h"

namespace clrscope {
namespace {

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
  c->heap_stats.fetch_add(1, std::memory_order_release);
}

// The end of a NUL-terminated UTF-16 string starting at `offset`, past its NUL; 0 if none.
size_t past_utf16(const uint8_t* data, size_t size, size_t offset) {
  for (size_t i = offset; i + 1 < size; i += 2) {
    if (data[i] == 0 && data[i + 1] == 0) return i + 2;
  }
  return 0;
}

uint64_t read_pointer(const uint8_t* data, size_t offset, size_t pointer_size) {
  return pointer_size == 8 ? read_at<uint64_t>(data, offset) : read_at<uint32_t>(data, offset);
}

}  // namespace

bool event_sample_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                     size_t pointer_size, EventInfo* out) {
  if (data == nullptr || (pointer_size != 4 && pointer_size != 8)) return false;
  switch (event_id) {
    case runtime_events::kContentionStop: {
      // ContentionStop_V1: u8 flags, u16 clr instance, f64 DurationNs.
      if (version < 1 || size < 11) return false;
      const double ns = read_at<double>(data, 3);
      *out = EventInfo{};
      out->kind = wire::kEventContention;
      out->value1 = ns > 0 && std::isfinite(ns) ? static_cast<uint64_t>(ns + 0.5) : 0;
      return true;
    }
    case runtime_events::kAllocationTick: {
      // V2+: u32 amount, u32 kind, u16 clr instance, u64 amount64, ptr TypeID, str TypeName,
      // u32 heap; V3+ ptr address; V4+ u64 object size.
      if (version < 2 || size < 18 + pointer_size) return false;
      const uint64_t amount = read_at<uint64_t>(data, 10);
      *out = EventInfo{};
      out->kind = wire::kEventAllocation;
      out->type_id = read_pointer(data, 18, pointer_size);
      out->value1 = amount;
      out->value2 = 1;
      out->has_value2 = true;
      const size_t after_name = past_utf16(data, size, 18 + pointer_size);
      const size_t address_at = after_name + 4;
      if (version >= 3 && after_name != 0 && address_at + pointer_size <= size) {
        out->object = read_pointer(data, address_at, pointer_size);
      }
      const size_t object_size_at = address_at + pointer_size;
      if (version >= 4 && after_name != 0 && object_size_at + 8 <= size) {
        const uint64_t object_size = read_at<uint64_t>(data, object_size_at);
        if (object_size > 0 && amount > object_size) out->value2 = (amount + object_size / 2) / object_size;
      }
      return true;
    }
    case runtime_events::kAllocationSampled: {
      // u32 kind, u16 clr instance, ptr TypeID, str TypeName, ptr address, u64 object size,
      // u64 sampled byte offset.
      if (size < 6 + pointer_size) return false;
      const size_t after_name = past_utf16(data, size, 6 + pointer_size);
      const size_t object_size_at = after_name + pointer_size;
      if (after_name == 0 || object_size_at + 8 > size) return false;
      const double object_size = static_cast<double>(read_at<uint64_t>(data, object_size_at));
      if (object_size <= 0) return false;
      // 1 - q^size without losing the small difference: -expm1(size * log1p(-1/mean)).
      const double p = -std::expm1(object_size * std::log1p(-1.0 / runtime_events::kAllocationSamplingMean));
      *out = EventInfo{};
      out->kind = wire::kEventAllocation;
      out->type_id = read_pointer(data, 6, pointer_size);
      out->value1 = static_cast<uint64_t>(object_size / p + 0.5);
      out->value2 = static_cast<uint64_t>(1.0 / p + 0.5);
      out->has_value2 = true;
      out->object = read_pointer(data, after_name, pointer_size);
      return true;
    }
    default:
      return false;
  }
}

bool contention_owner(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size, size_t pointer_size,
                      uint64_t* owner) {
  // ContentionStart_V2: u8 flags, u16 clr instance, ptr LockID, ptr AssociatedObjectID,
  // u64 LockOwnerThreadID.
  if (event_id != runtime_events::kContentionStart || version < 2 || data == nullptr) return false;
  if (pointer_size != 4 && pointer_size != 8) return false;
  const size_t at = 3 + 2 * pointer_size;
  if (size < at + 8) return false;
  *owner = read_at<uint64_t>(data, at);
  return true;
}

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
