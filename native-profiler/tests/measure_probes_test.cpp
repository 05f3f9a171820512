#include "core/measure_probes.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/measure_figures.h"
#include "core/platform.h"
#include "core/probe_clock.h"

namespace clrscope {
namespace measure {
namespace {

class MeasureProbes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { calibrate_probe_clock(); }
};

uint64_t bucket_total(const Figures& f) {
  uint64_t n = 0;
  for (const auto& b : f.buckets) n += b.second;
  return n;
}

TEST(MeasureHistogram, BucketsAreLogLinear) {
  EXPECT_EQ(bucket_of(0), 0u);
  EXPECT_EQ(bucket_of(15), 15u);
  EXPECT_EQ(bucket_of(16), 16u);
  EXPECT_EQ(bucket_of(17), 17u);
  EXPECT_EQ(bucket_of(33), 32u);  // 32..33 share a bucket 2 ns wide
  EXPECT_EQ(bucket_floor(bucket_of(1000)), 992u);
  // Every bucket is at most 1/16 of its floor wide, and the floors increase.
  for (uint32_t b = 1; b + 1 < kBuckets; ++b) {
    ASSERT_GT(bucket_floor(b + 1), bucket_floor(b));
    if (b >= kSubBuckets) {
      ASSERT_LE((bucket_floor(b + 1) - bucket_floor(b)) * 16, bucket_floor(b)) << b;
    }
    ASSERT_EQ(bucket_of(bucket_floor(b)), b);
    ASSERT_EQ(bucket_of(bucket_floor(b + 1) - 1), b);
  }
}

TEST_F(MeasureProbes, ProbeClockCountsNanoseconds) {
  const uint64_t t0 = probe_ticks();
  const uint64_t m0 = platform::mono_now_ns();
  platform::sleep_until_mono_ns(m0 + 30000000);
  const uint64_t t1 = probe_ticks();
  const uint64_t m1 = platform::mono_now_ns();
  const double ratio = static_cast<double>(ticks_to_ns(t1 - t0)) / static_cast<double>(m1 - m0);
  EXPECT_NEAR(ratio, 1.0, 0.01);
}

// Threads call the probes a known number of times; some exit before the figures are read.
TEST_F(MeasureProbes, CountsEveryCallOfEveryThreadExactly) {
  const int32_t a = 11, b = 12;
  constexpr int kThreads = 6;
  // The count of refused calls is the process's: another test may have added to it before.
  const uint64_t dropped_before = FiguresReader().dropped_calls();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, a, b] {
      for (int i = 0; i < 1000 * (t + 1); ++i) clrscope_probe_leave(a, clrscope_probe_enter());
      for (int i = 0; i < 10 * (t + 1); ++i) clrscope_probe_raise(b, clrscope_probe_enter());
      for (int i = 0; i < 5; ++i) clrscope_probe_leave(b, clrscope_probe_enter());
    });
  }
  for (int t = 0; t < kThreads / 2; ++t) threads[t].join();
  FiguresReader reader;
  std::vector<Figures> figures;
  reader.read({static_cast<uint32_t>(a), static_cast<uint32_t>(b)}, &figures);  // folds the exited ones
  for (int t = kThreads / 2; t < kThreads; ++t) threads[t].join();
  reader.read({static_cast<uint32_t>(a), static_cast<uint32_t>(b)}, &figures);
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].calls, 21000u);  // 1000 * (1 + ... + 6)
  EXPECT_EQ(figures[0].exceptions, 0u);
  EXPECT_EQ(bucket_total(figures[0]), 21000u);
  EXPECT_EQ(figures[1].calls, 210u + 30u);
  EXPECT_EQ(figures[1].exceptions, 210u);
  EXPECT_EQ(bucket_total(figures[1]), 240u);
  ASSERT_EQ(figures[0].threads.size(), static_cast<size_t>(kThreads));
  uint64_t sum = 0, total = 0;
  for (const ThreadFigures& row : figures[0].threads) {
    EXPECT_NE(row.os_tid, 0u);
    EXPECT_EQ(row.calls % 1000, 0u);
    sum += row.calls;
    total += row.total_ns;
  }
  EXPECT_EQ(sum, 21000u);
  EXPECT_EQ(total, figures[0].total_ns);
  EXPECT_GE(figures[0].max_ns * figures[0].calls, figures[0].total_ns);
  EXPECT_EQ(reader.dropped_calls(), dropped_before);
}

// A call of a known length (its start moved 20 ms into the past) lands in the bucket of 20 ms.
TEST_F(MeasureProbes, ADurationLandsInItsBucket) {
  const int32_t m = 13;
  const uint64_t twenty_ms_in_ticks = (20000000ull << 32) / g_probe_clock.ns_per_tick_q32;
  std::thread([&] {
    for (int i = 0; i < 50; ++i) {
      clrscope_probe_leave(m, clrscope_probe_enter() - static_cast<int64_t>(twenty_ms_in_ticks));
    }
  }).join();
  FiguresReader reader;
  std::vector<Figures> figures;
  reader.read({static_cast<uint32_t>(m)}, &figures);
  ASSERT_EQ(figures[0].calls, 50u);
  ASSERT_FALSE(figures[0].buckets.empty());
  const uint64_t lo = bucket_floor(figures[0].buckets.front().first);
  const uint64_t hi = bucket_floor(figures[0].buckets.back().first + 1);
  EXPECT_LE(lo, 20000000u);
  EXPECT_GE(hi, 20000000u);
  EXPECT_LT(hi - lo, 2100000u);  // within one or two buckets of 1 ms
  EXPECT_NEAR(static_cast<double>(figures[0].total_ns) / 50.0, 20000000.0, 200000.0);
}

TEST_F(MeasureProbes, RefusesAnIndexOutOfRangeAndCountsIt) {
  FiguresReader reader;
  const uint64_t before = reader.dropped_calls();
  std::thread([] { clrscope_probe_leave(static_cast<int32_t>(kMaxMethods), clrscope_probe_enter()); }).join();
  std::thread([] { clrscope_probe_leave(-1, clrscope_probe_enter()); }).join();
  EXPECT_EQ(reader.dropped_calls(), before + 2);
}

}  // namespace
}  // namespace measure
}  // namespace clrscope
