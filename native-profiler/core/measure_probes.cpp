#include "core/measure_probes.h"

#include <new>

#include "core/page_memory.h"
#include "core/platform.h"
#include "core/probe_clock.h"
#include "core/thread_exit.h"

namespace clrscope {
namespace measure {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
constexpr size_t kCellBytes = (sizeof(Cell) + 63) & ~static_cast<size_t>(63);
constexpr size_t kChunkHeader = 64;
static_assert(kChunkHeader >= sizeof(Slab::Chunk) && kChunkHeader + kCellBytes <= kChunkBytes, "a chunk holds a cell");

// A thread that could not get a slab (every slot taken, no memory) is not asked again: its
// calls are counted as dropped.
Slab* const kNoSlab = reinterpret_cast<Slab*>(static_cast<uintptr_t>(1));

SlabTable g_table;

// Initial-exec TLS on Linux: the probe reads it straight from the thread pointer, where the
// default model for a shared library would call __tls_get_addr (one pointer of the surplus
// static TLS glibc keeps for libraries loaded later).
#if defined(__linux__)
__attribute__((tls_model("initial-exec")))
#endif
thread_local Slab* t_slab = nullptr;

void retire(void* value) {
  Slab* s = static_cast<Slab*>(value);
  // Should the runtime run a probe on this thread after this, it gets a new slab.
  if (t_slab == s) t_slab = nullptr;
  s->retired.store(true, std::memory_order_release);
}

Slab* attach_slab() {
  void* memory = platform::page_alloc(sizeof(Slab));
  if (memory == nullptr) {
    t_slab = kNoSlab;
    return kNoSlab;
  }
  Slab* s = new (memory) Slab();
  s->os_tid = platform::current_tid();
  for (uint32_t i = 0; i < kMaxSlabs; ++i) {
    Slab* expected = nullptr;
    if (g_table.slots[i].load(std::memory_order_relaxed) == nullptr &&
        g_table.slots[i].compare_exchange_strong(expected, s, std::memory_order_release)) {
      // Without an exit callback the slab is never retired: its figures stay counted, its
      // slot stays taken.
      platform::watch_thread_exit(retire, s);
      t_slab = s;
      return s;
    }
  }
  platform::page_free(memory, sizeof(Slab));
  t_slab = kNoSlab;
  return kNoSlab;
}

Cell* new_cell(Slab* s, uint32_t method) {
  Slab::Chunk* chunk = s->chunks;
  if (chunk == nullptr || chunk->used + kCellBytes > kChunkBytes) {
    void* memory = platform::page_alloc(kChunkBytes);
    if (memory == nullptr) return nullptr;
    chunk = static_cast<Slab::Chunk*>(memory);
    chunk->next = s->chunks;
    chunk->used = kChunkHeader;
    s->chunks = chunk;
  }
  Cell* cell = new (reinterpret_cast<uint8_t*>(chunk) + chunk->used) Cell();
  chunk->used += static_cast<uint32_t>(kCellBytes);
  s->cells[method].store(cell, std::memory_order_release);
  return cell;
}

// Only the owning thread writes a cell, so a load and a store replace a read-modify-write.
inline void add(std::atomic<uint64_t>& field, uint64_t v) {
  field.store(field.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

inline void record(int32_t method, int64_t start, bool raised) {
  const uint64_t now = probe_ticks();
  Slab* s = t_slab;
  if (__builtin_expect(s == nullptr, 0)) s = attach_slab();
  if (__builtin_expect(s == kNoSlab || static_cast<uint32_t>(method) >= kMaxMethods, 0)) {
    g_table.dropped_calls.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Cell* c = s->cells[method].load(std::memory_order_relaxed);
  if (__builtin_expect(c == nullptr, 0)) {
    c = new_cell(s, static_cast<uint32_t>(method));
    if (c == nullptr) {
      g_table.dropped_calls.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  const uint64_t begin = static_cast<uint64_t>(start);
  const uint64_t ns = ticks_to_ns(now > begin ? now - begin : 0);
  add(c->calls, 1);
  if (raised) add(c->exceptions, 1);
  add(c->total_ns, ns);
  if (ns > c->max_ns.load(std::memory_order_relaxed)) c->max_ns.store(ns, std::memory_order_relaxed);
  const uint64_t previous = c->pending.load(std::memory_order_relaxed);
  c->pending.store(ns + 1, std::memory_order_relaxed);
  if (__builtin_expect(previous == 0, 0)) return;
  const uint32_t b = bucket_of(previous - 1);
  add(c->buckets[b], 1);
  if (b < c->lo.load(std::memory_order_relaxed)) c->lo.store(b, std::memory_order_relaxed);
  if (b > c->hi.load(std::memory_order_relaxed)) c->hi.store(b, std::memory_order_relaxed);
}

}  // namespace

SlabTable& slab_table() { return g_table; }

void free_slab(uint32_t slot) {
  Slab* s = g_table.slots[slot].load(std::memory_order_acquire);
  if (s == nullptr) return;
  for (Slab::Chunk* c = s->chunks; c != nullptr;) {
    Slab::Chunk* next = c->next;
    platform::page_free(c, kChunkBytes);
    c = next;
  }
  s->~Slab();
  platform::page_free(s, sizeof(Slab));
  g_table.slots[slot].store(nullptr, std::memory_order_release);
}

}  // namespace measure
}  // namespace clrscope

extern "C" {

int64_t clrscope_probe_enter() { return static_cast<int64_t>(clrscope::measure::probe_ticks()); }

void clrscope_probe_leave(int32_t method, int64_t start) { clrscope::measure::record(method, start, false); }

void clrscope_probe_raise(int32_t method, int64_t start) { clrscope::measure::record(method, start, true); }

}
