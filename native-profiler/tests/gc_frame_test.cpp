// Where the [GC] frame goes in a sample's stack (core/gc_frame.h).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/gc_frame.h"

namespace clrscope {
namespace {

// Frames 100 and up play managed code, the rest the runtime's native code.
size_t place(const std::vector<uint32_t>& frames, bool gc_thread, bool collecting) {
  return gc_frame_at(frames.data(), frames.size(), gc_thread, collecting, [](uint32_t f) { return f >= 100; });
}

TEST(GcFrame, ACollectorThreadGetsItAtTheRootWhateverItRuns) {
  EXPECT_EQ(place({1, 2, 3}, true, false), 3u);
  EXPECT_EQ(place({1, 2, 3}, true, true), 3u) << "a collector reporting the GC's start itself: still one frame, at the root";
  EXPECT_EQ(place({101, 2}, true, false), 2u);
  EXPECT_EQ(place({}, true, false), 0u);
}

TEST(GcFrame, AThreadCollectingGetsItAboveItsInnermostManagedFrame) {
  // leaf first: memset, the collector, the allocation helper, then the allocating method.
  EXPECT_EQ(place({1, 2, 3, 101, 102, 4}, false, true), 3u);
  EXPECT_EQ(place({101, 102}, false, true), 0u) << "interrupted in managed code: the frame is the leaf";
  EXPECT_EQ(place({1, 2}, false, true), 2u) << "no managed frame at all: at the root";
}

TEST(GcFrame, AnyOtherSampleGetsNone) {
  EXPECT_EQ(place({1, 101}, false, false), kNoGcFrame);
  EXPECT_EQ(place({}, false, false), kNoGcFrame);
}

}  // namespace
}  // namespace clrscope
