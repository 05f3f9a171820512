#include "core/thread_registry.h"

#include "core/platform.h"

namespace clrscope {

ThreadRegistry::ThreadRegistry() : slots_(new ThreadSlot[kMaxThreads]) {}

void ThreadRegistry::configure_cpu_timers(bool enabled, uint64_t interval_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  cpu_timers_ = enabled;
  cpu_interval_ns_ = interval_ns;
}

uint32_t ThreadRegistry::claim_slot_locked() {
  for (uint32_t k = 0; k < kMaxThreads; ++k) {
    const uint32_t i = (free_hint_ + k) % kMaxThreads;
    if (slots_[i].state.load(std::memory_order_relaxed) == ThreadSlot::kFree) {
      free_hint_ = (i + 1) % kMaxThreads;
      return i;
    }
  }
  return kMaxThreads;
}

void ThreadRegistry::on_created(uint64_t clr_thread_id) {
  std::lock_guard<std::mutex> lock(mu_);
  register_locked(clr_thread_id);
}

void ThreadRegistry::register_locked(uint64_t clr_thread_id) {
  if (by_clr_id_.count(clr_thread_id) != 0) return;
  const uint32_t index = claim_slot_locked();
  if (index == kMaxThreads) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ThreadSlot& s = slots_[index];
  const uint32_t wire_id = next_wire_id_++;
  s.clr_thread_id = clr_thread_id;
  s.os_tid.store(0, std::memory_order_relaxed);
  s.stack_lo.store(0, std::memory_order_relaxed);
  s.stack_hi.store(0, std::memory_order_relaxed);
  s.pending_wall_ns.store(0, std::memory_order_relaxed);
  s.last_wall_mono = platform::mono_now_ns();
  s.wall_requested_mono = 0;
  s.wire_id.store(wire_id, std::memory_order_release);
  // Live only once the OS tid is known: until then nobody can signal it.
  by_clr_id_[clr_thread_id] = Known{index, wire_id, std::string(), false};
  live_.fetch_add(1, std::memory_order_relaxed);
  seen_.fetch_add(1, std::memory_order_relaxed);
  if (index + 1 > slot_limit_.load(std::memory_order_relaxed)) slot_limit_.store(index + 1, std::memory_order_release);
  // Reserve the slot so claim_slot_locked skips it while the tid is unknown.
  s.state.store(ThreadSlot::kLive, std::memory_order_release);
}

void ThreadRegistry::on_assigned_os_thread(uint64_t clr_thread_id, uint32_t os_tid) {
  std::lock_guard<std::mutex> lock(mu_);
  // After an attach, or a missed ThreadCreated, the thread is first seen here.
  register_locked(clr_thread_id);
  auto it = by_clr_id_.find(clr_thread_id);
  if (it == by_clr_id_.end()) return;
  Known& k = it->second;
  ThreadSlot& s = slots_[k.slot];
  if (s.os_tid.load(std::memory_order_relaxed) == os_tid && k.announced) return;
  // The runtime reports the assignment on the thread itself, where its stack can be read.
  uintptr_t lo = 0, hi = 0;
  if (platform::current_tid() == os_tid && platform::current_thread_stack(&lo, &hi)) {
    s.stack_lo.store(lo, std::memory_order_relaxed);
    s.stack_hi.store(hi, std::memory_order_release);
  }
  disarm_locked(k.slot);
  s.os_tid.store(os_tid, std::memory_order_release);
  arm_locked(k.slot);
  k.announced = true;
  events_.push_back(ThreadEvent{ThreadEvent::kStarted, k.wire_id, os_tid, clr_thread_id, platform::mono_now_ns(), k.name});
}

void ThreadRegistry::on_name_changed(uint64_t clr_thread_id, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  // A thread named before it starts may be named before the runtime reports it created.
  register_locked(clr_thread_id);
  auto it = by_clr_id_.find(clr_thread_id);
  if (it == by_clr_id_.end()) return;
  it->second.name = name;
  // Before the tid is known the name simply rides along with the kStarted event.
  if (!it->second.announced) return;
  const ThreadSlot& s = slots_[it->second.slot];
  events_.push_back(ThreadEvent{ThreadEvent::kRenamed, it->second.wire_id, s.os_tid.load(std::memory_order_relaxed),
                                clr_thread_id, platform::mono_now_ns(), name});
}

void ThreadRegistry::on_destroyed(uint64_t clr_thread_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_clr_id_.find(clr_thread_id);
  if (it == by_clr_id_.end()) return;
  const Known k = it->second;
  by_clr_id_.erase(it);
  live_.fetch_sub(1, std::memory_order_relaxed);
  ThreadSlot& s = slots_[k.slot];
  disarm_locked(k.slot);
  const uint32_t tid = s.os_tid.load(std::memory_order_relaxed);
  // A handler still in flight sees a different wire id and drops its capture.
  s.wire_id.store(0, std::memory_order_release);
  s.os_tid.store(0, std::memory_order_relaxed);
  s.stack_hi.store(0, std::memory_order_relaxed);
  s.state.store(ThreadSlot::kFree, std::memory_order_release);
  if (k.announced) {
    events_.push_back(ThreadEvent{ThreadEvent::kEnded, k.wire_id, tid, clr_thread_id, platform::mono_now_ns(), std::string()});
  }
}

void ThreadRegistry::take_events(std::vector<ThreadEvent>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->insert(out->end(), std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
  events_.clear();
}

void ThreadRegistry::disarm_all() {
  std::lock_guard<std::mutex> lock(mu_);
  cpu_timers_ = false;
  const uint32_t limit = slot_limit_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < limit; ++i) disarm_locked(i);
}

void ThreadRegistry::arm_locked(uint32_t index) {
  ThreadSlot& s = slots_[index];
  if (!cpu_timers_ || s.timer_armed || s.os_tid.load(std::memory_order_relaxed) == 0) return;
  if (platform::arm_cpu_timer(s, index, cpu_interval_ns_)) s.timer_armed = true;
}

void ThreadRegistry::disarm_locked(uint32_t index) {
  ThreadSlot& s = slots_[index];
  if (!s.timer_armed) return;
  platform::disarm_cpu_timer(s);
  s.timer_armed = false;
}

}  // namespace clrscope
