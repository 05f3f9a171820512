#include "core/counters_block.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace clrscope {
namespace {

using clr::DWORD;
using clr::SIZE_T;

uint64_t get(const std::atomic<uint64_t>& a) { return a.load(std::memory_order_acquire); }
DWORD dword(uint64_t v) { return static_cast<DWORD>(v); }
SIZE_T size_t_of(uint64_t v) { return static_cast<SIZE_T>(v); }

// The sequence lock's word, shared with readers in other processes: atomics on the raw int.
void seq_store(clr::LONG* word, clr::LONG v) { __atomic_store_n(word, v, __ATOMIC_RELEASE); }
clr::LONG seq_load(const clr::LONG* word) { return __atomic_load_n(word, __ATOMIC_RELAXED); }

}  // namespace

void CountersBlock::init_header(clr::IPCControlBlock* block, uint32_t pid, uint16_t runtime_major,
                                uint16_t runtime_build) {
  std::memset(block, 0, sizeof *block);
  clr::IPCHeader& h = block->m_Header;
  h.m_Counter = 0;  // 0: never written; the first publish makes it 2
  h.m_RuntimeId = pid;
  h.m_Version = clr::kIpcBlockVersion;
  h.m_Flags = clr::kIpcFlagUsesFlags | clr::kIpcFlagInitialized | (sizeof(void*) == 4 ? clr::kIpcFlagX86 : 0);
  h.m_blockSize = clr::kIpcBlockUsedSize;
  h.m_BuildYear = runtime_major;
  h.m_BuildNumber = runtime_build;
  h.m_numEntries = clr::kIpcEntryCount;
  h.m_table[clr::kIpcEntryPerfCounters].m_Offset = static_cast<DWORD>(offsetof(clr::IPCControlBlock, m_perf));
  h.m_table[clr::kIpcEntryPerfCounters].m_Size = static_cast<DWORD>(sizeof(clr::PerfCounterIPCControlBlock));
  block->m_perf.m_cBytes = static_cast<uint16_t>(sizeof(clr::PerfCounterIPCControlBlock));
  block->m_perf.m_wAttrs = clr::kPerfAttrOn;
}

