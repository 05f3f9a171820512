#include "core/exception_identity.h"

#include <gtest/gtest.h>

#include <map>

namespace clrscope {
namespace {

// Handles over a pretend heap: a GC moves or collects objects by rewriting where handles point.
struct Heap {
  std::map<uint64_t, uint64_t> handles;  // handle -> object address (0: collected)
  uint64_t next = 1;
  int destroyed = 0;
  bool refuse = false;

  static uint64_t create(void* c, uint64_t object) {
    auto* h = static_cast<Heap*>(c);
    if (h->refuse) return 0;
    h->handles[h->next] = object;
    return h->next++;
  }
  static uint64_t object(void* c, uint64_t handle) { return static_cast<Heap*>(c)->handles.at(handle); }
  static void destroy(void* c, uint64_t handle) {
    auto* h = static_cast<Heap*>(c);
    h->handles.erase(handle);
    ++h->destroyed;
  }
  void move(uint64_t from, uint64_t to) {
    for (auto& [handle, at] : handles) {
      if (at == from) at = to;
    }
  }
  HandleOps ops() {
    HandleOps o;
    o.context = this;
    o.create = create;
    o.object = object;
    o.destroy = destroy;
    return o;
  }
};

TEST(ExceptionIdentity, ARethrowOfTheSameObjectKeepsItsIdentity) {
  Heap heap;
  ExceptionIdentity ids(heap.ops());
  const auto first = ids.on_thrown(0x1000);
  EXPECT_EQ(first.id, 1u);
  EXPECT_FALSE(first.rethrow);
  const auto other = ids.on_thrown(0x2000);
  EXPECT_EQ(other.id, 2u);
  const auto again = ids.on_thrown(0x1000);
  EXPECT_EQ(again.id, 1u);
  EXPECT_TRUE(again.rethrow);
  EXPECT_EQ(ExceptionIdentity::wire_value(again), 3u);
  EXPECT_EQ(ExceptionIdentity::wire_value(other), 4u);
  EXPECT_EQ(ids.counts().exceptions, 2u);
  EXPECT_EQ(ids.counts().rethrows, 1u);
}

TEST(ExceptionIdentity, AnObjectMovedByAGcIsFoundAtItsNewAddress) {
  Heap heap;
  ExceptionIdentity ids(heap.ops());
  ids.on_thrown(0x1000);
  heap.move(0x1000, 0x9000);
  ids.after_gc();
  const auto moved = ids.on_thrown(0x9000);
  EXPECT_EQ(moved.id, 1u);
  EXPECT_TRUE(moved.rethrow);
  // The old address is free for a new object, which is a new exception.
  const auto fresh = ids.on_thrown(0x1000);
  EXPECT_EQ(fresh.id, 2u);
  EXPECT_FALSE(fresh.rethrow);
}

TEST(ExceptionIdentity, ACollectedObjectsSlotAndHandleAreGivenBack) {
  Heap heap;
  ExceptionIdentity ids(heap.ops());
  ids.on_thrown(0x1000);
  heap.move(0x1000, 0);
  ids.after_gc();
  EXPECT_EQ(heap.destroyed, 1);
  EXPECT_TRUE(heap.handles.empty());
  EXPECT_FALSE(ids.on_thrown(0x1000).rethrow);
}

TEST(ExceptionIdentity, BoundedTheOldestGivesWay) {
  Heap heap;
  ExceptionIdentity ids(heap.ops());
  for (uint64_t i = 0; i < ExceptionIdentity::kCapacity + 1; ++i) ids.on_thrown(0x1000 + 8 * i);
  EXPECT_EQ(heap.handles.size(), ExceptionIdentity::kCapacity);
  EXPECT_EQ(ids.counts().evicted, 1u);
  EXPECT_FALSE(ids.on_thrown(0x1000).rethrow) << "the oldest was given up";
  EXPECT_TRUE(ids.on_thrown(0x1000 + 8 * 5).rethrow);
  ids.release_all();
  EXPECT_TRUE(heap.handles.empty());
}

TEST(ExceptionIdentity, UntrackedThrowsGetNoIdentityButRethrowsOfTrackedOnesAreFound) {
  Heap heap;
  ExceptionIdentity ids(heap.ops());
  EXPECT_EQ(ids.on_thrown(0x1000, false).id, 0u);
  EXPECT_TRUE(heap.handles.empty()) << "no handle for an exception sent without a stack";
  EXPECT_EQ(ids.on_thrown(0x2000, true).id, 1u);
  const auto again = ids.on_thrown(0x2000, false);
  EXPECT_EQ(again.id, 1u);
  EXPECT_TRUE(again.rethrow);
  EXPECT_FALSE(ids.on_thrown(0x1000, true).rethrow) << "an untracked object is new when first tracked";
}

TEST(ExceptionIdentity, WithoutAHandleEachThrowIsItsOwnException) {
  Heap heap;
  heap.refuse = true;
  ExceptionIdentity ids(heap.ops());
  EXPECT_EQ(ids.on_thrown(0x1000).id, 1u);
  const auto again = ids.on_thrown(0x1000);
  EXPECT_EQ(again.id, 2u);
  EXPECT_FALSE(again.rethrow);
  EXPECT_EQ(ids.counts().refused, 2u);
}

}  // namespace
}  // namespace clrscope
