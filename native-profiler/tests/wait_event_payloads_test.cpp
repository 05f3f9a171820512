#include "core/wait_event_payloads.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/page_memory.h"
#include "core/runtime_event_tracker.h"

namespace clrscope {
namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// WaitHandleWaitStart's template: u8 WaitSource, pointer AssociatedObjectID, u16 ClrInstanceID.
std::vector<uint8_t> wait_start(uint8_t source, uint64_t object, int pointer_size) {
  std::vector<uint8_t> b;
  put(b, source, 1);
  put(b, object, pointer_size);
  put(b, 0, 2);
  return b;
}

TEST(WaitEventPayloads, ReadsAWaitStartsSourceAndObjectAtEitherPointerSize) {
  RuntimeEventRecord r{};
  const std::vector<uint8_t> b64 = wait_start(1, 0x7f0012345678ull, 8);
  ASSERT_TRUE(wait_event_from_runtime_event(wait_events::kWaitStart, 0, b64.data(), b64.size(), 8, &r));
  EXPECT_EQ(r.event, 301);
  EXPECT_EQ(r.a, 1u);  // MonitorWait
  EXPECT_EQ(r.b, 0x7f0012345678ull);
  const std::vector<uint8_t> b32 = wait_start(0, 0x12345678u, 4);
  ASSERT_TRUE(wait_event_from_runtime_event(wait_events::kWaitStart, 0, b32.data(), b32.size(), 4, &r));
  EXPECT_EQ(r.a, 0u);  // Unknown
  EXPECT_EQ(r.b, 0x12345678u);
  EXPECT_FALSE(wait_event_from_runtime_event(wait_events::kWaitStart, 0, b64.data(), 8, 8, &r));  // cut short
}

TEST(WaitEventPayloads, ReadsAWaitStopAndNothingElse) {
  RuntimeEventRecord r{};
  std::vector<uint8_t> stop;
  put(stop, 0, 2);  // ClrInstanceID
  ASSERT_TRUE(wait_event_from_runtime_event(wait_events::kWaitStop, 0, stop.data(), stop.size(), 8, &r));
  EXPECT_EQ(r.event, 302);
  EXPECT_EQ(r.a, 0u);
  EXPECT_FALSE(wait_event_from_runtime_event(303, 0, stop.data(), stop.size(), 8, &r));  // AllocationSampled
  EXPECT_FALSE(wait_event_from_runtime_event(wait_events::kWaitStop, 0, nullptr, 0, 8, &r));
}

TEST(WaitEventPayloads, TheTrackerKeepsAWaitsStartAndStopOnItsThreadAndCountsTheWaits) {
  RuntimeEventTracker tracker;
  const std::vector<uint8_t> start = wait_start(1, 0x1000, sizeof(void*));
  std::vector<uint8_t> stop;
  put(stop, 0, 2);
  tracker.on_runtime_event(wait_events::kWaitStart, 0, start.data(), start.size(), 5000, 9);
  tracker.on_runtime_event(wait_events::kWaitStop, 0, stop.data(), stop.size(), 305000, 9);
  std::vector<RuntimeEventRecord> out;
  tracker.take(&out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].event, 301);
  EXPECT_EQ(out[0].tid, 9u);
  EXPECT_EQ(out[1].event, 302);
  EXPECT_EQ(out[1].mono - out[0].mono, 300000u);
  EXPECT_EQ(tracker.waits(), 1u);
}

TEST(WaitEventPayloads, TheTrackerDropsTheOldestHalfPastItsBound) {
  RuntimeEventTracker tracker;
  std::vector<uint8_t> stop;
  put(stop, 0, 2);
  for (size_t i = 0; i < RuntimeEventTracker::kMaxHeld + 1; ++i) {
    tracker.on_runtime_event(wait_events::kWaitStop, 0, stop.data(), stop.size(), i, 9);
  }
  std::vector<RuntimeEventRecord> out;
  tracker.take(&out);
  EXPECT_EQ(out.size(), RuntimeEventTracker::kMaxHeld / 2 + 1);
  EXPECT_EQ(out.front().mono, RuntimeEventTracker::kMaxHeld / 2);
  EXPECT_EQ(tracker.dropped(), RuntimeEventTracker::kMaxHeld / 2);
}

// The record's bytes, field by field; structs/wire/timeline/timeline-kinds.test.ts holds the
// TypeScript encoder to the very same list.
TEST(RuntimeEventWire, WritesTheBodyProtocolMdLaysOut) {
  ByteBuffer out;
  WireWriter w(&out);
  w.runtime_event(RuntimeEventRecord{0x0102030405ull, 77, 301, 0, 1, 0x7f0012345678ull, 0, 0});
  const std::vector<uint8_t> expected = {
      48, 0, 0, 0, wire::kRuntimeEvent,
      0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0,     // u64 mono
      77, 0, 0, 0,                               // u32 tid
      0x2d, 0x01, 0,                             // u16 event (WaitHandleWaitStart, 301), u8 version
      1, 0, 0, 0, 0, 0, 0, 0,                    // u64 a: WaitSource (MonitorWait)
      0x78, 0x56, 0x34, 0x12, 0x00, 0x7f, 0, 0,  // u64 b: AssociatedObjectID
      0, 0, 0, 0, 0, 0, 0, 0,                    // u64 c
      0, 0, 0, 0, 0, 0, 0, 0,                    // u64 d
  };
  ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.end()), expected);
}

}  // namespace
}  // namespace clrscope