void CountersBlock::fill(clr::PerfCounterIPCControlBlock* perf, const RuntimeCounters& c, uint32_t pid,
                         uint32_t live_threads, uint64_t threads_seen, uint32_t os_threads, const Window& w) {
  clr::Perf_GC& gc = perf->m_GC;
  // A GC bumps gen0, gen1, gen2 (as far as it went), then the induced count, while this may be
  // running on another thread: reading them in the reverse order keeps every published set
  // consistent (gen0 >= gen1 >= gen2, induced <= gen0) even mid-update.
  gc.cInducedGCs = size_t_of(get(c.induced));
  for (int g = 2; g >= 0; --g) gc.cGenCollections[g] = size_t_of(get(c.collections[g]));
  gc.cbPromotedMem[0] = size_t_of(get(c.promoted[0]));
  gc.cbPromotedMem[1] = size_t_of(get(c.promoted[1]));
  gc.cbPromotedFinalizationMem = size_t_of(get(c.finalization_promoted));
  gc.cProcessID = pid;
  for (int g = 0; g < 3; ++g) gc.cGenHeapSize[g] = size_t_of(get(c.generation_size[g]));
  uint64_t reserved = 0;
  for (int g = 0; g < 5; ++g) reserved += get(c.generation_reserved[g]);
  // Committed bytes and bytes allocated have no profiler callback: System.Runtime's counters
  // (core/event_counters.h) bring them, 0 until the first interval.
  const RuntimeGauges& x = c.gauges;
  gc.cTotalCommittedBytes = size_t_of(static_cast<uint64_t>(x.value[RuntimeGauges::kGcCommitted].load(std::memory_order_relaxed)));
  gc.cTotalReservedBytes = size_t_of(reserved);
  gc.cLrgObjSize = size_t_of(get(c.generation_size[3]));
  gc.cSurviveFinalize = size_t_of(get(c.finalization_promoted_count));
  // The runtime's handle count is signed (core/counters_extras.h); below zero it says nothing,
  // so the unsigned field gets 0 and the extras the value with its sign.
  const int32_t handles = static_cast<int32_t>(static_cast<uint32_t>(get(c.gc_handles)));
  gc.cHandles = handles > 0 ? size_t_of(static_cast<uint64_t>(handles)) : 0;
  // The perf counter's raw value behind "Allocated Bytes/sec": bytes allocated so far.
  gc.cbAlloc = size_t_of(get(x.allocated_bytes));
  gc.cbLargeAlloc = 0;
  // % time in GC over the last second, as the perf counter's ratio: microseconds paused for GC
  // over microseconds elapsed.
  gc.timeInGC = dword(w.gc_paused_ns / 1000);
  gc.timeInGCBase = dword(w.span_ns / 1000);
  gc.cPinnedObj = size_t_of(get(c.pinned_objects));
  gc.cSinkBlocks = size_t_of(get(c.sync_blocks));

  clr::Perf_Loading& ld = perf->m_Loading;
  ld.cClassesLoaded.Cur = dword(get(c.classes_loaded));
  ld.cClassesLoaded.Total = dword(get(c.classes_loaded));
  ld.cAppDomains.Cur = dword(get(c.appdomains_loaded) - get(c.appdomains_unloaded));
  ld.cAppDomains.Total = dword(get(c.appdomains_loaded));
  ld.cAssemblies.Cur = dword(get(c.assemblies_loaded) - get(c.assemblies_unloaded));
  ld.cAssemblies.Total = dword(get(c.assemblies_loaded));
  ld.cLoadFailures.Total = dword(get(c.class_load_failures));
  ld.cAppDomainsUnloaded.Total = dword(get(c.appdomains_unloaded));

  clr::Perf_Excep& ex = perf->m_Excep;
  ex.cThrown.Total = dword(get(c.exceptions_thrown));
  ex.cFiltersExecuted = dword(get(c.filters_executed));
  ex.cFinallysExecuted = dword(get(c.finallys_executed));

  clr::Perf_LocksAndThreads& lt = perf->m_LocksAndThreads;
  lt.cContention.Total = dword(get(c.contentions));
  lt.cCurrentThreadsLogical = live_threads;
  lt.cCurrentThreadsPhysical = os_threads;
  lt.cRecognizedThreads.Cur = live_threads;
  lt.cRecognizedThreads.Total = dword(threads_seen);

  clr::Perf_Jit& jit = perf->m_Jit;
  jit.cMethodsJitted = dword(get(c.methods_jitted));
  jit.cbILJitted.Cur = dword(get(c.il_bytes_jitted));
  jit.cbILJitted.Total = dword(get(c.il_bytes_jitted));
  jit.cJitFailures = dword(get(c.jit_failures));
  jit.timeInJit = dword(w.jit_ns / 1000);
  jit.timeInJitBase = dword(w.span_ns / 1000);
}

void CountersBlock::fill_extras(CountersExtras* e, const RuntimeCounters& c) {
  const RuntimeGauges& g = c.gauges;
  const uint32_t have = g.present.load(std::memory_order_acquire);
  const auto value = [&g](RuntimeGauges::Field f) { return g.value[f].load(std::memory_order_relaxed); };
  uint64_t present = 0;
  e->magic = kExtrasMagic;
  e->size = sizeof *e;
  if (get(c.heap_stats) > 0) {
    e->gc_handles = static_cast<int32_t>(static_cast<uint32_t>(get(c.gc_handles)));
    present |= 1ull << kXGcHandles;
  }
  const auto put = [&](RuntimeGauges::Field from, ExtrasField to, double* field) {
    if ((have & (1u << from)) == 0) return;
    *field = value(from);
    present |= 1ull << to;
  };
  put(RuntimeGauges::kAllocRate, kXAllocRate, &e->alloc_bytes_per_sec);
  if ((have & (1u << RuntimeGauges::kAllocRate)) != 0) {
    e->allocated_bytes = get(g.allocated_bytes);
    present |= 1ull << kXAllocated;
  }
  put(RuntimeGauges::kGcCommitted, kXGcCommitted, &e->gc_committed_bytes);
  put(RuntimeGauges::kWorkingSet, kXWorkingSet, &e->working_set_bytes);
  put(RuntimeGauges::kCpuPercent, kXCpuPercent, &e->cpu_percent);
  put(RuntimeGauges::kPoolThreads, kXPoolThreads, &e->threadpool_threads);
  put(RuntimeGauges::kPoolQueueLength, kXPoolQueueLength, &e->threadpool_queue_length);
  put(RuntimeGauges::kPoolCompletedRate, kXPoolCompletedRate, &e->threadpool_completed_per_sec);
  if ((have & (1u << RuntimeGauges::kPoolCompletedRate)) != 0) {
    e->threadpool_completed = get(g.completed_items);
    present |= 1ull << kXPoolCompleted;
  }
  e->present = present;
}

