#pragma once
// Counts the runtime's callbacks feed (exceptions thrown, methods jitted, classes loaded, ...).
// Incremented on whichever thread the runtime calls us on, with relaxed atomics; read as a set
// by the sampler thread when it publishes the counters block. Process-private: only the
// published block is shared.
#include <atomic>
#include <cstdint>

#include "core/event_counters.h"

namespace clrscope {

struct RuntimeCounters {
  // GC. Collections per generation count as GC.CollectionCount does: a gen-N GC counts for
  // every generation up to N.
  std::atomic<uint64_t> collections[3]{};
  std::atomic<uint64_t> induced{};
  // Sizes after the latest GC (bytes): gen0, gen1, gen2, large object heap, pinned object heap.
  std::atomic<uint64_t> generation_size[5]{};
  std::atomic<uint64_t> generation_reserved[5]{};
  std::atomic<uint64_t> paused_ns{};      // all runtime suspensions, from suspend to resume
  std::atomic<uint64_t> gc_paused_ns{};   // those that ran a GC
  std::atomic<uint64_t> last_gc_pause_ns{};
  // Exceptions.
  std::atomic<uint64_t> exceptions_thrown{};
  std::atomic<uint64_t> filters_executed{};
  std::atomic<uint64_t> finallys_executed{};
  // JIT.
  std::atomic<uint64_t> methods_jitted{};
  std::atomic<uint64_t> il_bytes_jitted{};
  std::atomic<uint64_t> jit_failures{};
  std::atomic<uint64_t> jit_ns{};
  // Loading.
  std::atomic<uint64_t> classes_loaded{};
  std::atomic<uint64_t> class_load_failures{};
  std::atomic<uint64_t> assemblies_loaded{};
  std::atomic<uint64_t> assemblies_unloaded{};
  std::atomic<uint64_t> appdomains_loaded{};
  std::atomic<uint64_t> appdomains_unloaded{};
  std::atomic<uint64_t> modules_loaded{};
  // From the runtime's GCHeapStats event (after each GC): bytes promoted out of gen 0 and gen 1,
  // bytes kept alive for finalization, pinned objects, GC handles and sync blocks in use.
  std::atomic<uint64_t> promoted[2]{};
  std::atomic<uint64_t> finalization_promoted{};
  std::atomic<uint64_t> finalization_promoted_count{};
  std::atomic<uint64_t> pinned_objects{};
  std::atomic<uint64_t> gc_handles{};
  std::atomic<uint64_t> sync_blocks{};
  std::atomic<uint64_t> heap_stats{};  // GCHeapStats events seen: the fields above hold values
  // Locks and threads.
  std::atomic<uint64_t> contentions{};
  // System.Runtime's EventCounters (core/event_counters.h).
  RuntimeGauges gauges;

  // Release, with acquire reads in the publisher: counters bumped in a known order are read back
  // consistently (counters_block.cpp) on any CPU, not just x86.
  void add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_release); }
};

}  // namespace clrscope
