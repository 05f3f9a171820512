#include "core/thread_registry.h"

#include <unordered_set>

#include "core/page_memory.h"
#include "core/platform.h"

namespace clrscope {

ThreadRegistry::ThreadRegistry() {
  void* p = big_alloc(sizeof(ThreadSlot) * kMaxThreads);
  if (p == nullptr) throw std::bad_alloc();
  slots_ = static_cast<ThreadSlot*>(p);
  for (uint32_t i = 0; i < kMaxThreads; ++i) new (&slots_[i]) ThreadSlot{};
}

// Only after the capture signal is gone and every handler has returned (detach, tests).
ThreadRegistry::~ThreadRegistry() {
  for (uint32_t i = 0; i < kMaxThreads; ++i) slots_[i].~ThreadSlot();
  big_free(slots_, sizeof(ThreadSlot) * kMaxThreads);
}

uint32_t ThreadRegistry::reserve_wire_id() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_wire_id_++;
}

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

void ThreadRegistry::set_bounds_locked(ThreadSlot& s, uintptr_t lo, uintptr_t hi, uintptr_t self) {
  const uint32_t seq = s.bounds_seq.load(std::memory_order_relaxed);
  s.bounds_seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.stack_lo.store(lo, std::memory_order_relaxed);
  s.stack_hi.store(hi, std::memory_order_relaxed);
  s.self.store(self, std::memory_order_relaxed);
  s.bounds_seq.store(seq + 2, std::memory_order_release);
}

uint32_t ThreadRegistry::open_slot_locked(uint64_t clr_thread_id) {
  const uint32_t index = claim_slot_locked();
  if (index == kMaxThreads) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return kMaxThreads;
  }
  ThreadSlot& s = slots_[index];
  s.clr_thread_id = clr_thread_id;
  s.os_tid.store(0, std::memory_order_relaxed);
  set_bounds_locked(s, 0, 0, 0);
  s.pending_wall_ns.store(0, std::memory_order_relaxed);
  s.walk_after_cpu_ns.store(0, std::memory_order_relaxed);
  s.walk_after_mono.store(0, std::memory_order_relaxed);
  s.async_box.store(0, std::memory_order_relaxed);
  s.box_stack.store(0, std::memory_order_relaxed);
  s.collecting.store(0, std::memory_order_relaxed);
  s.wire_id.store(next_wire_id_++, std::memory_order_release);
  if (index + 1 > slot_limit_.load(std::memory_order_relaxed)) slot_limit_.store(index + 1, std::memory_order_release);
  // Reserve the slot so claim_slot_locked skips it while the tid is unknown.
  s.state.store(ThreadSlot::kLive, std::memory_order_release);
  return index;
}

void ThreadRegistry::close_slot_locked(uint32_t index, uint32_t wire_id, bool announced, bool native) {
  ThreadSlot& s = slots_[index];
  disarm_locked(index);
  const uint32_t tid = s.os_tid.load(std::memory_order_relaxed);
  // A handler still in flight sees a different wire id and drops its capture.
  s.wire_id.store(0, std::memory_order_release);
  s.os_tid.store(0, std::memory_order_relaxed);
  set_bounds_locked(s, 0, 0, 0);
  s.state.store(ThreadSlot::kFree, std::memory_order_release);
  if (tid != 0) {
    auto it = tid_slots_.find(tid);
    if (it != tid_slots_.end() && it->second == index) tid_slots_.erase(it);
  }
  if (announced) {
    events_.push_back(ThreadEvent{ThreadEvent::kEnded, wire_id, tid, s.clr_thread_id, platform::mono_now_ns(),
                                  std::string(), native});
  }
}

void ThreadRegistry::on_created(uint64_t clr_thread_id) {
  std::lock_guard<std::mutex> lock(mu_);
  register_locked(clr_thread_id);
}

