#include "core/suspension_tracker.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

// A background GC's GarbageCollectionFinished comes with the runtime running: the live heap's
// sweep asks this before touching objects.
TEST(SuspensionTracker, SaysWhetherTheRuntimeIsSuspendedNow) {
  RuntimeCounters counters;
  SuspensionTracker t(&counters);
  EXPECT_FALSE(t.suspended());
  t.on_suspend_started(1, 1000);
  EXPECT_TRUE(t.suspended());
  t.on_resume_finished(2000);
  EXPECT_FALSE(t.suspended());
  t.on_suspend_started(7, 3000);
  t.on_suspend_aborted(3100);
  EXPECT_FALSE(t.suspended());
}

TEST(SuspensionTracker, MeasuresAGcPauseFromSuspendToResume) {
  RuntimeCounters counters;
  SuspensionTracker t(&counters);
  t.on_suspend_started(1, 1000);
  t.on_suspend_finished(1300);
  t.on_gc_started(1, false);
  t.on_resume_finished(9000);
  std::vector<SuspensionRecord> out;
  t.take(&out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].mono, 1000u);
  EXPECT_EQ(out[0].suspend_ns, 300u);
  EXPECT_EQ(out[0].duration_ns, 8000u);
  EXPECT_EQ(out[0].reason, 1);
  EXPECT_EQ(out[0].generation, 1);
  EXPECT_EQ(out[0].flags, 0);
  // A gen-1 GC counts for gen 0 and gen 1, as GC.CollectionCount does.
  EXPECT_EQ(counters.collections[0].load(), 1u);
  EXPECT_EQ(counters.collections[1].load(), 1u);
  EXPECT_EQ(counters.collections[2].load(), 0u);
  EXPECT_EQ(counters.gc_paused_ns.load(), 8000u);
  EXPECT_EQ(counters.paused_ns.load(), 8000u);
  t.take(&out);
  EXPECT_EQ(out.size(), 1u) << "taken records are not returned twice";
}

TEST(SuspensionTracker, KeepsNonGcSuspensionsApartAndMarksInducedAndAborted) {
  RuntimeCounters counters;
  SuspensionTracker t(&counters);
  t.on_suspend_started(9, 100);  // for the profiler: no GC in it
  t.on_suspend_finished(150);
  t.on_resume_finished(400);
  t.on_suspend_started(1, 1000);
  t.on_suspend_finished(1100);
  t.on_gc_started(2, true);
  t.on_resume_finished(5000);
  t.on_suspend_started(1, 6000);
  t.on_suspend_aborted(6050);
  std::vector<SuspensionRecord> out;
  t.take(&out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].generation, -1);
  EXPECT_EQ(out[0].reason, 9);
  EXPECT_EQ(out[1].generation, 2);
  EXPECT_EQ(out[1].flags, wire::kSuspensionInduced);
  EXPECT_EQ(out[2].flags, wire::kSuspensionAborted);
  EXPECT_EQ(out[2].generation, -1);
  EXPECT_EQ(counters.induced.load(), 1u);
  EXPECT_EQ(counters.gc_paused_ns.load(), 4000u);
  EXPECT_EQ(counters.paused_ns.load(), 300u + 4000u + 50u);
}

TEST(SuspensionTracker, IgnoresAnEndWithoutABeginning) {
  RuntimeCounters counters;
  SuspensionTracker t(&counters);
  t.on_suspend_finished(10);
  t.on_resume_finished(20);
  t.on_gc_started(0, false);  // still counted: the GC happened
  std::vector<SuspensionRecord> out;
  t.take(&out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(counters.collections[0].load(), 1u);
}

}  // namespace
}  // namespace clrscope
