#pragma once
// Async call stacks, design A of issue 14 (experimental, CLRSCOPE_ASYNC=1): the TPL event source's
// task events, delivered synchronously to the profiler's in-process EventPipe session on the
// thread that raised them, give
//   - TaskWaitBegin: an await edge, awaited task id -> the awaiting method's box id;
//   - TraceOperationBegin: a box id -> its state machine's type name (`<Inner>d__2`);
//   - TraceSynchronousWorkBegin/End: the box a thread runs from now on / no longer.
// The running box goes into the thread's registry slot, where the signal handler copies it into
// each sample with one load; edges and names are kept per task by its whole id for as long as the
// task lives (core/task_table.h, bounded, counted at the bound). The payloads are read by
// core/tpl_event_payloads.h.
//
// Operations (async methods' boxes, TraceOperationBegin to TraceOperationEnd) also live in a fixed
// table, each with a clock of the time it spends suspended at the leaf of its chain (alive, run by
// no thread, not awaiting another live operation), kept in one atomic word the emitting thread
// changes with a compare-and-swap; the sampler thread charges that time (take_suspended), so the
// time a request spends awaiting a timer or I/O, which no thread's stack shows, has its chain.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/task_names.h"
#include "core/task_table.h"
#include "core/tpl_event_payloads.h"

namespace clrscope {

class ThreadRegistry;

// The wall time an async operation spent suspended at the leaf of its chain, charged once
// (AsyncTracker::take_suspended).
struct SuspendedCharge {
  uint32_t task;     // the operation's box (task id)
  uint32_t awaited;  // the task it awaits (0: unknown, e.g. Task.Yield or an IValueTaskSource)
  uint64_t wall_ns;  // suspended-at-the-leaf time since its previous charge
  bool suspended;    // still suspended at the leaf when charged: it sits there now
};

class AsyncTracker final : public TaskNames {
 public:
  // Table sizes (powers of two).
  static constexpr uint32_t kNameSlots = 4096;  // distinct state machine type names
  static constexpr uint32_t kNameBytes = 120;
  static constexpr uint32_t kDepth = 16;  // nested synchronous work per thread (inline continuations)
  // Live operations (async methods' boxes between TraceOperationBegin and End) tracked at once;
  // more are not tracked (ops_dropped). A box's candidate slots are the 16 of one cache line,
  // chosen by its id, so a lookup reads one line.
  static constexpr uint32_t kOpSlots = 1u << 14;
  static constexpr uint32_t kOpLine = 16;

  explicit AsyncTracker(ThreadRegistry* registry);
  ~AsyncTracker();
  AsyncTracker(const AsyncTracker&) = delete;
  AsyncTracker& operator=(const AsyncTracker&) = delete;

  // One TplEventSource event, on the thread that raised it (normal context). Returns whether it
  // was one this tracker reads.
  bool on_event(uint32_t event_id, const uint8_t* data, size_t size);

  // Sampler side (any thread): the box that awaits `id` (0: unknown) and a box's name ("": unknown).
  uint32_t awaiter_of(uint32_t id) const override;
  std::string name_of(uint32_t id) const override;
  // A task's name as an interned index (1..kNameSlots; 0: unknown), and the index's text: equal
  // indexes are equal names, so the sampler compares chains without making strings.
  uint32_t name_index_of(uint32_t id) const;
  std::string name_at(uint32_t index) const;
  // The box the calling thread runs now (0: none), as its TraceSynchronousWork events said.
  uint32_t running_box() const;
  // The chain from `box` outwards as "name<name<...", at most `levels` deep, cycle-safe.
  std::string chain(uint32_t box, uint32_t levels = 32) const;

  // Sampler thread only. Visits the live operations from where the previous call stopped and
  // charges each the time it spent suspended at the leaf of its chain since its previous charge
  // (alive, not running, and not awaiting another live operation, whose own time that is), at
  // most `max` charges; operations that ended are charged their rest and forgotten. `now` on the
  // clock of set_clock (the monotonic clock). Returns the number of charges written to `out`.
  size_t take_suspended(uint64_t now, SuspendedCharge* out, size_t max);
  // The clock of operation events (tests; the monotonic clock by default).
  void set_clock(uint64_t (*clock)()) {
    clock_ = clock;
    base_ = clock();
  }
  // Operations alive now, by a scan (tests, the end-of-stream log).
  uint32_t live_ops() const;

