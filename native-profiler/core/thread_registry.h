#pragma once
// The threads of the process, in a fixed table of slots so that a signal handler can find a
// thread's state by index without locks or allocation: the managed threads the runtime tells
// us about, and the threads it does not (its GC and other native workers, threads of native
// libraries), which the sampler finds in the OS's thread list and samples for CPU only.
// Runtime callbacks and the sampler change it under a mutex; the sampler turns the queued
// changes into stream records.
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
  // Stack bounds and the identity of the thread they belong to (pthread_self on Linux), under
  // a sequence lock: bounds_seq is odd while they change. A handler trusts them only when the
  // sequence held still, the identity is its own and its stack pointer lies inside; anything
  // else (a slot reused, a tid reused, a thread on its alternate signal stack) reads no stack.
  std::atomic<uint32_t> bounds_seq{0};
  std::atomic<uintptr_t> stack_lo{0};
  std::atomic<uintptr_t> stack_hi{0};  // 0: bounds not known yet
  std::atomic<uintptr_t> self{0};
  // The thread's CPU clock at its previous CPU sample: set when its timer is armed, then
  // advanced by the signal handler running on the thread itself.
  std::atomic<uint64_t> last_cpu_ns{0};
  // Wall-time value the sampler asks the handler to record; 0 means no request outstanding.
  std::atomic<uint64_t> pending_wall_ns{0};
  // A walk that cost the thread more than a tick's share holds its next ones back until the
  // thread has run this far, on its CPU clock (CPU ticks) and on the monotonic clock (wall
  // requests): core/walk_pacing.h.
  std::atomic<uint64_t> walk_after_cpu_ns{0};
  std::atomic<uint64_t> walk_after_mono{0};
  // The async state machine box the thread runs (TPL task id; 0: none), set by the thread itself
  // from its TPL events (core/async_tracker.h) and copied into each capture.
  std::atomic<uint32_t> async_box{0};
  // Async stacks read from the heap: the thread's own stack of running boxes (core/box_stack.h),
  // set by the thread itself; the handler trusts it only after checking its owner.
  std::atomic<uintptr_t> box_stack{0};
  // 1 while the thread itself performs a garbage collection (from the runtime's
  // GarbageCollectionStarted to its GarbageCollectionFinished on this thread), copied into each
  // capture so the sample's stack gets a [GC] frame.
  std::atomic<uint32_t> collecting{0};
  // 1 while the thread's CPU timer is armed: only then is last_cpu_ns its CPU at a capture,
  // which the sampler compares with its clock (core/unanswered_cpu.cpp).
  std::atomic<uint32_t> cpu_timed{0};
  // Registry mutex.
  uint64_t clr_thread_id = 0;  // 0 for threads the runtime did not report
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
  bool native;  // not a thread the runtime reported: sampled for CPU only
  // kEnded, reported on the thread itself: the CPU it used since its last capture (its last
  // partial interval, or more when it blocked the capture signal), which no capture will bring.
  uint64_t final_cpu_ns = 0;
};

// A thread of the process as the OS lists it.
struct OsThread {
  uint32_t tid;
  std::string name;
};

class ThreadRegistry {
 public:
  ThreadRegistry();
  ~ThreadRegistry();
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
  // The OS's current list of threads: those no slot knew at the previous call either become
  // native threads (their CPU counted from birth when `born_since_last` said, at that call,
  // that they started after the one before, else from now); native threads missing from the
  // list have ended. Returns how many came.
  uint32_t sync_os_threads(const std::vector<OsThread>& threads, bool born_since_last);
  // Stack bounds learned for a slot's thread from outside it (from a capture's stack pointer).
  void learn_bounds(uint32_t index, uint32_t wire_id, uintptr_t lo, uintptr_t hi, uintptr_t self);
  void take_events(std::vector<ThreadEvent>* out);
  // The thread with this OS id starts or stops performing a garbage collection (the runtime's GC
  // callbacks, on the collecting thread). False when the thread has no slot.
  bool set_collecting(uint32_t tid, bool collecting);
  // A wire id for a thread of the stream that is no thread of the process (the sampler's
  // synthetic "[async operations]" thread): never given to a thread.
  uint32_t reserve_wire_id();
  // The slot and wire id of the thread with this OS id (a runtime callback asking for its own).
  bool slot_of_tid(uint32_t tid, uint32_t* index, uint32_t* wire_id);
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
  bool register_locked(uint64_t clr_thread_id);
  uint32_t open_slot_locked(uint64_t clr_thread_id);
  void close_slot_locked(uint32_t index, uint32_t wire_id, bool announced, bool native);
  void set_bounds_locked(ThreadSlot& s, uintptr_t lo, uintptr_t hi, uintptr_t self);
  void arm_locked(uint32_t index, const uint64_t* cpu_base);
  void disarm_locked(uint32_t index);
  void end_native_locked(uint32_t tid);

  ThreadSlot* slots_;
  std::atomic<uint32_t> slot_limit_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint32_t> live_{0};
  std::atomic<uint64_t> seen_{0};
  std::mutex mu_;
  std::unordered_map<uint64_t, Known> by_clr_id_;
  std::unordered_map<uint32_t, Known> natives_;  // by OS tid
  std::unordered_map<uint32_t, uint32_t> tid_slots_;  // OS tid -> slot, managed and native
  // Threads the last look found unreported, and whether they were born since the look before.
  std::unordered_map<uint32_t, bool> unreported_;
  std::vector<ThreadEvent> events_;
  uint32_t next_wire_id_ = 1;
  uint32_t free_hint_ = 0;
  bool cpu_timers_ = false;
  uint64_t cpu_interval_ns_ = 0;
};

}  // namespace clrscope