bool CountersBlock::open(uint32_t pid, uint16_t runtime_major, uint16_t runtime_build) {
  if (!platform::create_shared_memory(pid, sizeof(clr::IPCControlBlock), &memory_)) return false;
  block_ = static_cast<clr::IPCControlBlock*>(memory_.address);
  pid_ = pid;
  init_header(block_, pid, runtime_major, runtime_build);
  return true;
}

CountersBlock::Window CountersBlock::last_second(uint64_t now) {
  const Mark m{now, get(counters_->jit_ns)};
  marks_.push_back(m);
  while (marks_.size() > 1 && now - marks_.front().mono > 1000000000ull) marks_.pop_front();
  const Mark& first = marks_.front();
  const uint64_t span = now - first.mono;

  // The runtime's counter grows by a whole pause when it ends. Credited whole to the window it
  // ends in, a pause longer than the window read above 100%; so each pause counts only for the
  // part of it that lies inside the window, taking it to have ended when this publisher first
  // saw it (at most one tick late).
  const uint64_t total = get(counters_->gc_paused_ns);
  if (!gc_baseline_) {
    gc_baseline_ = true;
  } else if (total > gc_paused_seen_) {
    gc_ends_.push_back(PauseEnd{now, total - gc_paused_seen_});
  }
  gc_paused_seen_ = total;
  while (!gc_ends_.empty() && gc_ends_.front().mono <= first.mono) gc_ends_.pop_front();
  uint64_t paused = 0;
  for (const PauseEnd& e : gc_ends_) paused += std::min(e.ns, e.mono - first.mono);
  // Pauses never overlap; taking each to end at a tick can make two seem to, by a tick at most.
  paused = std::min(paused, span);
  return Window{paused, m.jit_ns - first.jit_ns, span};
}

void CountersBlock::publish(uint64_t now) {
  if (block_ == nullptr) return;
  const Window w = last_second(now);
  // Counting OS threads reads /proc; a few times a second is fresh enough.
  if (os_threads_read_ == 0 || now - os_threads_read_ > 250000000ull) {
    os_threads_ = platform::os_thread_count();
    os_threads_read_ = now;
  }
  clr::LONG* seq = &block_->m_Header.m_Counter;
  const clr::LONG before = seq_load(seq);
  // Odd while writing; the fences keep the field stores between the two counter stores.
  seq_store(seq, before + 1);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  fill(&block_->m_perf, *counters_, pid_, registry_->live_threads(), registry_->threads_seen(),
       os_threads_, w);
  fill_extras(reinterpret_cast<CountersExtras*>(reinterpret_cast<uint8_t*>(block_) + kExtrasOffset), *counters_);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  // Even again, skipping 0 ("never written") on wrap-around.
  clr::LONG after = before + 2;
  if (after == 0) after = 2;
  seq_store(seq, after);
}

void CountersBlock::close(bool remove) {
  if (block_ == nullptr) return;
  block_ = nullptr;
  platform::release_shared_memory(&memory_, remove);
}

}  // namespace clrscope
