#include "core/task_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "core/async_tracker.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

// Task ids wrap through the negatives past 2^31 (Task.NewId): ids 0x7FFFFFFF, 0x80000000 and
// 0xFFFFFFFF are tasks like any, and ids equal in their low 18 bits are different tasks.
TEST(TaskTable, KeepsWholeIdsAcrossTheWrapAndApartInTheirLowBits) {
  TaskTable t;
  const uint32_t ids[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 5u, 5u + (1u << 18), 5u + (1u << 31), 0xFFFFFFFEu};
  uint32_t name = 1;
  for (uint32_t id : ids) ASSERT_TRUE(t.begin(id, name++));
  for (size_t i = 0; i + 1 < sizeof ids / sizeof ids[0]; ++i) ASSERT_TRUE(t.set_awaiter(ids[i], ids[i + 1]));
  name = 1;
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
    EXPECT_EQ(t.name_of(ids[i]), name++) << ids[i];
    EXPECT_EQ(t.awaiter_of(ids[i]), i + 1 < sizeof ids / sizeof ids[0] ? ids[i + 1] : 0u) << ids[i];
  }
  EXPECT_EQ(t.live(), 7u);
  EXPECT_FALSE(t.set_awaiter(6u, 1u)) << "a task that never began gets no entry";
  EXPECT_EQ(t.awaiter_of(6u), 0u);
}

// An entry lives while its task does: a million tasks begin, are awaited and end around one root
// that never ends, and the root keeps its name and awaiter; the ended ones are let go after the
// grace, so the table holds what is alive, not what came last.
TEST(TaskTable, AMillionTasksComeAndGoAroundALiveRoot) {
  TaskTable t;
  const uint32_t root = 0x7FFFFF00u;  // the counter passes 2^31 during the run
  ASSERT_TRUE(t.begin(root, 1));
  ASSERT_TRUE(t.set_awaiter(root, 42));
  uint32_t id = root + 1;
  for (uint32_t i = 0; i < 1000000; ++i, ++id) {
    if (id == 0) ++id;
    ASSERT_TRUE(t.begin(id, 2));
    ASSERT_TRUE(t.set_awaiter(id, root));
    t.end(id);
    // The sampler sweeps every tick; here a tick every 1,000 tasks.
    if (i % 1000 == 999) t.sweep(AsyncTracker::kSweepStripesPerTick);
  }
  EXPECT_EQ(t.name_of(root), 1u);
  EXPECT_EQ(t.awaiter_of(root), 42u);
  EXPECT_EQ(t.dropped(), 0u);
  // Those that ended a sweep cycle ago are gone; only the last few ticks' remain.
  EXPECT_LT(t.live(), 100000u);
  EXPECT_GT(t.removed(), 900000u);
  // An ended task stays findable for the grace (a sample taken just before its end).
  const uint32_t last = id - 1;
  EXPECT_EQ(t.awaiter_of(last), root);
  for (uint32_t k = 0; k < TaskTable::kStripes / AsyncTracker::kSweepStripesPerTick * (TaskTable::kSweepGrace + 1); ++k) {
    t.sweep(AsyncTracker::kSweepStripesPerTick);
  }
  EXPECT_EQ(t.awaiter_of(last), 0u);
  EXPECT_EQ(t.live(), 1u);  // the root
}

// At the bound a new task is not kept and is counted; no live entry is evicted for it.
TEST(TaskTable, AtTheBoundNewTasksAreCountedNotKeptAndLiveOnesStay) {
  TaskTable t;
  uint32_t id = 1;
  uint64_t kept = 0;
  while (t.dropped() == 0) kept += t.begin(id++, 3) ? 1 : 0;
  EXPECT_EQ(kept, t.live());
  // Each stripe fills to its own bound: the first refusal comes near the whole table's.
  EXPECT_GT(kept, TaskTable::kCapacity * 9 / 10);
  EXPECT_LE(kept, TaskTable::kCapacity);
  for (uint32_t i = 1; i < id - 1; ++i) ASSERT_EQ(t.name_of(i), 3u) << i;
  // Freed by their end, the room is used again.
  for (uint32_t i = 1; i < id - 1; ++i) t.end(i);
  for (uint32_t k = 0; k < TaskTable::kStripes * (TaskTable::kSweepGrace + 1); ++k) t.sweep(1);
  EXPECT_EQ(t.live(), 0u);
  EXPECT_TRUE(t.begin(id, 4));
  EXPECT_EQ(t.name_of(id), 4u);
}

// Threads begin, await and end their own tasks while the sampler reads and sweeps.
TEST(TaskTable, ThreadsAndTheSweeperTogether) {
  TaskTable t;
  ASSERT_TRUE(t.begin(1, 1));
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (uint32_t w = 0; w < 4; ++w) {
    threads.emplace_back([&t, w] {
      for (uint32_t i = 0; i < 200000; ++i) {
        const uint32_t id = 2 + w + 4 * i;
        t.begin(id, 2);
        t.set_awaiter(id, 1);
        t.end(id);
      }
    });
  }
  std::thread sweeper([&] {
    while (!stop.load()) {
      t.sweep(4);
      EXPECT_EQ(t.name_of(1), 1u);
    }
  });
  for (auto& th : threads) th.join();
  stop = true;
  sweeper.join();
  EXPECT_EQ(t.dropped(), 0u);
  EXPECT_EQ(t.name_of(1), 1u);
}

}  // namespace
}  // namespace clrscope
