#include "core/event_capture.h"

#include "core/allocation_carry.h"
#include "core/module_table.h"
#include "core/platform.h"
#include "core/self_cost.h"
#include "core/wire_writer.h"

namespace clrscope {
namespace {

// The calling thread's slot, remembered per thread; checked against the slot on every use, since
// slots and OS thread ids are reused.
struct SlotCache {
  uint32_t tid = 0;
  uint32_t index = 0;
  uint32_t wire_id = 0;
};
thread_local SlotCache t_slot;

thread_local AllocationCarry t_carried_allocation;

bool current_slot(ThreadRegistry& registry, uint32_t* index, uint32_t* wire_id) {
  // Remembered: the system call was about a fifth of an allocation sample's cost on the
  // allocating thread (~250 of ~1,300 ns, scripts/bench/RESULTS.md).
  const uint32_t tid = platform::current_tid_remembered();
  if (t_slot.tid == tid && t_slot.wire_id != 0) {
    const ThreadSlot& s = registry.slot(t_slot.index);
    if (s.wire_id.load(std::memory_order_acquire) == t_slot.wire_id && s.os_tid.load(std::memory_order_acquire) == tid) {
      *index = t_slot.index;
      *wire_id = t_slot.wire_id;
      return true;
    }
  }
  if (!registry.slot_of_tid(tid, index, wire_id)) return false;
  t_slot = SlotCache{tid, *index, *wire_id};
  return true;
}

}  // namespace

bool record_event(SamplingShared& shared, const EventInfo& e) {
  const NestedCostSpan cost(kCostEventStacks);
  if (!shared.active.load(std::memory_order_relaxed) || shared.event_ring == nullptr) return false;
  uint32_t index = 0, wire_id = 0;
  if (!current_slot(*shared.registry, &index, &wire_id)) {
    shared.dropped_events.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  ThreadSlot& slot = shared.registry->slot(index);
  const uintptr_t self = platform::current_thread_identity();
  if (slot.stack_hi.load(std::memory_order_acquire) == 0 || slot.self.load(std::memory_order_acquire) != self) {
    // Not a signal handler: the thread may ask the OS for its own stack once.
    uintptr_t lo = 0, hi = 0;
    if (platform::current_thread_stack(&lo, &hi)) shared.registry->learn_bounds(index, wire_id, lo, hi, self);
  }
  const bool allocation = e.kind == wire::kEventAllocation;
  CaptureRing* ring = allocation && shared.alloc_ring != nullptr ? shared.alloc_ring : shared.event_ring;
  uint32_t ring_index = 0;
  Capture* c = ring->try_acquire(&ring_index);
  if (c == nullptr) {
    shared.dropped_events.fetch_add(1, std::memory_order_relaxed);
    if (allocation) t_carried_allocation.lose(e.value1);
    return false;
  }
  begin_capture(c, platform::mono_now_ns(), index, wire_id, kCaptureEvent);
  c->self = self;
  c->async_box = slot.async_box.load(std::memory_order_relaxed);
  c->event_kind = e.kind;
  c->event_has_value2 = e.has_value2;
  c->event_type = e.type_id;
  c->event_value1 = e.value1;
  c->event_value2 = e.value2;
  c->event_live = e.live_token;
  char16_t* text = e.text != nullptr ? ring->text(ring_index) : nullptr;
  if (text != nullptr) {
    const uint32_t n = e.text_len < kMaxEventText ? e.text_len : kMaxEventText;
    for (uint32_t i = 0; i < n; ++i) text[i] = e.text[i];
    c->event_text = text;
    c->event_text_len = n;
    c->event_text_full = e.text_len;
  }
  if (allocation) t_carried_allocation.take(&c->event_value1, &c->event_value2);
  // The thread walks its own stack here, in a runtime callback rather than a signal handler:
  // without the scope, a library unloaded meanwhile could have its unwind copies freed mid-walk.
  const ModuleReadScope scope;
  const ModuleSnapshot* modules = scope.modules();
  c->module_generation = modules != nullptr ? modules->generation : 0;
  const uintptr_t lo = slot.stack_lo.load(std::memory_order_acquire);
  const uintptr_t hi = slot.stack_hi.load(std::memory_order_acquire);
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  c->sp = here;
  if (hi != 0 && here >= lo && here < hi) {
    const WalkResult w = platform::walk_own_stack(hi, modules, c->frames, kMaxFrames, kTailFrames, &c->sp);
    // clrscope's own frames (this function, the callback) lead the stack; the event happened in
    // whatever called into the runtime.
    uint32_t skip = 0;
    while (skip + 1 < w.count && (w.elided == 0 || skip < w.gap_at) && platform::is_own_code(c->frames[skip])) ++skip;
    for (uint32_t i = skip; i < w.count; ++i) c->frames[i - skip] = c->frames[i];
    c->count = w.count - skip;
    c->gap_at = w.elided != 0 && w.gap_at > skip ? w.gap_at - skip : 0;
    c->elided = w.gap_at > skip ? w.elided : 0;
    c->complete = w.complete;
    c->bounds_known = true;
    uint32_t pairs = 0;
    for (uint32_t i = 0; i < w.osr_pairs; ++i) {
      if (w.osr_at[i] > skip) c->osr_at[pairs++] = static_cast<uint16_t>(w.osr_at[i] - skip);
    }
    c->osr_pairs = static_cast<uint8_t>(pairs);
  }
  ring->publish(ring_index);
  return true;
}

bool RateBudget::take(uint64_t mono_ns) {
  const uint32_t limit = per_second_.load(std::memory_order_relaxed);
  if (limit == 0) return false;
  const uint64_t window = mono_ns / 1000000000ull + 1;
  uint64_t seen = window_.load(std::memory_order_relaxed);
  if (seen != window && window_.compare_exchange_strong(seen, window, std::memory_order_acq_rel)) {
    used_.store(0, std::memory_order_relaxed);
  }
  return used_.fetch_add(1, std::memory_order_relaxed) < limit;
}

void TypeCounts::add(uint64_t type_id, uint64_t n) {
  if (type_id == 0) {
    other_.fetch_add(n, std::memory_order_relaxed);
    return;
  }
  uint32_t i = static_cast<uint32_t>((type_id >> 3) * 0x9E3779B1u) % kSlots;
  for (uint32_t probes = 0; probes < kSlots; ++probes, i = (i + 1) % kSlots) {
    uint64_t key = keys_[i].load(std::memory_order_acquire);
    if (key == 0 && keys_[i].compare_exchange_strong(key, type_id, std::memory_order_acq_rel)) key = type_id;
    if (key == type_id) {
      counts_[i].fetch_add(n, std::memory_order_relaxed);
      return;
    }
  }
  other_.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace clrscope
