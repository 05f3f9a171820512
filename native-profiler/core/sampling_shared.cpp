#include "core/sampling_shared.h"

#include <algorithm>

#include "core/box_stack.h"
#include "core/module_table.h"
#include "core/platform.h"
#include "core/walk_pacing.h"

namespace clrscope {
namespace {
std::atomic<SamplingShared*> g_shared{nullptr};
constexpr uint64_t kTicketTag = 0xC5;
}  // namespace

SamplingShared* sampling_shared() { return g_shared.load(std::memory_order_acquire); }
void set_sampling_shared(SamplingShared* shared) { g_shared.store(shared, std::memory_order_release); }

uint64_t pack_ticket(const CaptureTicket& t) {
  return (kTicketTag << 56) | (static_cast<uint64_t>(t.kinds & 0x3) << 48) |
         (static_cast<uint64_t>(t.slot & 0xFFFF) << 32) | t.wire_id;
}

bool unpack_ticket(uint64_t v, CaptureTicket* t) {
  if ((v >> 56) != kTicketTag) return false;
  t->kinds = static_cast<uint8_t>((v >> 48) & 0x3);
  t->slot = static_cast<uint32_t>((v >> 32) & 0xFFFF);
  t->wire_id = static_cast<uint32_t>(v);
  return t->kinds != 0 && t->slot < kMaxThreads && t->wire_id != 0;
}

namespace {

// The slot's stack bounds, if the handler may read the stack with them: the sequence lock held
// still, they belong to this thread, and the interrupted stack pointer lies inside them. Reads
// then start at that stack pointer: everything from there up to the top of the thread's stack
// is mapped, which is not true below it (the main thread's stack grows on demand).
bool usable_bounds(const ThreadSlot& slot, uintptr_t sp, uintptr_t identity, StackBounds* out) {
  const uint32_t s1 = slot.bounds_seq.load(std::memory_order_acquire);
  const uintptr_t lo = slot.stack_lo.load(std::memory_order_relaxed);
  const uintptr_t hi = slot.stack_hi.load(std::memory_order_relaxed);
  const uintptr_t self = slot.self.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if ((s1 & 1) != 0 || slot.bounds_seq.load(std::memory_order_relaxed) != s1) return false;
  if (hi == 0 || sp < lo || sp >= hi) return false;
  if (identity != 0 && identity != self) return false;
  *out = StackBounds{sp, hi};
  return true;
}

// The async chain of the box the thread runs, read from the heap (core/heap_chain.h). Objects
// move only while the runtime is suspended for a GC: a walk is kept only when no suspension was
// under way as it began and none began or ended before it finished (ASYNC-STACKS-STUDY.md, §8).
// Without that, a thread in managed code is cooperative, so no GC can run while it is
// interrupted there, but a thread in native code may be in preemptive mode with a GC running.
// A walk thrown away falls back on the chain kept for the same run of the same box (by an
// earlier kept walk, or read by the thread as it began the suspension: a GC's own work runs on
// the thread whose allocation triggered it, inside the box's MoveNext, core/box_stack.h).
void walk_async_heap(SamplingShared& shared, const ThreadSlot& slot, uintptr_t ip, uintptr_t identity,
                     const ModuleSnapshot* modules, Capture* c) {
  bool too_deep = false;
  BoxRun run;
  const uintptr_t box = running_box(slot, identity, platform::safe_load_word, &too_deep, &run);
  if (too_deep) shared.heap_too_deep.fetch_add(1, std::memory_order_relaxed);
  if (box == 0) return;
  const bool cpu = (c->kinds & kCaptureCpu) != 0;
  if (cpu) shared.heap_cpu_boxed.fetch_add(1, std::memory_order_relaxed);
  KeptChain chain{c->heap_chain, 0, 0, 0};
  const uint64_t epoch = shared.suspension_epoch.load(std::memory_order_acquire);
  bool moved = shared.runtime_suspended.load(std::memory_order_acquire) != 0;
  const uint64_t start = platform::mono_now_ns();
  if (!moved) {
    if (modules == nullptr || ip == 0 || modules->find(ip) != nullptr) shared.heap_native.fetch_add(1, std::memory_order_relaxed);
    const HeapWalk w = walk_heap_chain(box, *shared.heap_types, platform::safe_load_word, c->heap_chain, kHeapChainBoxes, kHeapChainHops);
    std::atomic_thread_fence(std::memory_order_acquire);
    moved = shared.suspension_epoch.load(std::memory_order_relaxed) != epoch;
    chain.count = w.count;
    chain.end = static_cast<uint8_t>(w.end);
    chain.root = w.end == HeapWalkEnd::kDone ? w.root : 0;
  }
  if (moved) {
    shared.heap_suspended.fetch_add(1, std::memory_order_relaxed);
    if (!kept_chain(run, box, &chain)) return;
    shared.heap_kept_used.fetch_add(1, std::memory_order_relaxed);
  } else {
    keep_chain(run, box, chain);
  }
  c->heap_count = static_cast<uint8_t>(chain.count);
  c->heap_end = chain.end;
  c->heap_root = chain.root;
  if (cpu && chain.count > 0) shared.heap_cpu_chained.fetch_add(1, std::memory_order_relaxed);
  shared.heap_walks.fetch_add(1, std::memory_order_relaxed);
  shared.heap_ends[chain.end & 3].fetch_add(1, std::memory_order_relaxed);
  shared.heap_walk_ns.fetch_add(platform::mono_now_ns() - start, std::memory_order_relaxed);
}

}  // namespace

void note_runtime_suspension(SamplingShared& shared, bool starts) {
  if (starts) {
    shared.runtime_suspended.fetch_add(1, std::memory_order_acq_rel);
  } else {
    uint32_t n = shared.runtime_suspended.load(std::memory_order_acquire);
    while (n > 0 && !shared.runtime_suspended.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel)) {
    }
  }
  shared.suspension_epoch.fetch_add(1, std::memory_order_acq_rel);
}

