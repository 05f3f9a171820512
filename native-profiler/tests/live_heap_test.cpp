#include "core/live_heap.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

namespace clrscope {
namespace {

// A handle table of its own: objects are numbers, a handle names one until it is destroyed,
// "collecting" an object makes its handles answer 0, "moving" one gives it another type.
struct FakeHandles {
  std::map<uint64_t, uint64_t> handles;  // handle -> object
  std::map<uint64_t, uint64_t> types;    // object -> type
  std::vector<uint64_t> collected;
  uint64_t next = 1;
  bool refuse = false;

  static uint64_t create(void* c, uint64_t object) {
    auto* f = static_cast<FakeHandles*>(c);
    if (f->refuse) return 0;
    f->handles[f->next] = object;
    return f->next++;
  }
  static int check(void* c, uint64_t handle, uint64_t type) {
    auto* f = static_cast<FakeHandles*>(c);
    const uint64_t object = f->handles.at(handle);
    for (uint64_t gone : f->collected) {
      if (gone == object) return kHandleCollected;
    }
    return f->types[object] == type ? kHandleAlive : kHandleOtherType;
  }
  static void destroy(void* c, uint64_t handle) { static_cast<FakeHandles*>(c)->handles.erase(handle); }

  HandleOps ops() {
    HandleOps o;
    o.context = this;
    o.create = create;
    o.check = check;
    o.destroy = destroy;
    return o;
  }
};

TEST(LiveHeap, SurvivorsAreThoseAliveAtTheLastSweep) {
  FakeHandles f;
  LiveHeap live(f.ops(), 4);
  f.types = {{100, 7}, {200, 7}, {300, 8}};
  const uint64_t a = live.track(100, 7);
  const uint64_t b = live.track(200, 7);
  const uint64_t c = live.track(300, 8);
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, 0u);
  ASSERT_NE(c, 0u);
  // Before any GC nothing is known to have survived one.
  EXPECT_FALSE(live.survivor(a));
  f.collected = {200};
  ASSERT_TRUE(live.sweep(1000));
  EXPECT_TRUE(live.survivor(a));
  EXPECT_FALSE(live.survivor(b));
  EXPECT_TRUE(live.survivor(c));
  EXPECT_EQ(f.handles.size(), 2u);  // the collected object's handle was destroyed
  const LiveHeapCounts n = live.counts();
  EXPECT_EQ(n.tracked, 3u);
  EXPECT_EQ(n.collected, 1u);
  EXPECT_EQ(n.sweeps, 1u);
  EXPECT_EQ(n.last_sweep_mono, 1000u);
}

TEST(LiveHeap, AFullTableCountsWhatItDropsAndAFreedSlotGetsANewToken) {
  FakeHandles f;
  LiveHeap live(f.ops(), 2);
  f.types = {{1, 5}, {2, 5}, {3, 5}};
  const uint64_t a = live.track(1, 5);
  live.track(2, 5);
  EXPECT_EQ(live.track(3, 5), 0u);
  EXPECT_EQ(live.counts().dropped, 1u);
  f.collected = {1};
  live.sweep(1);
  const uint64_t again = live.track(3, 5);
  ASSERT_NE(again, 0u);
  EXPECT_EQ(LiveHeap::slot_of(again), LiveHeap::slot_of(a));
  EXPECT_NE(again, a);  // the old token no longer names the slot
  f.collected = {};
  live.sweep(2);
  EXPECT_FALSE(live.survivor(a));
  EXPECT_TRUE(live.survivor(again));
}

TEST(LiveHeap, RefusedHandlesAndOtherTypesAreNotKept) {
  FakeHandles f;
  LiveHeap live(f.ops(), 8);
  f.refuse = true;
  EXPECT_EQ(live.track(1, 5), 0u);
  EXPECT_EQ(live.counts().refused, 1u);
  f.refuse = false;
  f.types = {{2, 6}};  // the address held an object of another type
  const uint64_t t = live.track(2, 5);
  live.sweep(1);
  EXPECT_FALSE(live.survivor(t));
  EXPECT_EQ(live.counts().other_type, 1u);
  EXPECT_TRUE(f.handles.empty());
}

TEST(LiveHeap, UntrackAndReleaseAllGiveHandlesBack) {
  FakeHandles f;
  LiveHeap live(f.ops(), 8);
  f.types = {{1, 5}, {2, 5}};
  const uint64_t a = live.track(1, 5);
  live.track(2, 5);
  live.untrack(a);
  EXPECT_EQ(f.handles.size(), 1u);
  EXPECT_EQ(live.token_at(LiveHeap::slot_of(a)), 0u);
  live.release_all();
  EXPECT_TRUE(f.handles.empty());
  EXPECT_NE(live.track(1, 5), 0u);
}

TEST(LiveHeap, ThreadsTrackingAtOnceNeverShareASlot) {
  struct Counter {
    std::atomic<uint64_t> next{1};
    static uint64_t create(void* c, uint64_t) { return static_cast<Counter*>(c)->next.fetch_add(1); }
    static int check(void*, uint64_t, uint64_t) { return kHandleAlive; }
    static void destroy(void*, uint64_t) {}
  } counter;
  HandleOps ops;
  ops.context = &counter;
  ops.create = Counter::create;
  ops.check = Counter::check;
  ops.destroy = Counter::destroy;
  LiveHeap live(ops, 1000);
  std::vector<std::vector<uint64_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        const uint64_t token = live.track(1 + i, 0);
        if (token != 0) got[t].push_back(token);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<bool> seen(1000, false);
  size_t tracked = 0;
  for (const auto& tokens : got) {
    for (uint64_t token : tokens) {
      EXPECT_FALSE(seen[LiveHeap::slot_of(token)]);
      seen[LiveHeap::slot_of(token)] = true;
      ++tracked;
    }
  }
  EXPECT_EQ(tracked, 1000u);
  EXPECT_EQ(live.counts().dropped, 600u);
}

// A GC's sweep may end while allocating threads track (a background GC's end does): every
// object tracked is either a survivor, collected, or still waiting for its first sweep, and no
// handle is destroyed twice.
TEST(LiveHeap, SweepsWhileThreadsTrackKeepEveryHandleAccountedFor) {
  struct Odd {
    std::atomic<uint64_t> next{1};
    std::atomic<uint64_t> destroyed{0};
    static uint64_t create(void* c, uint64_t) { return static_cast<Odd*>(c)->next.fetch_add(1); }
    // Odd handles' objects die, even ones live on.
    static int check(void*, uint64_t handle, uint64_t) { return (handle & 1) != 0 ? kHandleCollected : kHandleAlive; }
    static void destroy(void* c, uint64_t) { static_cast<Odd*>(c)->destroyed.fetch_add(1); }
  } odd;
  HandleOps ops;
  ops.context = &odd;
  ops.create = Odd::create;
  ops.check = Odd::check;
  ops.destroy = Odd::destroy;
  LiveHeap live(ops, 512);
  std::atomic<bool> done{false};
  std::thread sweeper([&] {
    uint64_t mono = 0;
    while (!done.load()) live.sweep(++mono);
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        const uint64_t token = live.track(1 + i, 0);
        if (token != 0 && i % 7 == 0) live.untrack(token);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done.store(true);
  sweeper.join();
  live.sweep(0);
  const LiveHeapCounts c = live.counts();
  uint64_t held = 0;
  for (uint32_t slot = 0; slot < live.capacity(); ++slot) held += live.token_at(slot) != 0 ? 1 : 0;
  EXPECT_EQ(c.tracked, odd.next.load() - 1);
  EXPECT_EQ(c.tracked, odd.destroyed.load() + held);
  EXPECT_EQ(c.collected + (c.tracked - c.collected - held), odd.destroyed.load());
  for (uint32_t slot = 0; slot < live.capacity(); ++slot) {
    if (live.token_at(slot) != 0) {
      EXPECT_TRUE(live.survivor(live.token_at(slot)));
    }
  }
}

}  // namespace
}  // namespace clrscope
