#pragma once
// The clock the measuring probes read twice per call. On x86-64 with an invariant TSC (same
// rate on every core, in every power state) that is the time-stamp counter itself, a few
// nanoseconds a read, converted to nanoseconds with a factor calibrated once against the
// monotonic clock; elsewhere the monotonic clock (a vDSO call, about 20 ns).
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace clrscope {
namespace measure {

struct ProbeClock {
  bool tsc = false;
  // Nanoseconds per tick in 32.32 fixed point (1 << 32 for a clock that counts nanoseconds).
  uint64_t ns_per_tick_q32 = 1ull << 32;
};

// The process's probe clock; calibrate() must have run before a probe can be reached.
extern ProbeClock g_probe_clock;

// Chooses the clock and calibrates it (spends about 20 ms, once). Normal context only.
void calibrate_probe_clock();

uint64_t monotonic_ticks();

inline uint64_t probe_ticks() {
#if defined(__x86_64__)
  if (__builtin_expect(g_probe_clock.tsc, 1)) return __rdtsc();
#endif
  return monotonic_ticks();
}

__extension__ typedef unsigned __int128 uint128_t;

inline uint64_t ticks_to_ns(uint64_t ticks) {
  return static_cast<uint64_t>((static_cast<uint128_t>(ticks) * g_probe_clock.ns_per_tick_q32) >> 32);
}

}  // namespace measure
}  // namespace clrscope