bool ThreadRegistry::register_locked(uint64_t clr_thread_id) {
  if (by_clr_id_.count(clr_thread_id) != 0) return true;
  const uint32_t index = open_slot_locked(clr_thread_id);
  if (index == kMaxThreads) return false;
  // Live only once the OS tid is known: until then nobody can signal it.
  by_clr_id_[clr_thread_id] = Known{index, slots_[index].wire_id.load(std::memory_order_relaxed), std::string(), false};
  live_.fetch_add(1, std::memory_order_relaxed);
  seen_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ThreadRegistry::on_assigned_os_thread(uint64_t clr_thread_id, uint32_t os_tid) {
  std::lock_guard<std::mutex> lock(mu_);
  // After an attach, or a missed ThreadCreated, the thread is first seen here.
  if (!register_locked(clr_thread_id)) return;
  Known& k = by_clr_id_[clr_thread_id];
  ThreadSlot& s = slots_[k.slot];
  if (s.os_tid.load(std::memory_order_relaxed) == os_tid && k.announced) return;
  // A thread that ran native code before the runtime took it in was sampled as a native thread:
  // it keeps that slot and stream id (its CPU so far is accounted there), and the slot
  // reserved for it at ThreadCreated is given back unused.
  auto native = natives_.find(os_tid);
  if (native != natives_.end() && !k.announced) {
    const Known n = native->second;
    natives_.erase(native);
    close_slot_locked(k.slot, k.wire_id, false, false);
    k.slot = n.slot;
    k.wire_id = n.wire_id;
    k.announced = true;
    ThreadSlot& ns = slots_[n.slot];
    ns.clr_thread_id = clr_thread_id;
    uintptr_t lo = 0, hi = 0;
    if (platform::current_tid() == os_tid && platform::current_thread_stack(&lo, &hi)) {
      set_bounds_locked(ns, lo, hi, platform::current_thread_identity());
    }
    events_.push_back(ThreadEvent{ThreadEvent::kStarted, k.wire_id, os_tid, clr_thread_id, platform::mono_now_ns(),
                                  k.name, false});
    return;
  }
  // The runtime reports the assignment on the thread itself, where its stack can be read.
  uintptr_t lo = 0, hi = 0;
  if (platform::current_tid() == os_tid && platform::current_thread_stack(&lo, &hi)) {
    set_bounds_locked(s, lo, hi, platform::current_thread_identity());
  }
  disarm_locked(k.slot);
  const uint32_t old_tid = s.os_tid.load(std::memory_order_relaxed);
  if (old_tid != 0 && old_tid != os_tid) tid_slots_.erase(old_tid);
  s.os_tid.store(os_tid, std::memory_order_release);
  tid_slots_[os_tid] = k.slot;
  arm_locked(k.slot, nullptr);
  k.announced = true;
  events_.push_back(ThreadEvent{ThreadEvent::kStarted, k.wire_id, os_tid, clr_thread_id, platform::mono_now_ns(), k.name,
                                false});
}

void ThreadRegistry::on_name_changed(uint64_t clr_thread_id, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  // A thread named before it starts may be named before the runtime reports it created.
  if (!register_locked(clr_thread_id)) return;
  Known& k = by_clr_id_[clr_thread_id];
  k.name = name;
  // Before the tid is known the name simply rides along with the kStarted event.
  if (!k.announced) return;
  const ThreadSlot& s = slots_[k.slot];
  events_.push_back(ThreadEvent{ThreadEvent::kRenamed, k.wire_id, s.os_tid.load(std::memory_order_relaxed),
                                clr_thread_id, platform::mono_now_ns(), name, false});
}

void ThreadRegistry::on_destroyed(uint64_t clr_thread_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_clr_id_.find(clr_thread_id);
  if (it == by_clr_id_.end()) return;
  const Known k = it->second;
  by_clr_id_.erase(it);
  live_.fetch_sub(1, std::memory_order_relaxed);
  // Told on the thread itself (the runtime's usual way), its CPU clock is at hand one last time.
  uint64_t final_cpu = 0;
  ThreadSlot& s = slots_[k.slot];
  if (s.cpu_timed.load(std::memory_order_acquire) != 0 &&
      s.os_tid.load(std::memory_order_relaxed) == platform::current_tid()) {
    const uint64_t cpu = platform::current_thread_cpu_ns();
    uint64_t mark = s.last_cpu_ns.load(std::memory_order_relaxed);
    while (cpu > mark && !s.last_cpu_ns.compare_exchange_weak(mark, cpu, std::memory_order_acq_rel)) {
    }
    if (cpu > mark) final_cpu = cpu - mark;
  }
  close_slot_locked(k.slot, k.wire_id, k.announced, false);
  if (final_cpu != 0 && k.announced && !events_.empty() && events_.back().kind == ThreadEvent::kEnded &&
      events_.back().wire_id == k.wire_id) {
    events_.back().final_cpu_ns = final_cpu;
  }
}

void ThreadRegistry::end_native_locked(uint32_t tid) {
  auto it = natives_.find(tid);
  if (it == natives_.end()) return;
  const Known k = it->second;
  natives_.erase(it);
  close_slot_locked(k.slot, k.wire_id, true, true);
}

uint32_t ThreadRegistry::sync_os_threads(const std::vector<OsThread>& threads, bool born_since_last) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unordered_set<uint32_t> present;
  present.reserve(threads.size());
  std::unordered_map<uint32_t, bool> candidates;
  uint32_t added = 0;
  for (const OsThread& t : threads) {
    present.insert(t.tid);
    if (tid_slots_.count(t.tid) != 0) continue;
    // A thread the runtime is about to report shows up in the OS's list a moment earlier;
    // only one still unreported at the next look is taken for a native thread.
    auto seen = unreported_.find(t.tid);
    if (seen == unreported_.end()) {
      candidates.emplace(t.tid, born_since_last);
      continue;
    }
    const uint32_t index = open_slot_locked(0);
    if (index == kMaxThreads) break;
    ThreadSlot& s = slots_[index];
    const uint32_t wire_id = s.wire_id.load(std::memory_order_relaxed);
    natives_[t.tid] = Known{index, wire_id, t.name, true};
    tid_slots_[t.tid] = index;
    s.os_tid.store(t.tid, std::memory_order_release);
    const uint64_t from_birth = 0;
    arm_locked(index, seen->second ? &from_birth : nullptr);
    events_.push_back(ThreadEvent{ThreadEvent::kStarted, wire_id, t.tid, 0, platform::mono_now_ns(), t.name, true});
    ++added;
  }
  unreported_ = std::move(candidates);
  std::vector<uint32_t> gone;
  for (const auto& [tid, k] : natives_) {
    if (present.count(tid) == 0) gone.push_back(tid);
  }
  for (uint32_t tid : gone) end_native_locked(tid);
  return added;
}