  uint64_t events() const { return events_.load(std::memory_order_relaxed); }
  uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  uint64_t names_dropped() const { return names_dropped_.load(std::memory_order_relaxed); }
  uint64_t depth_overflows() const { return depth_overflows_.load(std::memory_order_relaxed); }
  uint64_t ops_dropped() const { return ops_dropped_.load(std::memory_order_relaxed); }
  uint64_t ops_tracked() const { return ops_tracked_.load(std::memory_order_relaxed); }
  // Task.WhenAll combinators given branches: operations begun just before them on their thread that
  // nothing had awaited (async_tracker.cpp, "Orphans").
  uint64_t fan_ins() const { return fan_ins_.load(std::memory_order_relaxed); }

  // Tasks whose name and awaiter are kept now, not kept (table full) and let go after they ended.
  uint64_t tasks_live() const { return tasks_.live(); }
  uint64_t tasks_dropped() const { return tasks_.dropped(); }
  uint64_t tasks_removed() const { return tasks_.removed(); }
  // Sampler thread, each tick: lets go of the entries of tasks that ended a few ticks ago.
  void sweep_tasks() { tasks_.sweep(kSweepStripesPerTick); }
  static constexpr uint32_t kSweepStripesPerTick = 4;

  // Raw payloads of the first few events of each kind, logged once (CLRSCOPE_ASYNC_LOG=1).
  void set_log_payloads(bool on) { log_payloads_ = on; }

 private:
  void set_current(uint32_t box, uint32_t op_slot, bool begin);
  uint32_t intern(const std::string& name);
  // Operations (see the state word below).
  uint32_t find_op(uint32_t id) const;  // its slot, or kOpSlots
  bool op_alive(uint32_t id) const;
  // An operation begins (`branches` 0), or a combinator standing for that many live branches.
  bool op_begin(uint32_t id, uint32_t branches);
  void op_awaits(uint32_t awaiter, uint32_t awaited);
  void op_end(uint32_t id);
  // The combinator's last live branch ended: its awaiter is the leaf again.
  void give_back(uint32_t combinator);
  // This thread's orphans (async_tracker.cpp).
  void add_orphan(uint32_t id);
  void fan_in(uint32_t combinator);
  // Changes an operation's state word by `change`, keeping its leaf clock in the right form.
  template <typename Change>
  void op_transit(uint32_t slot, Change change);
  uint64_t now_rel() const;

  ThreadRegistry* registry_;
  TaskTable tasks_;
  struct NameSlot {
    std::atomic<uint64_t> hash;
    std::atomic<uint32_t> ready;
    char text[kNameBytes + 1];
  };
  NameSlot* name_table_;
  std::atomic<uint64_t> events_{0};     // read (edges, names, running boxes)
  std::atomic<uint64_t> delivered_{0};  // all TplEventSource events given to on_event
  std::atomic<uint64_t> names_dropped_{0};
  std::atomic<uint64_t> depth_overflows_{0};
  std::atomic<uint64_t> ops_dropped_{0};
  std::atomic<uint64_t> ops_tracked_{0};
  std::atomic<uint64_t> fan_ins_{0};
  // The operation table. op_ids_: kOpPresent | the box id in each slot (0 free, kOpClaimed while
  // it is being filled: both outside the 32-bit id space, so every task id is storable);
  // op_awaited_: the task it awaits since it last ran (bit 32: awaited before it last ran); op_state_: one word, so a reader
  // never pairs one transition's flags with another's time (layout in async_tracker.cpp).
  std::atomic<uint64_t>* op_ids_;
  std::atomic<uint64_t>* op_awaited_;
  std::atomic<uint32_t>* op_branches_;  // a combinator's live branches
  std::atomic<uint64_t>* op_state_;
  // Sampler thread only: per slot, the id its charges belong to, the time charged so far and
  // how many visits found it ended but still running (a lost end of work).
  struct OpCharge {
    uint32_t id;
    uint32_t stale;
    uint64_t charged;
  };
  OpCharge* op_charges_;
  uint32_t op_cursor_ = 0;
  uint64_t (*clock_)();
  uint64_t base_ = 0;  // clock value at construction: the state word keeps times relative to it
  std::atomic<uint32_t> logged_[32] = {};
  bool log_payloads_ = false;
};

}  // namespace clrscope
