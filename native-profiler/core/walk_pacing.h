#pragma once
// Pacing of dear walks. A thread's CPU timer counts the time its own capture handler takes, so
// a walk that costs more than the interval (a stack 100,000 frames deep takes milliseconds)
// has the timer fire again before the thread has run at all: at --interval 1 such a thread did
// little but walk its stack, and a program of 1.5 s took 166. After a walk dearer than
// kCheapWalkNs the thread's next walks wait until it has run kRunPerWalk times that cost, on its
// CPU clock (its CPU ticks) and on the monotonic clock (the sampler's wall requests), so the
// handler takes about a tenth of its time at most, whatever the interval. A tick skipped so
// loses nothing: the thread's CPU mark stays, and its next capture carries that CPU; the next
// wall request carries the wall time since the last one.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/thread_registry.h"

namespace clrscope {

constexpr uint64_t kCheapWalkNs = 50000;
constexpr uint64_t kRunPerWalk = 10;
constexpr uint64_t kLongestPauseNs = 1000000000;

// Handler side: a CPU tick at the thread's CPU clock `cpu_now_ns` falls in a pause.
inline bool walk_paused(const ThreadSlot& s, uint64_t cpu_now_ns) {
  return cpu_now_ns < s.walk_after_cpu_ns.load(std::memory_order_relaxed);
}

// Handler side, on the thread itself, after a walk that took `cost_ns`: pauses its next walks
// when it was dear. `cpu_now_ns` and `now_mono` are its clocks after the walk.
inline void pace_walk(ThreadSlot& s, uint64_t cost_ns, uint64_t cpu_now_ns, uint64_t now_mono) {
  if (cost_ns <= kCheapWalkNs) return;
  const uint64_t pause = std::min(cost_ns * kRunPerWalk, kLongestPauseNs);
  s.walk_after_cpu_ns.store(cpu_now_ns + pause, std::memory_order_relaxed);
  s.walk_after_mono.store(now_mono + pause, std::memory_order_relaxed);
}

}  // namespace clrscope
