#pragma once
// The tasks the async tracker knows (core/async_tracker.h), by their whole 32-bit id: each task's
// name and the task awaiting it, from its TraceOperationBegin until a little after its
// TraceOperationEnd. Task ids come from one Int32 counter that wraps through the negatives past
// 2^31 (skipping only 0), so every 32-bit value but 0 is a task id: no id bits are dropped and no
// value is reserved as a marker. An entry lives as long as its operation: it is removed only by
// the sampler's sweep, kSweepGrace sweeps after the operation ended, so a sample taken just
// before the end still finds its chain when the sampler names it.
//
// Bound: kStripes stripes of kStripeSlots slots (16 bytes each, 8 MiB in all), each holding at
// most kStripeLive live entries (393,216 in all). A task that begins in a full stripe is not
// kept: it is counted (dropped()), and a chain reaching it ends there ("?"); a live entry is
// never evicted for a newer one. A task that never ends (an abandoned TaskCompletionSource's
// promise) keeps its entry until the recording ends.
//
// Concurrency: on_event runs on the application's threads and the sampler reads; each stripe has
// its own lock, held for one probe sequence (never in a signal handler), so threads rarely meet.
#include <atomic>
#include <cstdint>
#include <mutex>

namespace clrscope {

class TaskTable {
 public:
  static constexpr uint32_t kStripes = 64;
  static constexpr uint32_t kStripeSlots = 1u << 13;
  static constexpr uint32_t kStripeLive = kStripeSlots / 4 * 3;
  static constexpr uint32_t kCapacity = kStripes * kStripeLive;
  // Sweeps (sampler ticks) an ended task's entry survives.
  static constexpr uint32_t kSweepGrace = 4;

  TaskTable();
  ~TaskTable();
  TaskTable(const TaskTable&) = delete;
  TaskTable& operator=(const TaskTable&) = delete;

  // A task begins with its name (an interned index, 0 unknown). An entry already there (an id met
  // again) is renamed and made live again. False when its stripe is full: counted, not kept.
  bool begin(uint32_t id, uint32_t name);
  // `awaiter` awaits task `id`. False when `id` has no entry (a task that never began: nothing
  // runs it, so no chain starts or passes there).
  bool set_awaiter(uint32_t id, uint32_t awaiter);
  // The task ended: its entry goes at a sweep kSweepGrace sweeps from now.
  void end(uint32_t id);
  uint32_t awaiter_of(uint32_t id) const;
  uint32_t name_of(uint32_t id) const;

  // Sampler thread: one sweep, over `stripes` stripes from where the previous one stopped,
  // removing the entries of tasks that ended kSweepGrace or more sweeps ago.
  void sweep(uint32_t stripes);

  uint64_t live() const { return live_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t removed() const { return removed_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    uint32_t id;       // 0: free (no task has id 0)
    uint32_t awaiter;  // 0: none known
    uint32_t name;
    uint32_t ended;    // 0: live; else the sweep count when it ended, plus one
  };
  struct Stripe {
    std::mutex lock;
    uint32_t count = 0;
    Entry* slots = nullptr;
  };
  static uint32_t mix(uint32_t id);
  // The slot holding `id` in its stripe, or kStripeSlots. Caller holds the stripe's lock.
  static uint32_t find(const Stripe& s, uint32_t id);
  static void erase_at(Stripe& s, uint32_t at);
  Stripe& stripe_of(uint32_t id) const { return stripes_[mix(id) >> 26]; }

  Stripe* stripes_;
  std::atomic<uint32_t> sweeps_{0};
  uint32_t cursor_ = 0;
  std::atomic<uint64_t> live_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> removed_{0};
};

}  // namespace clrscope