Capture* claim_capture(SamplingShared& shared, uint32_t slot_index, uint32_t wire_id, uint8_t kinds,
                       uint64_t cpu_now_ns, uintptr_t sp, uint32_t* index) {
  if (!shared.active.load(std::memory_order_relaxed)) return nullptr;
  ThreadSlot& slot = shared.registry->slot(slot_index);
  if (slot.wire_id.load(std::memory_order_acquire) != wire_id) {
    // The thread ended (and its slot may already serve another) while the request was in flight.
    shared.dropped_other.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  uint64_t cpu_ns = 0;
  uint8_t got = 0;
  // A CPU tick in a dear walk's pause (core/walk_pacing.h) records nothing and leaves the mark,
  // unless it carries a wall request away with it.
  if (kinds == kCaptureCpu && walk_paused(slot, cpu_now_ns) && slot.pending_wall_ns.load(std::memory_order_acquire) == 0) {
    shared.paused_ticks.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  if (kinds & kCaptureCpu) {
    // Only forward: the sampler advances the mark too, for CPU no capture brought in
    // (unanswered_cpu.cpp), and a capture whose clock was read before its advance must not
    // take the mark back and count that CPU twice.
    uint64_t before = slot.last_cpu_ns.load(std::memory_order_relaxed);
    while (cpu_now_ns > before &&
           !slot.last_cpu_ns.compare_exchange_weak(before, cpu_now_ns, std::memory_order_acq_rel,
                                                   std::memory_order_relaxed)) {
    }
    cpu_ns = cpu_now_ns > before ? cpu_now_ns - before : 0;
    got |= kCaptureCpu;
  }
  // A wall request is answered by whichever capture reaches the thread first: a standard signal
  // already pending absorbs a second one, so a CPU tick may carry the wall request's ticket
  // away. Zero means no request is outstanding (or the watchdog gave up on it and counted it).
  const uint64_t wall_ns = slot.pending_wall_ns.exchange(0, std::memory_order_acq_rel);
  if (wall_ns != 0) got |= kCaptureWall;
  if (got == 0) return nullptr;

  Capture* c = shared.ring->try_acquire(index);
  if (c == nullptr) {
    shared.dropped_ring_full.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  begin_capture(c, platform::mono_now_ns(), slot_index, wire_id, got);
  c->cpu_ns = cpu_ns;
  c->wall_ns = wall_ns;
  c->sp = sp;
  c->async_box = slot.async_box.load(std::memory_order_relaxed);
  c->collecting = slot.collecting.load(std::memory_order_relaxed) != 0;
  const ModuleSnapshot* modules = current_modules();
  c->module_generation = modules != nullptr ? modules->generation : 0;
  return c;
}

uint64_t commit_capture(SamplingShared& shared, uint32_t index, uint64_t claimed_mono) {
  const uint64_t now = platform::mono_now_ns();
  shared.captures.fetch_add(1, std::memory_order_relaxed);
  shared.capture_ns.fetch_add(now - claimed_mono, std::memory_order_relaxed);
  shared.ring->publish(index);
  return now;
}

void record_capture(SamplingShared& shared, uint32_t slot_index, uint32_t wire_id, uint8_t kinds, uint64_t cpu_now_ns,
                    const WalkRegisters& regs, uintptr_t identity) {
  uint32_t index = 0;
  Capture* c = claim_capture(shared, slot_index, wire_id, kinds, cpu_now_ns, regs.sp, &index);
  if (c == nullptr) return;
  c->self = identity;
  const ThreadSlot& slot = shared.registry->slot(slot_index);
  StackBounds bounds{0, 0};
  if (!usable_bounds(slot, regs.sp, identity, &bounds)) {
    // A probe: the sampler learns the bounds from sp and carries these values to the thread's
    // next sample, so no time lands on a stack that could not be walked.
    c->frames[0] = regs.ip;
    c->count = 1;
  } else {
    c->bounds_known = true;
    // The table walked with is the one the capture names: a table published since the claim
    // (a library loaded) would otherwise be walked under the older one's generation, and the
    // sampler would distrust a walk that was right.
    const ModuleSnapshot* modules = current_modules();
    c->module_generation = modules != nullptr ? modules->generation : 0;
    const WalkResult w = walk_frames(regs, bounds, c->frames, kMaxFrames, kTailFrames, modules);
    c->count = w.count;
    c->gap_at = w.gap_at;
    c->elided = w.elided;
    c->complete = w.complete;
    c->osr_pairs = static_cast<uint8_t>(w.osr_pairs);
    for (uint32_t i = 0; i < w.osr_pairs; ++i) c->osr_at[i] = static_cast<uint16_t>(w.osr_at[i]);
  }
  if (shared.heap_types != nullptr && identity != 0) walk_async_heap(shared, slot, regs.ip, identity, current_modules(), c);
  // Read last, so that the handler's own cost is behind the sampler's idle test (wall_scheduler.cpp).
  if (c->kinds & kCaptureWall) {
    c->thread_cpu_after = platform::current_thread_cpu_ns();
    c->switches = platform::current_thread_switches();
  }
  const uint64_t began = c->mono;
  const uint64_t now = commit_capture(shared, index, began);
  // Only on the thread itself: its CPU clock is the one read here. A CPU tick knows the clock at
  // its start, so a handler that was only preempted (long on the monotonic clock, short on the
  // thread's) pauses nothing.
  if (identity != 0 && now - began > kCheapWalkNs) {
    const uint64_t cpu_after = platform::current_thread_cpu_ns();
    const uint64_t cost = cpu_now_ns != 0 && cpu_after >= cpu_now_ns ? std::min(now - began, cpu_after - cpu_now_ns) : now - began;
    pace_walk(shared.registry->slot(slot_index), cost, cpu_after, now);
  }
}

}  // namespace clrscope
