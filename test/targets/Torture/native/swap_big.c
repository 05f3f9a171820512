/* libtorture_big.so: the library that is loaded, used and unloaded first. It is large on
   purpose: its executable segment is padded so that the small library, loaded into the hole
   it leaves, has its code inside the big one's old code range, and its read-only data is
   padded so that the big one's unwind table header (.eh_frame_hdr, after .rodata) lies beyond
   the small library's end, in the unmapped gap. A profiler that walks the small library's
   frames with the big one's stale unwind table then reads unmapped memory. */
#include <stdint.h>

#include "torture_spin.h"

/* 256 KiB of code-segment padding (int3), before the hot function. */
__asm__(".pushsection .text\n.globl torture_big_pad\n.type torture_big_pad,@function\n"
        "torture_big_pad:\n.skip 262144, 0xcc\n.size torture_big_pad, 262144\n.popsection\n");

/* 2 MiB of read-only data; non-zero first byte so it is not placed in .bss. */
__attribute__((used)) static const unsigned char big_rodata[2u << 20] = {1};

__attribute__((noinline)) uint64_t torture_big_spin(uint64_t iterations) {
  uint64_t h = 0x42;
  for (uint64_t i = 0; i < iterations; ++i) h = torture_mix(h, i);
  /* Touch the padding so it stays part of the image whatever the optimizer thinks. */
  return h ^ big_rodata[iterations & 1];
}

/* The first and last address of this object's mapped image. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));
void torture_big_range(uintptr_t* lo, uintptr_t* hi) {
  *lo = (uintptr_t)__ehdr_start;
  *hi = (uintptr_t)_end;
}
