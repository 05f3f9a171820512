// The heap walk of async stacks (core/heap_chain.h) over a fake heap laid out in a buffer: the
// objects' shapes are CoreLib's (a box whose m_continuationObject holds its awaiter's box, a
// delegate whose _target is the box, an AwaitTaskContinuation whose m_action is that delegate,
// a WhenAll promise in between), their MethodTables arbitrary numbers. Loads outside the buffer
// fail, as a fault would.
#include "core/heap_chain.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/heap_chains.h"

namespace clrscope {
namespace {

constexpr uintptr_t kBoxA = 0x7f0000001000, kBoxB = 0x7f0000002000, kBoxC = 0x7f0000003000;
constexpr uintptr_t kPromise = 0x7f0000004000, kDelegate = 0x7f0000005000, kContinuation = 0x7f0000006000;
constexpr uintptr_t kList = 0x7f0000007000;
constexpr uint16_t kContinuationField = 0x20;  // m_continuationObject, from the object's start
constexpr uint16_t kTargetField = 0x08;        // _target
constexpr uint16_t kActionField = 0x10;        // m_action

struct FakeHeap {
  static constexpr uintptr_t kBase = 0x10000000;
  std::vector<uintptr_t> words = std::vector<uintptr_t>(4096, 0);
  uintptr_t next = kBase;
  // A new object of `size` bytes with its MethodTable; returns its address.
  uintptr_t object(uintptr_t mt, size_t size = 0x40) {
    const uintptr_t at = next;
    next += size;
    set(at, mt);
    return at;
  }
  void set(uintptr_t address, uintptr_t value) { words.at((address - kBase) / 8) = value; }
};

FakeHeap* g_heap = nullptr;
int g_loads = 0;

bool fake_load(uintptr_t address, uintptr_t* out) {
  ++g_loads;
  if (address < FakeHeap::kBase || address + 8 > FakeHeap::kBase + g_heap->words.size() * 8 || (address & 7) != 0) return false;
  *out = g_heap->words[(address - FakeHeap::kBase) / 8];
  return true;
}

class HeapChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_heap = &heap;
    types.add(kBoxA, HeapType{HeapKind::kBox, kContinuationField});
    types.add(kBoxB, HeapType{HeapKind::kBox, kContinuationField});
    types.add(kBoxC, HeapType{HeapKind::kBox, kContinuationField});
    types.add(kPromise, HeapType{HeapKind::kTask, kContinuationField});
    types.add(kDelegate, HeapType{HeapKind::kDelegate, kTargetField});
    types.add(kContinuation, HeapType{HeapKind::kContinuation, kActionField});
    types.add(kList, HeapType{HeapKind::kStop, 0});
  }
  HeapWalk walk(uintptr_t box, uint32_t max_boxes = 32, uint32_t max_hops = 128) {
    return walk_heap_chain(box, types, fake_load, out, max_boxes, max_hops);
  }
  FakeHeap heap;
  HeapTypeSet types;
  uintptr_t out[32] = {};
};

TEST_F(HeapChainTest, FollowsBoxesDelegatesContinuationsAndPromisesToTheRoot) {
  const uintptr_t leaf = heap.object(kBoxA);
  const uintptr_t promise = heap.object(kPromise);  // Task.WhenAll's, registered on the leaf
  const uintptr_t middle = heap.object(kBoxB);
  const uintptr_t del = heap.object(kDelegate);  // the root's MoveNextAction
  const uintptr_t cont = heap.object(kContinuation);  // a captured context's wrapper of it
  const uintptr_t root = heap.object(kBoxC);
  heap.set(leaf + kContinuationField, promise);
  heap.set(promise + kContinuationField, middle);
  heap.set(middle + kContinuationField, cont);
  heap.set(cont + kActionField, del);
  heap.set(del + kTargetField, root);
  heap.set(root + kContinuationField, 0);
  const HeapWalk w = walk(leaf);
  EXPECT_EQ(w.end, HeapWalkEnd::kDone);
  ASSERT_EQ(w.count, 3u);
  EXPECT_EQ(out[0], kBoxA);
  EXPECT_EQ(out[1], kBoxB);
  EXPECT_EQ(out[2], kBoxC);
}

TEST_F(HeapChainTest, EndsAtAListOrTheSentinelAsTheRoot) {
  const uintptr_t leaf = heap.object(kBoxA);
  const uintptr_t list = heap.object(kList);
  heap.set(leaf + kContinuationField, list);
  const HeapWalk w = walk(leaf);
  EXPECT_EQ(w.end, HeapWalkEnd::kDone);
  EXPECT_EQ(w.count, 1u);
}

TEST_F(HeapChainTest, AnUnknownTypeEndsTheWalkAndIsQueuedOnce) {
  const uintptr_t leaf = heap.object(kBoxA);
  const uintptr_t stranger = heap.object(0x7f0000009000);
  heap.set(leaf + kContinuationField, stranger);
  EXPECT_EQ(walk(leaf).end, HeapWalkEnd::kUnknown);
  EXPECT_EQ(walk(leaf).count, 1u);
  uintptr_t queued[8];
  ASSERT_EQ(types.take_unknown(queued, 8), 1u);
  EXPECT_EQ(queued[0], 0x7f0000009000u);
  EXPECT_EQ(types.take_unknown(queued, 8), 0u);
  // Classified: later walks go past it.
  types.add(0x7f0000009000, HeapType{HeapKind::kStop, 0});
  EXPECT_EQ(walk(leaf).end, HeapWalkEnd::kDone);
}

