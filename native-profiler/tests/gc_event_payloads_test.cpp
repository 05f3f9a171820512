#include "core/gc_event_payloads.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/gc_event_tracker.h"
#include "core/page_memory.h"

namespace clrscope {
namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::vector<uint8_t> gc_start_v2(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type) {
  std::vector<uint8_t> b;
  put(b, count, 4);
  put(b, depth, 4);
  put(b, reason, 4);
  put(b, type, 4);
  put(b, 0, 2);  // ClrInstanceID
  put(b, 0, 8);  // ClientSequenceNumber
  return b;
}

TEST(GcEventPayloads, ReadsGcStartV2) {
  const std::vector<uint8_t> b = gc_start_v2(12, 1, 0, 0);
  ASSERT_EQ(b.size(), 26u);
  GcEventRecord r{};
  ASSERT_TRUE(gc_event_from_runtime_event(gc_events::kGcStart, 2, b.data(), b.size(), 8, &r));
  EXPECT_EQ(r.event, 1);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.a, 12u);
  EXPECT_EQ(r.b, 1u);
  EXPECT_EQ(r.c, 0u);
  EXPECT_EQ(r.d, 0u);
  EXPECT_FALSE(gc_event_from_runtime_event(gc_events::kGcStart, 2, b.data(), 7, 8, &r));
}

TEST(GcEventPayloads, SumsGcHeapStatsOverFiveGenerationsAndKeepsTheHandleCountsBits) {
  std::vector<uint8_t> b;
  const uint64_t sizes_and_promoted[8] = {1000, 111, 2000, 222, 3000, 333, 4000, 444};
  for (uint64_t v : sizes_and_promoted) put(b, v, 8);
  put(b, 555, 8);                  // FinalizationPromotedSize
  put(b, 6, 8);                    // FinalizationPromotedCount
  put(b, 7, 4);                    // PinnedObjectCount
  put(b, 8, 4);                    // SinkBlockCount
  put(b, static_cast<uint32_t>(-537), 4);  // GCHandleCount: the runtime's count went below zero
  put(b, 0, 2);                    // ClrInstanceID
  put(b, 5000, 8);                 // GenerationSize4
  put(b, 55, 8);                   // TotalPromotedSize4
  GcEventRecord r{};
  ASSERT_TRUE(gc_event_from_runtime_event(gc_events::kHeapStats, 2, b.data(), b.size(), 8, &r));
  EXPECT_EQ(r.a, 15000u);
  EXPECT_EQ(r.b, 111u + 222 + 333 + 444 + 55);
  EXPECT_EQ(static_cast<int32_t>(r.c), -537);
  EXPECT_EQ(r.d, 7u);
  // v1 (94 bytes) has no gen 4.
  ASSERT_TRUE(gc_event_from_runtime_event(gc_events::kHeapStats, 1, b.data(), 94, 8, &r));
  EXPECT_EQ(r.a, 10000u);
}

TEST(GcEventPayloads, SumsGcPerHeapHistoryOverGenerations) {
  std::vector<uint8_t> b;
  put(b, 0, 2);                                 // ClrInstanceID
  for (int i = 0; i < 6; ++i) put(b, 0, 8);     // FreeListAllocated .. PinnedAllocatedAdvance
  for (int i = 0; i < 5; ++i) put(b, 0, 4);     // RunningFreeListEfficiency .. ExpandMechanisms
  put(b, 3, 4);                                 // HeapIndex
  put(b, 0, 8);                                 // ExtraGen0Commit
  put(b, 2, 4);                                 // Count
  for (uint64_t g = 0; g < 2; ++g) {
    put(b, 100 + g, 8);                           // SizeBefore
    put(b, 0, 8);                                 // FreeListBefore
    put(b, 0, 8);                                 // FreeObjBefore
    put(b, 50 + g, 8);                            // SizeAfter
    put(b, 5, 8);                                 // FreeListAfter
    put(b, 1, 8);                                 // FreeObjAfter
    for (int i = 0; i < 4; ++i) put(b, 0, 8);     // In .. NewAllocation
  }
  ASSERT_EQ(b.size(), 86u + 2 * 80);
  GcEventRecord r{};
  ASSERT_TRUE(gc_event_from_runtime_event(gc_events::kPerHeapHistory, 3, b.data(), b.size(), 8, &r));
  EXPECT_EQ(r.a, 201u);
  EXPECT_EQ(r.b, 12u);
  EXPECT_EQ(r.c, 3u);
  EXPECT_EQ(r.d, 101u);
}

TEST(GcEventPayloads, TakesOnlyTheGcTablesEvents) {
  EXPECT_TRUE(is_gc_table_event(gc_events::kSuspendEeBegin));
  EXPECT_TRUE(is_gc_table_event(gc_events::kGlobalHeapHistory));
  EXPECT_FALSE(is_gc_table_event(10));   // AllocationTick
  EXPECT_FALSE(is_gc_table_event(81));   // ContentionStart
  EXPECT_FALSE(is_gc_table_event(5));    // GCCreateSegment
}

// One BGC with a gen 1 before it, as the runtime delivers it: both GCStarts reach the tracker
// (the profiler's GarbageCollectionStarted comes once), in order, with their thread and time.
TEST(GcEventTracker, KeepsBothGcStartsOfOneSuspension) {
  GcEventTracker t;
  std::vector<uint8_t> suspend;
  put(suspend, 1, 4);
  put(suspend, 10, 4);
  put(suspend, 0, 2);
  const std::vector<uint8_t> bgc = gc_start_v2(11, 2, 0, 1), gen1 = gc_start_v2(12, 1, 0, 0);
  t.on_runtime_event(gc_events::kSuspendEeBegin, 1, suspend.data(), suspend.size(), 100, 7);
  t.on_runtime_event(gc_events::kGcStart, 2, bgc.data(), bgc.size(), 103, 7);
  t.on_runtime_event(gc_events::kGcStart, 2, gen1.data(), gen1.size(), 104, 7);
  t.on_runtime_event(10, 4, gen1.data(), gen1.size(), 105, 7);  // not a GC table event
  std::vector<GcEventRecord> out;
  t.take(&out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].a, 11u);
  EXPECT_EQ(out[1].d, 1u);
  EXPECT_EQ(out[2].a, 12u);
  EXPECT_EQ(out[2].mono, 104u);
  EXPECT_EQ(out[2].tid, 7u);
  t.take(&out);
  EXPECT_EQ(out.size(), 3u);
}

// The record's bytes, field by field; structs/wire/timeline/timeline-kinds.test.ts holds the
// TypeScript encoder to the very same list.
TEST(GcEventWire, WritesTheBodyProtocolMdLaysOut) {
  ByteBuffer out;
  WireWriter w(&out);
  w.gc_event(GcEventRecord{0x0102030405ull, 77, 1, 2, 11, 2, 1, 1});
  const std::vector<uint8_t> expected = {
      47, 0, 0, 0, wire::kGcEvent,
      0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0,  // u64 mono
      77, 0, 0, 0,                            // u32 tid
      1, 2,                                   // u8 event (GCStart), u8 version
      11, 0, 0, 0, 0, 0, 0, 0,                // u64 a: Count
      2, 0, 0, 0, 0, 0, 0, 0,                 // u64 b: Depth
      1, 0, 0, 0, 0, 0, 0, 0,                 // u64 c: Reason (Induced)
      1, 0, 0, 0, 0, 0, 0, 0,                 // u64 d: Type (background)
  };
  ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.end()), expected);
}

}  // namespace
}  // namespace clrscope
