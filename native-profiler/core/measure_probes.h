#pragma once
// What instrumented methods call (core/il_instrument.h): three probes that never throw, never
// allocate managed memory and take no lock. Each thread writes its own figures (a "slab" of
// per-method cells), so a probe is a handful of plain stores to memory no other thread
// writes; the sampler thread reads every slab to add them up (core/measure_figures.h).
//
// A slab is made on a thread's first probe call and retired when the thread exits; the reader
// folds a retired slab's figures into its own totals and frees it.
#include <atomic>
#include <cstdint>

#include "core/measure_histogram.h"

namespace clrscope {
namespace measure {

constexpr uint32_t kMaxMethods = 4096;  // method indices handed to probes
constexpr uint32_t kMaxSlabs = 4096;    // threads with figures at one time

// One thread's figures for one method. Written by that thread only; read by anyone.
struct Cell {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> exceptions{0};
  std::atomic<uint64_t> total_ns{0};
  std::atomic<uint64_t> max_ns{0};
  // The latest call's duration + 1 (0: none yet), counted in `buckets` only at the next call.
  // Bucketing the call before, whose duration is long known, keeps the histogram's store off
  // the path that waits for the clock: a store to an address that depends on the time just
  // read holds up the next call's loads until the read completes (measured: 36 ns a call
  // against 25 ns, scripts/bench/measure-cost.mjs). Readers count it as one more call in its
  // bucket.
  std::atomic<uint64_t> pending{0};
  // The range of buckets ever touched, so a reader need not visit all of them.
  std::atomic<uint32_t> lo{kBuckets};
  std::atomic<uint32_t> hi{0};
  std::atomic<uint64_t> buckets[kBuckets];
};

struct Slab {
  uint32_t os_tid = 0;
  std::atomic<bool> retired{false};
  std::atomic<Cell*> cells[kMaxMethods];
  // Cells come from chunks owned by the slab, freed with it.
  struct Chunk {
    Chunk* next;
    uint32_t used;
  };
  Chunk* chunks = nullptr;
};

// Every live or retired-but-not-yet-folded slab, for the reader.
struct SlabTable {
  std::atomic<Slab*> slots[kMaxSlabs];
  std::atomic<uint64_t> dropped_calls{0};  // calls not recorded: no slab or cell could be made
};
SlabTable& slab_table();

// Frees a retired slab the reader has folded, and frees its slot. Reader only.
void free_slab(uint32_t slot);

}  // namespace measure
}  // namespace clrscope

// Exported by name only for the P/Invoke variant (ProbeMode in shim/measure_metadata.h); the
// default calli reaches them by address.
#if defined(_WIN32)
#define CLRSCOPE_PROBE_EXPORT
#else
#define CLRSCOPE_PROBE_EXPORT __attribute__((visibility("default")))
#endif

extern "C" {
// The probes. enter() returns the start time in probe-clock ticks; leave() and raise() take the
// method's index and that start time. raise() is called when an exception leaves the method.
CLRSCOPE_PROBE_EXPORT int64_t clrscope_probe_enter();
CLRSCOPE_PROBE_EXPORT void clrscope_probe_leave(int32_t method, int64_t start);
CLRSCOPE_PROBE_EXPORT void clrscope_probe_raise(int32_t method, int64_t start);
}
