/* libtorture_small.so: loaded into the hole libtorture_big.so left (see swap_big.c). */
#include <stdint.h>

#include "torture_spin.h"

__attribute__((noinline)) uint64_t torture_small_spin(uint64_t iterations) {
  uint64_t h = 0x17;
  for (uint64_t i = 0; i < iterations; ++i) h = torture_mix(h, i);
  return h;
}

extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));
void torture_small_range(uintptr_t* lo, uintptr_t* hi) {
  *lo = (uintptr_t)__ehdr_start;
  *hi = (uintptr_t)_end;
}
