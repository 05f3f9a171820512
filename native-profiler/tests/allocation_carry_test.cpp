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
  carry.lose(1000);
  carry.lose(3000);
  // Receivers of 100-byte objects.
  uint64_t b1 = 100, o1 = 1, b2 = 100, o2 = 1, b3 = 100, o3 = 1;
  carry.take(&b1, &o1);
  carry.take(&b2, &o2);
  carry.take(&b3, &o3);
  // Each sample takes one lost sample's worth (their mean), the last what remains; its objects
  // are those bytes at its own size.
  EXPECT_EQ(b1, 2100u);
  EXPECT_EQ(o1, 21u);
  EXPECT_EQ(b2, 2100u);
  EXPECT_EQ(o2, 21u);
  EXPECT_EQ(b3, 100u);
  EXPECT_EQ(o3, 1u);
  EXPECT_EQ(carry.pending_count(), 0u);
}

TEST(AllocationCarry, ASampleWithoutBytesTakesNothing) {
  AllocationCarry carry;
  carry.lose(1000);
  uint64_t bytes = 0, objects = 0;
  carry.take(&bytes, &objects);
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(carry.pending_count(), 1u);
}

TEST(AllocationCarry, ABurstIsSpreadOverManySamplesAndEveryByteArrives) {
  AllocationCarry carry;
  const uint64_t lost = 1000;
  for (uint64_t i = 0; i < lost; ++i) carry.lose(102400 + i);
  const uint64_t total_bytes = lost * 102400 + lost * (lost - 1) / 2;
  uint64_t bytes = 0, samples = 0, largest = 0;
  while (carry.pending_count() > 0) {
    uint64_t b = 102400, o = 1;
    carry.take(&b, &o);
    bytes += b - 102400;
    if (b - 102400 > largest) largest = b - 102400;
    ++samples;
  }
  EXPECT_EQ(bytes, total_bytes);
  EXPECT_EQ(carry.pending_bytes(), 0u);
  // No sample takes more than a 64th of the burst, and the burst is gone in a few hundred.
  EXPECT_LE(largest, total_bytes / 64 + 102400 * 2);
  EXPECT_GT(samples, 64u);
  EXPECT_LT(samples, 400u);
}

// Two types on one thread, a quarter of the samples small objects (32 bytes: 3,200 objects a
// sample) and the rest one large array each; a burst of the small ones is lost. Spread as bytes,
// each type's objects stay in proportion to its bytes.
TEST(AllocationCarry, EachTypesObjectsFollowItsBytes) {
  AllocationCarry carry;
  for (int i = 0; i < 400; ++i) carry.lose(102400);
  uint64_t small_bytes = 0, small_objects = 0, big_bytes = 0, big_objects = 0;
  for (int i = 0; carry.pending_count() > 0; ++i) {
    if (i % 4 == 0) {
      uint64_t b = 102400, o = 3200;
      carry.take(&b, &o);
      small_bytes += b;
      small_objects += o;
    } else {
      uint64_t b = 1 << 20, o = 1;
      carry.take(&b, &o);
      big_bytes += b;
      big_objects += o;
    }
  }
  EXPECT_NEAR(static_cast<double>(small_objects) * 32, static_cast<double>(small_bytes), small_bytes * 0.001);
  EXPECT_NEAR(static_cast<double>(big_objects) * (1 << 20), static_cast<double>(big_bytes), static_cast<double>(1 << 20));
}

TEST(AllocationCarry, HugeTotalsDoNotOverflowTheShare) {
  AllocationCarry carry;
  for (int i = 0; i < 200; ++i) carry.lose(UINT64_MAX / 256);
  uint64_t b = 1 << 20, o = 1;
  carry.take(&b, &o);
  // 200 pending: one sample takes 3 (200 / 64) of them.
  EXPECT_EQ(b, (1u << 20) + UINT64_MAX / 256 * 3);
  EXPECT_EQ(carry.pending_count(), 197u);
}

}  // namespace
}  // namespace clrscope
