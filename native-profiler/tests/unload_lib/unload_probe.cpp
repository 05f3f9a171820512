// A library the module-table tests load and unload: its functions have unwind tables and no
// frame pointers, so walking through them needs the tables.
#include <cstdint>

extern "C" __attribute__((visibility("default"), noinline)) uint64_t clrscope_unload_probe(uint64_t n) {
  volatile uint64_t acc = n;
  for (uint64_t i = 0; i < n; ++i) acc = acc * 6364136223846793005ull + i;
  return acc;
}