void ThreadRegistry::learn_bounds(uint32_t index, uint32_t wire_id, uintptr_t lo, uintptr_t hi, uintptr_t self) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index >= kMaxThreads) return;
  ThreadSlot& s = slots_[index];
  if (s.wire_id.load(std::memory_order_relaxed) != wire_id) return;
  set_bounds_locked(s, lo, hi, self);
}

bool ThreadRegistry::set_collecting(uint32_t tid, bool collecting) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tid_slots_.find(tid);
  if (it == tid_slots_.end()) return false;
  ThreadSlot& s = slots_[it->second];
  if (s.state.load(std::memory_order_relaxed) != ThreadSlot::kLive) return false;
  s.collecting.store(collecting ? 1u : 0u, std::memory_order_relaxed);
  return true;
}

bool ThreadRegistry::slot_of_tid(uint32_t tid, uint32_t* index, uint32_t* wire_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tid_slots_.find(tid);
  if (it == tid_slots_.end()) return false;
  const ThreadSlot& s = slots_[it->second];
  if (s.state.load(std::memory_order_relaxed) != ThreadSlot::kLive) return false;
  *index = it->second;
  *wire_id = s.wire_id.load(std::memory_order_relaxed);
  return *wire_id != 0;
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

void ThreadRegistry::arm_locked(uint32_t index, const uint64_t* cpu_base) {
  ThreadSlot& s = slots_[index];
  if (!cpu_timers_ || s.timer_armed || s.os_tid.load(std::memory_order_relaxed) == 0) return;
  if (!platform::arm_cpu_timer(s, index, cpu_interval_ns_)) return;
  s.timer_armed = true;
  // The timer counts from now; the first sample's value counts from the base.
  if (cpu_base != nullptr) s.last_cpu_ns.store(*cpu_base, std::memory_order_relaxed);
  s.cpu_timed.store(1, std::memory_order_release);
}

void ThreadRegistry::disarm_locked(uint32_t index) {
  ThreadSlot& s = slots_[index];
  if (!s.timer_armed) return;
  s.cpu_timed.store(0, std::memory_order_release);
  platform::disarm_cpu_timer(s);
  s.timer_armed = false;
}

}  // namespace clrscope