TEST_F(HeapChainTest, ReferencesOutsideTheHeapOrMisalignedAreRejected) {
  const uintptr_t leaf = heap.object(kBoxA);
  heap.set(leaf + kContinuationField, 0x7fff00000000);  // unmapped: the load fails
  HeapWalk w = walk(leaf);
  EXPECT_EQ(w.end, HeapWalkEnd::kBadRead);
  EXPECT_EQ(w.count, 1u);
  heap.set(leaf + kContinuationField, FakeHeap::kBase + 4);  // misaligned: never loaded
  g_loads = 0;
  w = walk(leaf);
  EXPECT_EQ(w.end, HeapWalkEnd::kBadRead);
  EXPECT_EQ(g_loads, 2);  // the leaf's MethodTable and its continuation only
  // The running "box" is no box: nothing is recorded.
  const uintptr_t del = heap.object(kDelegate);
  EXPECT_EQ(walk(del).end, HeapWalkEnd::kBadRead);
  EXPECT_EQ(walk(del).count, 0u);
}

TEST_F(HeapChainTest, ACycleIsCutByTheHopBoundAndLongChainsByTheBoxBound) {
  const uintptr_t a = heap.object(kBoxA);
  const uintptr_t b = heap.object(kBoxB);
  heap.set(a + kContinuationField, b);
  heap.set(b + kContinuationField, a);
  HeapWalk w = walk(a, 32, 9);
  EXPECT_EQ(w.end, HeapWalkEnd::kDepth);
  EXPECT_EQ(w.count, 9u);
  w = walk(a, 4, 128);
  EXPECT_EQ(w.end, HeapWalkEnd::kDepth);
  EXPECT_EQ(w.count, 4u);
}

TEST(HeapTypeSet, FindsWhatWasAddedAndNothingElse) {
  HeapTypeSet set;
  for (uintptr_t i = 1; i <= 3000; ++i) ASSERT_TRUE(set.add(0x7f0000000000 + i * 0x48, HeapType{HeapKind::kBox, static_cast<uint16_t>(i)}));
  EXPECT_EQ(set.size(), 3000u);
  for (uintptr_t i = 1; i <= 3000; ++i) {
    HeapType t;
    ASSERT_TRUE(set.find(0x7f0000000000 + i * 0x48, &t));
    EXPECT_EQ(t.next_offset, i);
  }
  HeapType t;
  EXPECT_FALSE(set.find(0x7f0000000000 + 3001 * 0x48, &t));
  EXPECT_FALSE(set.find(0, &t));
}

TEST(HeapChains, EachChainSuffixIsOneStableNodeNamedByItsBox) {
  HeapTypeSet types;
  HeapChains chains(&types, [](uintptr_t mt, HeapType* type, std::string* name) {
    *type = HeapType{HeapKind::kBox, 0x20};
    *name = mt == kBoxA ? "<Tax>d__3" : mt == kBoxB ? "<Basket>d__2" : "<Loop>d__1";
    return true;
  });
  // Classified on the second sighting only.
  types.note_unknown(kBoxA);
  chains.classify_pending();
  HeapType t;
  EXPECT_FALSE(types.find(kBoxA, &t));
  for (uintptr_t mt : {kBoxA, kBoxB, kBoxC}) {
    types.note_unknown(mt);
    chains.classify_pending();
    types.note_unknown(mt);
    chains.classify_pending();
    EXPECT_TRUE(types.find(mt, &t));
  }
  const uintptr_t full[] = {kBoxA, kBoxB, kBoxC};
  const uint32_t leaf = chains.intern(full, 3, HeapWalkEnd::kDone);
  EXPECT_EQ(chains.intern(full, 3, HeapWalkEnd::kDone), leaf);
  EXPECT_EQ(chains.name_of(leaf), "<Tax>d__3");
  const uint32_t basket = chains.awaiter_of(leaf);
  EXPECT_EQ(chains.name_of(basket), "<Basket>d__2");
  EXPECT_EQ(chains.name_of(chains.awaiter_of(basket)), "<Loop>d__1");
  EXPECT_EQ(chains.awaiter_of(chains.awaiter_of(basket)), 0u);
  // The same boxes cut short go on above the cut as an unnamed task, not as the root.
  const uint32_t cut = chains.intern(full, 2, HeapWalkEnd::kUnknown);
  EXPECT_NE(cut, chains.awaiter_of(leaf));
  const uint32_t above = chains.awaiter_of(chains.awaiter_of(cut));
  EXPECT_NE(above, 0u);
  EXPECT_EQ(chains.name_of(above), "");
  EXPECT_EQ(chains.intern(full, 0, HeapWalkEnd::kDone), 0u);
}

}  // namespace
}  // namespace clrscope
