#include "core/frame_walker.h"

#include <gtest/gtest.h>

#include <vector>

namespace clrscope {
namespace {

// A fake stack: frame records (saved fp, return address) laid out in a real buffer so the
// walker reads real memory, as it does in a handler.
struct FakeStack {
  std::vector<uintptr_t> words = std::vector<uintptr_t>(4096, 0);
  uintptr_t base() const { return reinterpret_cast<uintptr_t>(words.data()); }
  uintptr_t addr(size_t i) const { return base() + i * sizeof(uintptr_t); }
  StackBounds bounds() const { return StackBounds{base(), base() + words.size() * sizeof(uintptr_t)}; }
  // Chain of `n` frames, each 4 words apart starting at word `first`; returns fp of the first.
  uintptr_t chain(size_t first, size_t n, uintptr_t ret_base, bool zero_end) {
    for (size_t k = 0; k < n; ++k) {
      const size_t at = first + 4 * k;
      words[at] = (k + 1 < n) ? addr(at + 4) : (zero_end ? 0 : addr(at + 4));
      words[at + 1] = ret_base + k;
    }
    return addr(first);
  }
};

TEST(FrameWalker, WalksAChainToItsZeroEnd) {
  FakeStack s;
  const uintptr_t fp = s.chain(10, 5, 0x1000, true);
  uintptr_t out[16];
  const WalkResult r = walk_frames(WalkRegisters{0xABC, s.addr(2), fp}, s.bounds(), out, 16, 4, nullptr);
  ASSERT_EQ(r.count, 6u);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.elided, 0u);
  EXPECT_EQ(out[0], 0xABCu);
  for (uint32_t k = 0; k < 5; ++k) EXPECT_EQ(out[k + 1], 0x1000u + k);
}

TEST(FrameWalker, StopsWhenTheChainLeavesTheStack) {
  FakeStack s;
  const uintptr_t fp = s.chain(10, 3, 0x2000, false);
  // The last record points past the buffer's end: the walk must stop there, incomplete.
  s.words[18] = s.bounds().hi + 4096;
  uintptr_t out[16];
  const WalkResult r = walk_frames(WalkRegisters{0x1, s.addr(2), fp}, s.bounds(), out, 16, 4, nullptr);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.count, 4u);
}

TEST(FrameWalker, RejectsFramesBelowTheStackPointerAndLoops) {
  FakeStack s;
  uintptr_t out[16];
  // fp below sp
  WalkResult r = walk_frames(WalkRegisters{0x1, s.addr(100), s.addr(50)}, s.bounds(), out, 16, 4, nullptr);
  EXPECT_EQ(r.count, 1u);
  EXPECT_FALSE(r.complete);
  // a record pointing at itself is garbage, return address included
  s.words[200] = s.addr(200);
  s.words[201] = 0x77;
  r = walk_frames(WalkRegisters{0x1, s.addr(100), s.addr(200)}, s.bounds(), out, 16, 4, nullptr);
  EXPECT_EQ(r.count, 1u);
  EXPECT_FALSE(r.complete);
  // misaligned
  r = walk_frames(WalkRegisters{0x1, s.addr(100), s.addr(200) + 3}, s.bounds(), out, 16, 4, nullptr);
  EXPECT_EQ(r.count, 1u);
}

TEST(FrameWalker, KeepsInnermostAndOutermostFramesOfADeepStack) {
  FakeStack s;
  const size_t depth = 1000;  // 4 words each: fits the 4096-word buffer
  const uintptr_t fp = s.chain(0, depth, 0x10000, true);
  uintptr_t out[32];
  const WalkResult r = walk_frames(WalkRegisters{0x5, s.addr(0), fp}, s.bounds(), out, 32, 8, nullptr);
  ASSERT_EQ(r.count, 32u);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.gap_at, 24u);
  EXPECT_EQ(r.elided, depth + 1 - 32);
  EXPECT_EQ(out[0], 0x5u);
  for (uint32_t k = 1; k < 24; ++k) EXPECT_EQ(out[k], 0x10000u + (k - 1));
  // the last 8 frames, in order, ending at the outermost one
  for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(out[24 + k], 0x10000u + (depth - 8 + k)) << k;
}

TEST(FrameWalker, TailRotationIsRightForEveryDepth) {
  for (size_t depth = 1; depth < 60; ++depth) {
    FakeStack s;
    const uintptr_t fp = s.chain(0, depth, 0x100, true);
    uintptr_t out[12];
    const WalkResult r = walk_frames(WalkRegisters{0x5, s.addr(0), fp}, s.bounds(), out, 12, 5, nullptr);
    const size_t total = depth + 1;
    std::vector<uintptr_t> all{0x5};
    for (size_t k = 0; k < depth; ++k) all.push_back(0x100 + k);
    if (total <= 12) {
      ASSERT_EQ(r.count, total);
      for (size_t i = 0; i < total; ++i) EXPECT_EQ(out[i], all[i]);
    } else {
      ASSERT_EQ(r.count, 12u);
      for (size_t i = 0; i < 7; ++i) EXPECT_EQ(out[i], all[i]) << "depth " << depth;
      for (size_t i = 0; i < 5; ++i) EXPECT_EQ(out[7 + i], all[total - 5 + i]) << "depth " << depth << " tail " << i;
    }
  }
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// The stack an on-stack replacement leaves (x64): the optimized frame's record saves the
// original frame's caller's fp and holds the patchpoint's address; the original record, with
// the real return address, sits above it, 16-byte aligned.
TEST(FrameWalker, KeepsBothCandidatesOfAnOnStackReplacedFrame) {
  alignas(16) uintptr_t stack[64] = {};
  const uintptr_t base = reinterpret_cast<uintptr_t>(stack);
  const auto at = [&](size_t i) { return base + i * sizeof(uintptr_t); };
  // caller's record at word 40: (0, ret into its own caller)
  stack[40] = 0;
  stack[41] = 0x5000;
  // original record at word 20: (caller fp, return address into the caller)
  stack[20] = at(40);
  stack[21] = 0x4000;
  // optimized record at word 4: (caller fp, patchpoint address in the original code)
  stack[4] = at(40);
  stack[5] = 0x3000;
  uintptr_t out[16];
  const WalkResult r = walk_frames(WalkRegisters{0x3100, at(2), at(4)}, StackBounds{base, at(64)}, out, 16, 4, nullptr);
  ASSERT_EQ(r.osr_pairs, 1u);
  EXPECT_EQ(r.osr_at[0], 1u);
  ASSERT_EQ(r.count, 4u);
  EXPECT_EQ(out[0], 0x3100u);
  EXPECT_EQ(out[1], 0x3000u) << "the patchpoint address";
  EXPECT_EQ(out[2], 0x4000u) << "the original record's return address";
  EXPECT_EQ(out[3], 0x5000u);
  EXPECT_TRUE(r.complete);
}

TEST(FrameWalker, AnOrdinaryChainHasNoReplacedFrames) {
  alignas(16) uintptr_t stack[64] = {};
  const uintptr_t base = reinterpret_cast<uintptr_t>(stack);
  const auto at = [&](size_t i) { return base + i * sizeof(uintptr_t); };
  stack[4] = at(20);
  stack[5] = 0x3000;
  stack[20] = 0;
  stack[21] = 0x4000;
  uintptr_t out[16];
  const WalkResult r = walk_frames(WalkRegisters{0x3100, at(2), at(4)}, StackBounds{base, at(64)}, out, 16, 4, nullptr);
  EXPECT_EQ(r.osr_pairs, 0u);
  EXPECT_EQ(r.count, 3u);
}

}  // namespace
}  // namespace clrscope
