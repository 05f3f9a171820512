#include "core/allocation_carry.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

TEST(AllocationCarry, NothingLostAddsNothing) {
  AllocationCarry carry;
  uint64_t bytes = 100, objects = 1;
  carry.take(&bytes, &objects);
  EXPECT_EQ(bytes, 100u);
  EXPECT_EQ(objects, 1u);
}

TEST(AllocationCarry, AFewLostRideOneASampleUntilNoneIsLeft) {
  AllocationCarry carry;
  carry.lose(1000, 10);
  carry.lose(3000, 30);
  uint64_t b1 = 0, o1 = 0, b2 = 0, o2 = 0, b3 = 0, o3 = 0;
  carry.take(&b1, &o1);
  carry.take(&b2, &o2);
  carry.take(&b3, &o3);
  // Each sample takes one lost sample's worth (their mean), the last what remains.
  EXPECT_EQ(b1, 2000u);
  EXPECT_EQ(o1, 20u);
  EXPECT_EQ(b2, 2000u);
  EXPECT_EQ(o2, 20u);
  EXPECT_EQ(b3, 0u);
  EXPECT_EQ(carry.pending_count(), 0u);
}

TEST(AllocationCarry, ABurstIsSpreadOverManySamplesAndEveryByteArrives) {
  AllocationCarry carry;
  const uint64_t lost = 1000;
  for (uint64_t i = 0; i < lost; ++i) carry.lose(102400 + i, 1);
  const uint64_t total_bytes = lost * 102400 + lost * (lost - 1) / 2;
  uint64_t bytes = 0, objects = 0, samples = 0, largest = 0;
  while (carry.pending_count() > 0) {
    uint64_t b = 0, o = 0;
    carry.take(&b, &o);
    bytes += b;
    objects += o;
    if (b > largest) largest = b;
    ++samples;
  }
  EXPECT_EQ(bytes, total_bytes);
  EXPECT_EQ(objects, lost);
  // No sample takes more than a 64th of the burst, and the burst is gone in a few hundred.
  EXPECT_LE(largest, total_bytes / 64 + 102400 * 2);
  EXPECT_GT(samples, 64u);
  EXPECT_LT(samples, 400u);
}

TEST(AllocationCarry, HugeTotalsDoNotOverflowTheShare) {
  AllocationCarry carry;
  for (int i = 0; i < 200; ++i) carry.lose(UINT64_MAX / 256, 1);
  uint64_t b = 0, o = 0;
  carry.take(&b, &o);
  // 200 pending: one sample takes 3 (200 / 64) of them.
  EXPECT_EQ(b, UINT64_MAX / 256 * 3);
  EXPECT_EQ(o, 3u);
}

}  // namespace
}  // namespace clrscope
