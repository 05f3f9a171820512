#include "core/runtime_event_payloads.h"

#include <gtest/gtest.h>

#include <vector>

namespace clrscope {
namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// GCHeapStats_V2 as the manifest lays it out: 10 x u64, 3 x u32, u16 ClrInstanceID, 2 x u64.
std::vector<uint8_t> heap_stats_v2() {
  std::vector<uint8_t> b;
  const uint64_t sizes_and_promoted[8] = {1000, 111, 2000, 222, 3000, 333, 4000, 444};
  for (uint64_t v : sizes_and_promoted) put(b, v, 8);
  put(b, 555, 8);  // FinalizationPromotedSize
  put(b, 6, 8);    // FinalizationPromotedCount
  put(b, 7, 4);    // PinnedObjectCount
  put(b, 8, 4);    // SinkBlockCount
  put(b, 9, 4);    // GCHandleCount
  put(b, 0, 2);    // ClrInstanceID
  put(b, 5000, 8);  // GenerationSize4
  put(b, 555, 8);   // TotalPromotedSize4
  return b;
}

TEST(RuntimeEventPayloads, ReadsGcHeapStatsV2) {
  RuntimeCounters c;
  const std::vector<uint8_t> b = heap_stats_v2();
  ASSERT_EQ(b.size(), 110u);
  apply_runtime_event(runtime_events::kGcHeapStats, 2, b.data(), b.size(), &c);
  EXPECT_EQ(c.promoted[0].load(), 111u);
  EXPECT_EQ(c.promoted[1].load(), 222u);
  EXPECT_EQ(c.finalization_promoted.load(), 555u);
  EXPECT_EQ(c.finalization_promoted_count.load(), 6u);
  EXPECT_EQ(c.pinned_objects.load(), 7u);
  EXPECT_EQ(c.sync_blocks.load(), 8u);
  EXPECT_EQ(c.gc_handles.load(), 9u);
}

TEST(RuntimeEventPayloads, IgnoresShortPayloadsAndOtherEvents) {
  RuntimeCounters c;
  std::vector<uint8_t> b = heap_stats_v2();
  apply_runtime_event(runtime_events::kGcHeapStats, 2, b.data(), 91, &c);
  EXPECT_EQ(c.pinned_objects.load(), 0u);
  apply_runtime_event(12345, 0, b.data(), b.size(), &c);
  EXPECT_EQ(c.gc_handles.load(), 0u);
  apply_runtime_event(runtime_events::kContentionStart, 2, nullptr, 0, &c);
  apply_runtime_event(runtime_events::kContentionStart, 1, b.data(), 4, &c);
  EXPECT_EQ(c.contentions.load(), 2u);
}

}  // namespace
}  // namespace clrscope
