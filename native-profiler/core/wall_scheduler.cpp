#include "core/wall_scheduler.h"

#include "core/log.h"
#include "core/platform.h"
#include "core/sample_stream.h"
#include "core/sampler_config.h"
#include "core/sampling_shared.h"
#include "core/thread_book.h"

namespace clrscope {
namespace {
// CPU a thread may use between the end of a wall capture and blocking again and still count as
// returning to the wait it was captured in: the return from the handler and the re-entry into
// the interrupted call cost a few microseconds.
constexpr uint64_t kReturnCpuNs = 20000;
}  // namespace

void WallScheduler::request(uint64_t now) {
  ThreadRegistry& reg = *shared_->registry;
  const uint32_t limit = reg.slot_limit();
  if (limit == 0) return;
  uint32_t asked = 0;
  // One pass over the slots at most, starting where the last tick stopped: with more live
  // threads than the per-tick cap, each is sampled every few ticks and its value covers the
  // whole time since its previous sample.
  const uint32_t start = cursor_;
  for (uint32_t k = 0; k < limit && asked < config_.wall_threads_per_tick; ++k) {
    const uint32_t i = (start + k) % limit;
    ThreadSlot& s = reg.slot(i);
    if (s.state.load(std::memory_order_acquire) != ThreadSlot::kLive) continue;
    const uint32_t wire_id = s.wire_id.load(std::memory_order_acquire);
    if (wire_id == 0 || s.os_tid.load(std::memory_order_acquire) == 0) continue;
    if (!book_->announced(wire_id)) continue;
    SampledThread* known = book_->find(wire_id);
    if (known == nullptr || known->native) continue;
    SampledThread& t = *known;
    if (s.pending_wall_ns.load(std::memory_order_acquire) != 0) {
      if (now - t.wall_requested_mono < config_.watchdog_ns) continue;
      // Abandon the old request; if the handler runs later it finds nothing to record.
      if (s.pending_wall_ns.exchange(0, std::memory_order_acq_rel) != 0) {
        shared_->dropped_watchdog.fetch_add(1, std::memory_order_relaxed);
      }
    }
    ++asked;
    cursor_ = i + 1;
    if (reuse_idle_stack(s, wire_id, t, now)) continue;
    // In a dear walk's pause (core/walk_pacing.h): the next request carries this tick's wall time.
    if (now < s.walk_after_mono.load(std::memory_order_relaxed)) continue;
    const uint64_t wall = now > t.last_wall_mono ? now - t.last_wall_mono : 1;
    t.wall_requested_mono = now;
    s.pending_wall_ns.store(wall, std::memory_order_release);
    if (platform::request_wall_sample(s, i)) {
      t.last_wall_mono = now;
    } else {
      s.pending_wall_ns.store(0, std::memory_order_release);
    }
  }
}

// A thread that has not run since its last wall capture is still where that capture found it,
// so it is answered from the capture's stack without being woken: that spares a blocked thread
// a wake-up, a signal frame and a walk every tick, which is most of what wall sampling costs in
// a process with many idle threads.
//
// "Has not run" is the scheduler's word, not a guess from CPU time: after the capture the
// thread must have left the CPU exactly once (going back to its wait, a context switch the
// capture could not count yet), be waiting now, and have used no more CPU than that return
// costs. A thread that woke and waited elsewhere, however briefly, has switched at least twice.
// Once confirmed, a thread whose CPU clock has not moved at all has not run since.
bool WallScheduler::reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, SampledThread& t, uint64_t now) {
  if (!t.memo || !wait_state_known_) return false;
  const uint32_t tid = s.os_tid.load(std::memory_order_acquire);
  uint64_t cpu = 0;
  if (!platform::thread_cpu_ns(tid, &cpu)) return false;
  if (t.memo_checked) {
    if (cpu != t.memo_cpu) {
      t.memo = false;
      return false;
    }
  } else {
    // A thread whose clock says it ran is not idle, whatever the OS says of its state: known
    // without reading /proc, the sampler's dearest read (an open, a formatted page and a close).
    if (cpu < t.memo_cpu || cpu - t.memo_cpu > kReturnCpuNs) {
      t.memo = false;
      return false;
    }
    bool waiting = false;
    uint64_t switches = 0;
    if (!platform::thread_wait_state(tid, &waiting, &switches)) {
      wait_state_known_ = false;
      log_line("the OS does not tell whether a thread is waiting; every wall sample is a fresh capture");
      return false;
    }
    if (!waiting || switches != t.memo_switches + 1) {
      t.memo = false;
      return false;
    }
    t.memo_checked = true;
    t.memo_cpu = cpu;
  }
  const uint16_t n = static_cast<uint16_t>(t.memo_frames.size());
  if (!stream_->room_for(WireWriter::sample_size(n))) return true;
  const uint64_t wall = (now > t.last_wall_mono ? now - t.last_wall_mono : 1) + t.carry_wall_ns;
  uint8_t flags = static_cast<uint8_t>(wire::kSampleWall | t.memo_flags);
  const uint64_t carried_cpu = t.carry_cpu_ns;
  if (carried_cpu != 0) flags |= wire::kSampleCpu;
  stream_->writer.sample(now, wire_id, flags, carried_cpu, wall, t.memo_frames.data(), n);
  t.carry_cpu_ns = 0;
  t.carry_wall_ns = 0;
  t.last_wall_mono = now;
  ++stream_->samples_sent;
  ++reused_;
  return true;
}

// A walk that broke in native code the handler's module table did not have yet (a library
// loaded since the last tick, walked by frame pointers it does not keep) would be an incomplete
// stack; the table has it now, so the thread is asked again, with this capture's values carried
// to the answer, as a probe's are. Twice at most in a row: a thread that keeps entering fresh
// code gets its incomplete stack.
void WallScheduler::retake(uint32_t wire_id, uint32_t slot, uint64_t cpu_ns, uint64_t wall_ns) {
  SampledThread* known = book_->find(wire_id);
  if (known == nullptr) return;
  SampledThread& t = *known;
  ++t.retries;
  t.carry_cpu_ns += cpu_ns;
  t.carry_wall_ns += wall_ns;
  if (!config_.wall || t.native) return;  // the carried values ride on the next CPU sample
  ThreadSlot& s = shared_->registry->slot(slot);
  if (s.wire_id.load(std::memory_order_acquire) != wire_id) return;
  const uint64_t now = platform::mono_now_ns();
  uint64_t expected = 0;
  // A request may already be out; then it answers, carrying these values too.
  if (!s.pending_wall_ns.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
  t.wall_requested_mono = now;
  if (!platform::request_wall_sample(s, slot)) s.pending_wall_ns.store(0, std::memory_order_release);
}

}  // namespace clrscope
