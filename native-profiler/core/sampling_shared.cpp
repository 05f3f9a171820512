#include "core/sampling_shared.h"

#include "core/module_table.h"
#include "core/platform.h"

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
  uint64_t wall_ns = 0;
  uint8_t got = 0;
  if (kinds & kCaptureCpu) {
    cpu_ns = cpu_now_ns - slot.last_cpu_ns;
    slot.last_cpu_ns = cpu_now_ns;
    got |= kCaptureCpu;
  }
  if (kinds & kCaptureWall) {
    // Zero here means the watchdog gave up on this request already; its value was counted lost.
    wall_ns = slot.pending_wall_ns.exchange(0, std::memory_order_acq_rel);
    if (wall_ns != 0) got |= kCaptureWall;
  }
  if (got == 0) return nullptr;

  Capture* c = shared.ring->try_acquire(index);
  if (c == nullptr) {
    shared.dropped_ring_full.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  c->mono = platform::mono_now_ns();
  c->cpu_ns = cpu_ns;
  c->wall_ns = wall_ns;
  c->sp = sp;
  c->slot = slot_index;
  c->wire_id = wire_id;
  c->kinds = got;
  return c;
}

void commit_capture(SamplingShared& shared, uint32_t index, uint64_t claimed_mono) {
  shared.captures.fetch_add(1, std::memory_order_relaxed);
  shared.capture_ns.fetch_add(platform::mono_now_ns() - claimed_mono, std::memory_order_relaxed);
  shared.ring->publish(index);
}

void record_capture(SamplingShared& shared, uint32_t slot_index, uint32_t wire_id, uint8_t kinds, uint64_t cpu_now_ns,
                    const WalkRegisters& regs) {
  uint32_t index = 0;
  Capture* c = claim_capture(shared, slot_index, wire_id, kinds, cpu_now_ns, regs.sp, &index);
  if (c == nullptr) return;
  const ThreadSlot& slot = shared.registry->slot(slot_index);
  const uintptr_t hi = slot.stack_hi.load(std::memory_order_acquire);
  if (hi == 0) {
    // Bounds unknown: reading the frame chain could fault. Keep the leaf; the sampler learns
    // the bounds from sp for the next capture.
    c->bounds_known = false;
    c->frames[0] = regs.ip;
    c->count = 1;
    c->gap_at = 0;
    c->elided = 0;
    c->complete = false;
  } else {
    c->bounds_known = true;
    const StackBounds bounds{slot.stack_lo.load(std::memory_order_relaxed), hi};
    const WalkResult w = walk_frames(regs, bounds, c->frames, kMaxFrames, kTailFrames, current_modules());
    c->count = w.count;
    c->gap_at = w.gap_at;
    c->elided = w.elided;
    c->complete = w.complete;
  }
  // Read last, so that the handler's own cost is behind the sampler's idle test (sampler.cpp).
  c->thread_cpu_after = (c->kinds & kCaptureWall) ? platform::current_thread_cpu_ns() : 0;
  commit_capture(shared, index, c->mono);
}

}  // namespace clrscope
