#include "core/stack_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace clrscope {
namespace {

TEST(StackTable, GivesEachDistinctStackOneIdFromOne) {
  StackTable t;
  const uint32_t a[] = {5, 4, 3};
  const uint32_t b[] = {5, 4};
  bool added = false;
  EXPECT_EQ(t.intern(a, 3, 0, &added), 1u);
  EXPECT_TRUE(added);
  EXPECT_EQ(t.intern(b, 2, 0, &added), 2u);
  EXPECT_TRUE(added);
  EXPECT_EQ(t.intern(a, 3, 0, &added), 1u);
  EXPECT_FALSE(added);
  EXPECT_EQ(t.intern(b, 2, 0, &added), 2u);
  EXPECT_FALSE(added);
  EXPECT_EQ(t.size(), 2u);
}

TEST(StackTable, FlagsAndLengthArePartOfTheIdentity) {
  StackTable t;
  const uint32_t a[] = {7, 8};
  bool added = false;
  const uint32_t plain = t.intern(a, 2, 0, &added);
  const uint32_t incomplete = t.intern(a, 2, 4, &added);
  const uint32_t shorter = t.intern(a, 1, 0, &added);
  const uint32_t empty = t.intern(nullptr, 0, 4, &added);
  EXPECT_NE(plain, incomplete);
  EXPECT_NE(plain, shorter);
  EXPECT_EQ(t.intern(nullptr, 0, 4, &added), empty);
  EXPECT_FALSE(added);
  EXPECT_EQ(t.size(), 4u);
}

TEST(StackTable, SaysFullAtTheStackCapAndStartsOverAfterReset) {
  StackTable t;
  bool added = false;
  uint32_t frames[2];
  for (uint32_t i = 0; i < StackTable::kMaxStacks; ++i) {
    frames[0] = i;
    frames[1] = i * 31;
    ASSERT_EQ(t.intern(frames, 2, 0, &added), i + 1);
  }
  // Known stacks are still found when the table is full; only a new one does not fit.
  frames[0] = 17;
  frames[1] = 17 * 31;
  EXPECT_EQ(t.intern(frames, 2, 0, &added), 18u);
  frames[0] = StackTable::kMaxStacks;
  EXPECT_EQ(t.intern(frames, 2, 0, &added), StackTable::kFull);
  EXPECT_FALSE(added);
  const size_t bytes = t.allocated_bytes();
  EXPECT_LE(bytes, StackTable::kMaxBytes);
  t.reset();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.intern(frames, 2, 0, &added), 1u);
  EXPECT_TRUE(added);
  EXPECT_EQ(t.allocated_bytes(), bytes);  // reset keeps the memory
}

TEST(StackTable, SaysFullAtTheFrameCapAndNeverAllocatesPastItsBound) {
  StackTable t;
  bool added = false;
  std::vector<uint32_t> frames(512);
  uint32_t id = 0;
  uint32_t n = 0;
  for (;;) {
    for (uint32_t k = 0; k < frames.size(); ++k) frames[k] = n * 1000 + k;
    id = t.intern(frames.data(), static_cast<uint16_t>(frames.size()), 0, &added);
    if (id == StackTable::kFull) break;
    ++n;
  }
  EXPECT_EQ(n, StackTable::kMaxFrames / 512);
  EXPECT_LE(t.allocated_bytes(), StackTable::kMaxBytes);
  // The bound README and PROTOCOL.md quote.
  EXPECT_EQ(StackTable::kMaxBytes, 2752512u);
}

}  // namespace
}  // namespace clrscope
