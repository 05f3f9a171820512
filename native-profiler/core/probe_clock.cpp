#include "core/probe_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/platform.h"

namespace clrscope {
namespace measure {

ProbeClock g_probe_clock;

uint64_t monotonic_ticks() { return platform::mono_now_ns(); }

namespace {

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d) == 0) return false;
  return (d & (1u << 8)) != 0;  // CPUID.80000007H:EDX[8], "Invariant TSC"
#else
  return false;
#endif
}

// One (monotonic, TSC) pair read as close together as the two clocks allow: the TSC is read
// between two monotonic readings and paired with their midpoint.
void read_pair(uint64_t* mono, uint64_t* tsc) {
#if defined(__x86_64__)
  const uint64_t before = platform::mono_now_ns();
  *tsc = __rdtsc();
  const uint64_t after = platform::mono_now_ns();
  *mono = before + (after - before) / 2;
#else
  *mono = platform::mono_now_ns();
  *tsc = *mono;
#endif
}

}  // namespace

void calibrate_probe_clock() {
  ProbeClock clock;
  if (invariant_tsc()) {
    uint64_t m0 = 0, t0 = 0, m1 = 0, t1 = 0;
    read_pair(&m0, &t0);
    platform::sleep_until_mono_ns(m0 + 20000000ull);
    read_pair(&m1, &t1);
    if (t1 > t0 && m1 > m0) {
      clock.tsc = true;
      clock.ns_per_tick_q32 = ((m1 - m0) << 32) / (t1 - t0);
    }
  }
  g_probe_clock = clock;
}

}  // namespace measure
}  // namespace clrscope
