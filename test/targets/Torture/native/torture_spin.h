/* The CPU work both swap libraries do: a deterministic hash of `iterations` rounds, so that
   the program's output is a checksum that a profiler cannot change without being caught. */
#ifndef TORTURE_SPIN_H
#define TORTURE_SPIN_H
#include <stdint.h>

static inline uint64_t torture_mix(uint64_t h, uint64_t i) {
  h ^= i + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}
#endif
