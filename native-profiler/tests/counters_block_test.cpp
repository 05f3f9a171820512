#include "core/counters_block.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/platform.h"

namespace clrscope {
namespace {

TEST(CountersBlock, HeaderLooksLikeTheRuntimesOwn) {
  clr::IPCControlBlock block;
  CountersBlock::init_header(&block, 4242, 10, 12);
  EXPECT_EQ(block.m_Header.m_Counter, 0);
  EXPECT_EQ(block.m_Header.m_RuntimeId, 4242u);
  EXPECT_EQ(block.m_Header.m_Version, clr::kIpcBlockVersion);
  EXPECT_EQ(block.m_Header.m_Flags, clr::kIpcFlagUsesFlags | clr::kIpcFlagInitialized);
  EXPECT_EQ(block.m_Header.m_blockSize, clr::kIpcBlockUsedSize);
  EXPECT_EQ(block.m_Header.m_numEntries, 1u);
  EXPECT_EQ(block.m_Header.m_table[0].m_Offset, 40u);
  EXPECT_EQ(block.m_Header.m_table[0].m_Size, sizeof(clr::PerfCounterIPCControlBlock));
  EXPECT_EQ(block.m_perf.m_cBytes, sizeof(clr::PerfCounterIPCControlBlock));
  EXPECT_EQ(block.m_perf.m_wAttrs, clr::kPerfAttrOn);
}

TEST(CountersBlock, FillsTheFieldsFromTheCounters) {
  RuntimeCounters c;
  c.collections[0] = 13;
  c.collections[1] = 6;
  c.collections[2] = 2;
  c.induced = 10;
  c.promoted[1] = 176;
  c.generation_size[2] = 4096;
  c.generation_size[3] = 8192;
  c.gc_handles = 60;
  c.pinned_objects = 3;
  c.exceptions_thrown = 100;
  c.filters_executed = 99;
  c.finallys_executed = 98;
  c.methods_jitted = 150;
  c.il_bytes_jitted = 15000;
  c.contentions = 55;
  c.classes_loaded = 1400;
  c.assemblies_loaded = 17;
  c.appdomains_loaded = 1;
  clr::PerfCounterIPCControlBlock perf;
  std::memset(&perf, 0, sizeof perf);
  CountersBlock::fill(&perf, c, 4242, 5, 25, 11, CountersBlock::Window{250000000, 5000000, 1000000000});
  EXPECT_EQ(perf.m_GC.cGenCollections[0], 13u);
  EXPECT_EQ(perf.m_GC.cGenCollections[2], 2u);
  EXPECT_EQ(perf.m_GC.cInducedGCs, 10u);
  EXPECT_EQ(perf.m_GC.cbPromotedMem[1], 176u);
  EXPECT_EQ(perf.m_GC.cGenHeapSize[2], 4096u);
  EXPECT_EQ(perf.m_GC.cLrgObjSize, 8192u);
  EXPECT_EQ(perf.m_GC.cHandles, 60u);
  EXPECT_EQ(perf.m_GC.cPinnedObj, 3u);
  EXPECT_EQ(perf.m_GC.cProcessID, 4242u);
  // 250 ms paused in the last second: 25%.
  EXPECT_EQ(perf.m_GC.timeInGC, 250000u);
  EXPECT_EQ(perf.m_GC.timeInGCBase, 1000000u);
  EXPECT_EQ(perf.m_Excep.cThrown.Total, 100u);
  EXPECT_EQ(perf.m_Excep.cFiltersExecuted, 99u);
  EXPECT_EQ(perf.m_Excep.cFinallysExecuted, 98u);
  EXPECT_EQ(perf.m_Jit.cMethodsJitted, 150u);
  EXPECT_EQ(perf.m_Jit.cbILJitted.Total, 15000u);
  EXPECT_EQ(perf.m_LocksAndThreads.cContention.Total, 55u);
  EXPECT_EQ(perf.m_LocksAndThreads.cCurrentThreadsLogical, 5u);
  EXPECT_EQ(perf.m_LocksAndThreads.cCurrentThreadsPhysical, 11u);
  EXPECT_EQ(perf.m_LocksAndThreads.cRecognizedThreads.Total, 25u);
  EXPECT_EQ(perf.m_Loading.cClassesLoaded.Total, 1400u);
  EXPECT_EQ(perf.m_Loading.cAssemblies.Cur, 17u);
  EXPECT_EQ(perf.m_Loading.cAppDomains.Cur, 1u);
}

// The sequence lock from the reader's side, as structs/ipcblock/consistent-read.ts does it: a
// copy taken between two equal even counter readings. The writer bumps every counter to the
// same value in each publish, so a torn copy would show two different values.
TEST(CountersBlock, ReadersHonouringTheSequenceLockNeverSeeATornBlock) {
  RuntimeCounters c;
  ThreadRegistry registry;
  CountersBlock block(&c, &registry);
  ASSERT_TRUE(block.open(platform::process_id() + 1000000u, 10, 0)) << "shared memory";
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t k = 1; !stop.load(); ++k) {
      for (auto& g : c.collections) g.store(k, std::memory_order_relaxed);
      c.exceptions_thrown.store(k, std::memory_order_relaxed);
      c.methods_jitted.store(k, std::memory_order_relaxed);
      c.contentions.store(k, std::memory_order_relaxed);
      block.publish(platform::mono_now_ns());
      // Bursts and calm: torn copies are tried during a burst, and the calm lets even a slow
      // (sanitized) reader finish whole copies, so the test stays meaningful at any speed.
      if ((k & 255) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  const auto* live = reinterpret_cast<const volatile uint8_t*>(block.block());
  uint8_t copy[sizeof(clr::IPCControlBlock)];
  uint64_t consistent = 0, retries = 0, last = 0;
  // Until enough of both outcomes were seen, or a deadline a sanitized build meets too.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((consistent < 2000 || retries < 100) && std::chrono::steady_clock::now() < deadline) {
    const clr::LONG before = __atomic_load_n(reinterpret_cast<const volatile clr::LONG*>(live), __ATOMIC_ACQUIRE);
    for (size_t b = 0; b < sizeof copy; ++b) copy[b] = live[b];
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const clr::LONG after = __atomic_load_n(reinterpret_cast<const volatile clr::LONG*>(live), __ATOMIC_ACQUIRE);
    if ((before & 1) != 0 || before != after) {
      ++retries;
      continue;
    }
    const auto* snap = reinterpret_cast<const clr::IPCControlBlock*>(copy);
    const uint64_t k = snap->m_perf.m_GC.cGenCollections[0];
    ASSERT_EQ(snap->m_perf.m_GC.cGenCollections[1], k);
    ASSERT_EQ(snap->m_perf.m_GC.cGenCollections[2], k);
    ASSERT_EQ(snap->m_perf.m_Excep.cThrown.Total, k);
    ASSERT_EQ(snap->m_perf.m_Jit.cMethodsJitted, k);
    ASSERT_EQ(snap->m_perf.m_LocksAndThreads.cContention.Total, k);
    ASSERT_GE(k, last) << "snapshots go forward";
    last = k;
    ++consistent;
  }
  stop = true;
  writer.join();
  block.close(true);
  EXPECT_GT(consistent, 1000u);
  EXPECT_GT(retries, 0u) << "the reader never met a publish in progress: nothing was tried";
  EXPECT_GT(last, 0u);
}

// % time in GC over the last second: a pause longer than a second, counted by the runtime in one
// piece when it ends, counts only for its part inside the window (it read 300% before).
TEST(CountersBlock, LongGcPausesAreSplitAcrossWindowsNeverAbove100Percent) {
  RuntimeCounters c;
  ThreadRegistry registry;
  CountersBlock block(&c, &registry);
  ASSERT_TRUE(block.open(platform::process_id() + 2000000u, 10, 0)) << "shared memory";
  const uint64_t ms = 1000000;
  const auto& gc = block.block()->m_perf.m_GC;
  const auto pct = [&] { return gc.timeInGCBase == 0 ? 0.0 : 100.0 * gc.timeInGC / gc.timeInGCBase; };
  uint64_t t = 10000 * ms;
  // Ticks every 10 ms; a 3 s pause ends at t0 + 5 s, counted at once.
  for (int i = 0; i <= 500; ++i, t += 10 * ms) {
    if (i == 500) c.gc_paused_ns.fetch_add(3000 * ms);
    block.publish(t);
    EXPECT_LE(pct(), 100.0) << "tick " << i;
  }
  EXPECT_NEAR(pct(), 100.0, 0.01) << "the last second was all pause";
  EXPECT_EQ(gc.timeInGCBase, 1000000u);
  // Half a second later, half of the window is the pause's end.
  for (int i = 0; i < 50; ++i, t += 10 * ms) block.publish(t);
  EXPECT_NEAR(pct(), 51.0, 1.5);
  // A second on, the pause is out of the window.
  for (int i = 0; i < 60; ++i, t += 10 * ms) block.publish(t);
  EXPECT_EQ(gc.timeInGC, 0u);
  // Short pauses are counted whole: 4 x 50 ms in a second is 20%.
  for (int i = 0; i < 100; ++i, t += 10 * ms) {
    if (i % 25 == 10) c.gc_paused_ns.fetch_add(50 * ms);
    block.publish(t);
  }
  EXPECT_NEAR(pct(), 20.0, 0.5);
  // With the slowest sampling (one tick a second) a long pause still reads 100% at most.
  c.gc_paused_ns.fetch_add(2500 * ms);
  t += 1000 * ms;
  block.publish(t);
  EXPECT_LE(pct(), 100.0);
  block.close(true);
}

}  // namespace
}  // namespace clrscope
