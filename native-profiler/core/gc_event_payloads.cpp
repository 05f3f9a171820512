#include "core/gc_event_payloads.h"

#include <cstring>

#include "core/payload_read.h"

namespace clrscope {
namespace {

uint64_t read_pointer(const uint8_t* data, size_t offset, size_t pointer_size) {
  return pointer_size == 8 ? read_at<uint64_t>(data, offset) : read_at<uint32_t>(data, offset);
}

// GCHeapStats: (size, promoted) u64 pairs for gens 0..3, two finalization u64s, three u32 counts
// and the u16 ClrInstanceID (94 bytes, v1); v2 appends gen 4's pair.
constexpr size_t kHeapStatsV1 = 94;
constexpr size_t kHeapStatsV2 = 110;
// GCPerHeapHistory v3+: one entry per generation of ten pointers (SizeBefore, FreeListBefore,
// FreeObjBefore, SizeAfter, FreeListAfter, FreeObjAfter, In, PinnedSurv, NonePinnedSurv,
// NewAllocation).
constexpr size_t kPerHeapEntryPointers = 10;

bool per_heap_history(uint32_t version, const uint8_t* data, size_t size, size_t ptr, GcEventRecord* out) {
  if (version < 3) return false;
  // u16 ClrInstanceID, 6 pointers, 6 u32 (HeapIndex the last), pointer ExtraGen0Commit, u32 Count.
  const size_t heap_index_at = 2 + 6 * ptr + 5 * 4;
  const size_t count_at = heap_index_at + 4 + ptr;
  const size_t entries_at = count_at + 4;
  if (size < entries_at) return false;
  const uint32_t count = read_at<uint32_t>(data, count_at);
  const size_t entry = kPerHeapEntryPointers * ptr;
  uint64_t before = 0, free = 0, after = 0;
  for (uint32_t g = 0; g < count && entries_at + (g + 1) * entry <= size; ++g) {
    const size_t at = entries_at + g * entry;
    before += read_pointer(data, at, ptr);
    after += read_pointer(data, at + 3 * ptr, ptr);
    free += read_pointer(data, at + 4 * ptr, ptr) + read_pointer(data, at + 5 * ptr, ptr);
  }
  out->a = before;
  out->b = free;
  out->c = read_at<uint32_t>(data, heap_index_at);
  out->d = after;
  return true;
}

}  // namespace

bool gc_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                 size_t pointer_size, GcEventRecord* out) {
  if ((data == nullptr && size != 0) || (pointer_size != 4 && pointer_size != 8) || event_id > 0xFF) return false;
  GcEventRecord r{};
  r.event = static_cast<uint8_t>(event_id);
  r.version = static_cast<uint8_t>(version > 0xFF ? 0xFF : version);
  switch (event_id) {
    case gc_events::kGcStart:
      // v1+: Count, Depth, Reason, Type; v0: Count, Reason.
      if (version >= 1 && size >= 16) {
        r.a = read_at<uint32_t>(data, 0);
        r.b = read_at<uint32_t>(data, 4);
        r.c = read_at<uint32_t>(data, 8);
        r.d = read_at<uint32_t>(data, 12);
      } else if (size >= 8) {
        r.a = read_at<uint32_t>(data, 0);
        r.c = read_at<uint32_t>(data, 4);
      } else {
        return false;
      }
      break;
    case gc_events::kGcEnd:
      if (version >= 1 && size >= 8) {
        r.a = read_at<uint32_t>(data, 0);
        r.b = read_at<uint32_t>(data, 4);
      } else if (size >= 6) {
        r.a = read_at<uint32_t>(data, 0);
        r.b = read_at<uint16_t>(data, 4);
      } else {
        return false;
      }
      break;
    case gc_events::kSuspendEeBegin:
      if (version >= 1 && size >= 8) {
        r.a = read_at<uint32_t>(data, 0);
        r.b = read_at<uint32_t>(data, 4);
      } else if (size >= 2) {
        r.a = read_at<uint16_t>(data, 0);
      } else {
        return false;
      }
      break;
    case gc_events::kTriggered:
      if (size < 4) return false;
      r.a = read_at<uint32_t>(data, 0);
      break;
    case gc_events::kSuspendEeEnd:
    case gc_events::kRestartEeBegin:
    case gc_events::kRestartEeEnd:
      break;
    case gc_events::kHeapStats:
      if (size < kHeapStatsV1) return false;
      r.a = read_at<uint64_t>(data, 0) + read_at<uint64_t>(data, 16) + read_at<uint64_t>(data, 32) +
            read_at<uint64_t>(data, 48);
      r.b = read_at<uint64_t>(data, 8) + read_at<uint64_t>(data, 24) + read_at<uint64_t>(data, 40) +
            read_at<uint64_t>(data, 56);
      if (size >= kHeapStatsV2) {
        r.a += read_at<uint64_t>(data, 94);
        r.b += read_at<uint64_t>(data, 102);
      }
      r.c = read_at<uint32_t>(data, 88);  // GCHandleCount, the low 32 bits of a signed count
      r.d = read_at<uint32_t>(data, 80);  // PinnedObjectCount
      break;
    case gc_events::kPerHeapHistory:
      if (!per_heap_history(version, data, size, pointer_size, &r)) return false;
      break;
    case gc_events::kGlobalHeapHistory:
      // u64 FinalYoungestDesired, i32 NumHeaps, u32 CondemnedGeneration, u32 Gen0ReductionCount,
      // u32 Reason, u32 GlobalMechanisms.
      if (size < 28) return false;
      r.a = read_at<uint32_t>(data, 12);
      r.b = read_at<uint32_t>(data, 24);
      r.c = read_at<uint32_t>(data, 8);
      r.d = read_at<uint32_t>(data, 20);
      break;
    default:
      return false;
  }
  *out = r;
  return true;
}

}  // namespace clrscope
