#pragma once
// The managed threads the runtime told us about, in a fixed table of slots so that a signal
// handler can find a thread's state by index without locks or allocation. Runtime callbacks
// change it under a mutex; the sampler thread turns the queued changes into stream records.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace clrscope {

constexpr uint32_t kMaxThreads = 4096;

struct ThreadSlot {
  enum State : uint32_t { kFree = 0, kLive = 1 };
  std::atomic<uint32_t> state{kFree};
  std::atomic<uint32_t> wire_id{0};  // never reused; checked by the handler against its request
  std::atomic<uint32_t> os_tid{0};
  std::atomic<uintptr_t> stack_lo{0};
  std::atomic<uintptr_t> stack_hi{0};  // 0: bounds not known yet
  // Written only by the signal handler running on this very thread (after arming).
  uint64_t last_cpu_ns = 0;
  // Wall-time value the sampler asks the handler to record; 0 means no request outstanding.
  std::atomic<uint64_t> pending_wall_ns{0};
  // Sampler-thread only.
  uint64_t last_wall_mono = 0;
  uint64_t wall_requested_mono = 0;
  // Registry mutex.
  uint64_t clr_thread_id = 0;
  uintptr_t timer = 0;
  bool timer_armed = false;
};

struct ThreadEvent {
  enum Kind : uint8_t { kStarted, kRenamed, kEnded };
  Kind kind;
  uint32_t wire_id;
  uint32_t os_tid;
  uint64_t clr_thread_id;
  uint64_t mono;
  std::string name;
};

class ThreadRegistry {
 public:
  ThreadRegistry();
  ThreadRegistry(const ThreadRegistry&) = delete;
  ThreadRegistry& operator=(const ThreadRegistry&) = delete;

  // CPU timers are armed as soon as a thread's OS id is known, on whatever thread reports it.
  void configure_cpu_timers(bool enabled, uint64_t interval_ns);

  // Runtime callbacks (normal context, any thread).
  void on_created(uint64_t clr_thread_id);
  void on_assigned_os_thread(uint64_t clr_thread_id, uint32_t os_tid);
  void on_name_changed(uint64_t clr_thread_id, const std::string& name);
  void on_destroyed(uint64_t clr_thread_id);

  // Sampler side.
  void take_events(std::vector<ThreadEvent>* out);
  ThreadSlot& slot(uint32_t index) { return slots_[index]; }
  uint32_t slot_limit() const { return slot_limit_.load(std::memory_order_acquire); }
  // Stop every CPU timer (going quiet or shutting down).
  void disarm_all();
  uint64_t threads_refused() const { return refused_.load(std::memory_order_relaxed); }
  // Managed threads the runtime has reported and not yet destroyed, and all it ever reported.
  uint32_t live_threads() const { return live_.load(std::memory_order_relaxed); }
  uint64_t threads_seen() const { return seen_.load(std::memory_order_relaxed); }

 private:
  struct Known {
    uint32_t slot;
    uint32_t wire_id;
    std::string name;
    bool announced;  // a kStarted event was queued (needs the OS tid first)
  };
  uint32_t claim_slot_locked();
  void register_locked(uint64_t clr_thread_id);
  void arm_locked(uint32_t index);
  void disarm_locked(uint32_t index);

  ThreadSlot* slots_;
  std::atomic<uint32_t> slot_limit_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint32_t> live_{0};
  std::atomic<uint64_t> seen_{0};
  std::mutex mu_;
  std::unordered_map<uint64_t, Known> by_clr_id_;
  std::vector<ThreadEvent> events_;
  uint32_t next_wire_id_ = 1;
  uint32_t free_hint_ = 0;
  bool cpu_timers_ = false;
  uint64_t cpu_interval_ns_ = 0;
};

}  // namespace clrscope
