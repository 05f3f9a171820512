#include "core/capture_ring.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace clrscope {
namespace {

TEST(CaptureRing, DrainsWhatWasPublishedAndFreesTheSlots) {
  CaptureRing ring(4);
  for (uint32_t round = 0; round < 3; ++round) {
    for (uint64_t k = 0; k < 4; ++k) {
      uint32_t i = 0;
      Capture* c = ring.try_acquire(&i);
      ASSERT_NE(c, nullptr);
      c->mono = round * 10 + k;
      ring.publish(i);
    }
    std::set<uint64_t> seen;
    EXPECT_EQ(ring.drain([&](const Capture& c) { seen.insert(c.mono); }), 4u);
    EXPECT_EQ(seen.size(), 4u);
  }
}

// More slots than one word of ready bits, filled out of order and drained in rounds: each
// published slot comes out exactly once, and a slot used again after a drain comes out again.
TEST(CaptureRing, EveryPublishedSlotDrainsOnceAcrossReadyWords) {
  CaptureRing ring(200);
  std::vector<uint32_t> held;
  for (uint32_t k = 0; k < 200; ++k) {
    uint32_t i = 0;
    Capture* c = ring.try_acquire(&i);
    ASSERT_NE(c, nullptr);
    c->wire_id = i + 1;
    held.push_back(i);
  }
  // Published from the end, so the words fill high bits first.
  for (size_t k = held.size(); k-- > 0;) {
    if (k % 3 != 0) ring.publish(held[k]);
  }
  std::vector<int> seen(200, 0);
  EXPECT_EQ(ring.drain([&](const Capture& c) { ++seen[c.wire_id - 1]; }), 133u);
  for (uint32_t k = 0; k < 200; ++k) EXPECT_EQ(seen[held[k]], k % 3 != 0 ? 1 : 0) << k;
  EXPECT_EQ(ring.drain([&](const Capture&) { ADD_FAILURE() << "drained twice"; }), 0u);
  for (uint32_t k = 0; k < 200; k += 3) ring.publish(held[k]);
  EXPECT_EQ(ring.drain([&](const Capture& c) { ++seen[c.wire_id - 1]; }), 67u);
  for (int n : seen) EXPECT_EQ(n, 1);
  uint32_t again = 0;
  Capture* c = ring.try_acquire(&again);
  ASSERT_NE(c, nullptr);
  c->wire_id = 7;
  ring.publish(again);
  uint32_t got = 0;
  EXPECT_EQ(ring.drain([&](const Capture& d) { got = d.wire_id; }), 1u);
  EXPECT_EQ(got, 7u);
}

TEST(CaptureRing, FullRingRefusesInsteadOfWaiting) {
  CaptureRing ring(2);
  uint32_t i = 0;
  ASSERT_NE(ring.try_acquire(&i), nullptr);
  ASSERT_NE(ring.try_acquire(&i), nullptr);
  EXPECT_EQ(ring.try_acquire(&i), nullptr);
}

TEST(CaptureRing, SlotsBeingWrittenAreNotDrained) {
  CaptureRing ring(2);
  uint32_t i = 0;
  Capture* c = ring.try_acquire(&i);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(ring.drain([](const Capture&) {}), 0u);
  ring.publish(i);
  EXPECT_EQ(ring.drain([](const Capture&) {}), 1u);
}

TEST(CaptureRing, ConcurrentProducersNeverShareASlot) {
  CaptureRing ring(64);
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> dropped{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      for (int k = 0; k < kEach; ++k) {
        uint32_t i = 0;
        Capture* c = ring.try_acquire(&i);
        if (c == nullptr) {
          dropped.fetch_add(1);
          continue;
        }
        // Writer identity in two fields; a shared slot would mix them.
        c->slot = static_cast<uint32_t>(t);
        c->wire_id = static_cast<uint32_t>(t) * 1000003u;
        c->mono = static_cast<uint64_t>(k);
        ring.publish(i);
      }
    });
  }
  uint64_t consumed = 0;
  bool torn = false;
  std::thread consumer([&] {
    while (!done.load()) {
      consumed += ring.drain([&](const Capture& c) { torn |= c.wire_id != c.slot * 1000003u; });
    }
    consumed += ring.drain([&](const Capture& c) { torn |= c.wire_id != c.slot * 1000003u; });
  });
  for (auto& p : producers) p.join();
  done.store(true);
  consumer.join();
  EXPECT_FALSE(torn);
  EXPECT_EQ(consumed + dropped.load(), static_cast<uint64_t>(kThreads) * kEach);
  EXPECT_GT(consumed, 0u);
}

}  // namespace
}  // namespace clrscope
