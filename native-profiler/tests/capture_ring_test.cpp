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
