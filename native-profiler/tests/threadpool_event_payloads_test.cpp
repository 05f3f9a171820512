#include "core/threadpool_event_payloads.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/gc_event_tracker.h"
#include "core/runtime_event_tracker.h"

namespace clrscope {
namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_double(std::vector<uint8_t>& b, double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, 8);
  put(b, bits, 8);
}

TEST(ThreadPoolEventPayloads, ReadsWorkerThreadStartAndStop) {
  std::vector<uint8_t> b;
  put(b, 7, 4);  // ActiveWorkerThreadCount
  put(b, 2, 4);  // RetiredWorkerThreadCount
  put(b, 0, 2);  // ClrInstanceID
  RuntimeEventRecord r{};
  ASSERT_TRUE(threadpool_event_from_runtime_event(threadpool_events::kWorkerThreadStart, 0, b.data(), b.size(), &r));
  EXPECT_EQ(r.event, 50);
  EXPECT_EQ(r.a, 7u);
  EXPECT_EQ(r.b, 2u);
  ASSERT_TRUE(threadpool_event_from_runtime_event(threadpool_events::kWorkerThreadStop, 0, b.data(), b.size(), &r));
  EXPECT_EQ(r.event, 51);
  EXPECT_FALSE(threadpool_event_from_runtime_event(threadpool_events::kWorkerThreadStart, 0, b.data(), 7, &r));
}

TEST(ThreadPoolEventPayloads, ReadsAnAdjustmentWithItsReason) {
  std::vector<uint8_t> b;
  put_double(b, 123.4567);  // AverageThroughput
  put(b, 12, 4);            // NewWorkerThreadCount
  put(b, 6, 4);             // Reason: starvation
  put(b, 0, 2);
  ASSERT_EQ(b.size(), 18u);
  RuntimeEventRecord r{};
  ASSERT_TRUE(threadpool_event_from_runtime_event(threadpool_events::kAdjustment, 0, b.data(), b.size(), &r));
  EXPECT_EQ(r.event, 55);
  EXPECT_EQ(r.a, 12u);
  EXPECT_EQ(r.b, 6u);
  EXPECT_EQ(r.c, 123457u);
  EXPECT_FALSE(threadpool_event_from_runtime_event(threadpool_events::kAdjustment, 0, b.data(), 15, &r));
}

TEST(ThreadPoolEventPayloads, ReadsASampleAndRefusesNonsense) {
  std::vector<uint8_t> b;
  put_double(b, -1.0);
  put(b, 0, 2);
  RuntimeEventRecord r{};
  ASSERT_TRUE(threadpool_event_from_runtime_event(threadpool_events::kAdjustmentSample, 0, b.data(), b.size(), &r));
  EXPECT_EQ(r.a, 0u);  // a negative throughput is no throughput
  EXPECT_FALSE(threadpool_event_from_runtime_event(57, 0, b.data(), b.size(), &r));  // ThreadPoolWorkerThreadWait
  EXPECT_FALSE(threadpool_event_from_runtime_event(1, 0, b.data(), b.size(), &r));
}

TEST(ThreadPoolEventPayloads, TheRuntimeEventTrackerHoldsThemAndTheGcTrackerDoesNot) {
  RuntimeEventTracker tracker;
  GcEventTracker gc;
  std::vector<uint8_t> b;
  put(b, 3, 4);
  put(b, 0, 4);
  put(b, 0, 2);
  tracker.on_runtime_event(threadpool_events::kWorkerThreadStart, 0, b.data(), b.size(), 1000, 42);
  tracker.on_runtime_event(57, 0, b.data(), b.size(), 2000, 42);
  gc.on_runtime_event(threadpool_events::kWorkerThreadStart, 0, b.data(), b.size(), 1000, 42);
  std::vector<RuntimeEventRecord> out;
  tracker.take(&out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].event, 50);
  EXPECT_EQ(out[0].a, 3u);
  EXPECT_EQ(out[0].mono, 1000u);
  EXPECT_EQ(out[0].tid, 42u);
  std::vector<GcEventRecord> gc_out;
  gc.take(&gc_out);
  EXPECT_TRUE(gc_out.empty());  // the GC table's events are GC events only
}

}  // namespace
}  // namespace clrscope
