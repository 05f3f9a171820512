#include "core/async_tracker.h"

#include <cstring>
#include <new>

#include "core/log.h"
#include "core/platform.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

// The emitting thread's slot and its running boxes; the stack holds the boxes suspended under
// inline continuations, each with its operation's slot (kOpSlots: none), so the end of its work
// needs no lookup. A thread_local is this thread's for its whole life, so only the registry slot
// can change under it (closed and reused when the runtime reports the thread destroyed): its wire
// id is checked on every use, with no gettid system call per event. The stack is the thread's
// own, kept whether or not the registry knows the thread.
//
// Orphans: async methods' operations begun on this thread that nothing has awaited yet, per level
// of synchronous work (each level's own begin at its mark). A combinator begun next at the same
// level (`Task.WhenAll(Left(), Right())` evaluates its arguments first) takes them as its branches:
// CoreLib registers a combinator on its tasks without a TaskWaitBegin, so this is the only trace of
// which tasks it waits for.
constexpr uint32_t kOrphans = 128;
struct AsyncThread {
  uint32_t index = 0;
  uint32_t wire_id = 0;
  uint32_t depth = 0;
  uint32_t overflow = 0;  // levels begun past kDepth, not kept (their ends only pop this count)
  uint32_t stack[AsyncTracker::kDepth] = {};
  uint32_t op_slot[AsyncTracker::kDepth] = {};
  uint32_t orphan_count = 0;
  uint32_t orphan_mark[AsyncTracker::kDepth] = {};
  uint32_t orphans[kOrphans] = {};
};
thread_local AsyncThread t_async;

uint32_t t_async_current() { return t_async.depth > 0 ? t_async.stack[t_async.depth - 1] : 0; }

// Where the current level's orphans start.
uint32_t orphan_base() { return t_async.depth > 0 ? t_async.orphan_mark[t_async.depth - 1] : 0; }

// An awaited task is no orphan. Searched from the newest: a callee is awaited right after its box
// is made, so it is the last or next to last orphan.
void drop_orphan(uint32_t id) {
  const uint32_t base = orphan_base();
  for (uint32_t i = t_async.orphan_count; i > base; --i) {
    if (t_async.orphans[i - 1] != id) continue;
    t_async.orphans[i - 1] = t_async.orphans[t_async.orphan_count - 1];
    --t_async.orphan_count;
    return;
  }
}

// CoreLib's name of the combinator whose branches are the orphans before it. (WhenAny's promises,
// "TaskFactory.ContinueWhenAny" among them, end at their first branch: not taken.)
bool is_fan_in(const std::string& name) { return name == "Task.WhenAll"; }

ThreadSlot* own_slot(ThreadRegistry& registry) {
  if (t_async.wire_id != 0) {
    ThreadSlot& s = registry.slot(t_async.index);
    if (s.wire_id.load(std::memory_order_acquire) == t_async.wire_id) return &s;
  }
  uint32_t index = 0, wire_id = 0;
  if (!registry.slot_of_tid(platform::current_tid_remembered(), &index, &wire_id)) return nullptr;
  t_async.index = index;
  t_async.wire_id = wire_id;
  return &registry.slot(index);
}

// An operation's state word:
//   bit 63      L: its leaf clock runs (alive, not running, not awaiting a live operation)
//   bits 62..56 how many threads run it now (its MoveNext between SyncWorkBegin and End)
//   bit 55      ended (TraceOperationEnd seen)
//   bit 54      W: it awaits an operation that is alive
//   bit 53      a combinator (Task.WhenAll) standing for its branches: never a leaf
//   bits 52..0  L ? the leaf clock's virtual start (now - leaf time so far) : the leaf time so far,
//               in ns on the tracker's clock relative to its creation (2^53 ns: 104 days)
// so the leaf time at `now` is L ? now - value : value, and switching L is value = now - value.
constexpr uint64_t kLeaf = 1ull << 63;
constexpr int kRunShift = 56;
constexpr uint64_t kRunMask = 0x7Full << kRunShift;
constexpr uint64_t kEnded = 1ull << 55;
constexpr uint64_t kAwaitsOp = 1ull << 54;
constexpr uint64_t kCombinator = 1ull << 53;
constexpr uint64_t kValue = (1ull << 53) - 1;
// In op_ids_, above the 32-bit task id (task ids wrap through every 32-bit value but 0).
constexpr uint64_t kOpPresent = 1ull << 32;
constexpr uint64_t kOpClaimed = 2ull << 32;
// In op_awaited_: the task was awaited before the operation last began to run. Its charges for
// that suspension still name it; if the run ends without a new await, the next suspension awaits
// something unknown (Task.Yield, an IValueTaskSource) and it is cleared.
constexpr uint64_t kAwaitedBefore = 1ull << 32;
uint32_t awaited_task(uint64_t v) { return static_cast<uint32_t>(v); }
// Visits that find an ended operation still counted as running before it is let go (its end of
// work was never seen): 1,000 sampler ticks, 10 s at the default period.
constexpr uint32_t kStaleVisits = 1000;

uint32_t runs_of(uint64_t state) { return static_cast<uint32_t>((state & kRunMask) >> kRunShift); }

bool leaf_clock_runs(uint64_t state) { return runs_of(state) == 0 && (state & (kEnded | kAwaitsOp | kCombinator)) == 0; }

uint64_t leaf_time(uint64_t state, uint64_t now) {
  const uint64_t v = state & kValue;
  if ((state & kLeaf) == 0) return v;
  return now > v ? now - v : 0;
}

uint64_t default_clock() { return platform::mono_now_ns(); }

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (const char ch : s) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  return h == 0 ? 1 : h;
}

}  // namespace

AsyncTracker::AsyncTracker(ThreadRegistry* registry) : registry_(registry), clock_(default_clock) {
  name_table_ = new NameSlot[kNameSlots]();
  op_ids_ = new std::atomic<uint64_t>[kOpSlots]();
  op_awaited_ = new std::atomic<uint64_t>[kOpSlots]();
  op_branches_ = new std::atomic<uint32_t>[kOpSlots]();
  op_state_ = new std::atomic<uint64_t>[kOpSlots]();
  op_charges_ = new OpCharge[kOpSlots]();
  base_ = clock_();
}

AsyncTracker::~AsyncTracker() {
  delete[] name_table_;
  delete[] op_ids_;
  delete[] op_awaited_;
  delete[] op_branches_;
  delete[] op_state_;
  delete[] op_charges_;
}

uint64_t AsyncTracker::now_rel() const {
  const uint64_t now = clock_();
  return now > base_ ? now - base_ : 0;
}

uint32_t AsyncTracker::find_op(uint32_t id) const {
  const uint32_t line = id & (kOpSlots - 1) & ~(kOpLine - 1);
  for (uint32_t k = 0; k < kOpLine; ++k) {
    const uint32_t slot = line + ((id + k) & (kOpLine - 1));
    if (op_ids_[slot].load(std::memory_order_acquire) == (kOpPresent | id)) return slot;
  }
  return kOpSlots;
}

template <typename Change>
void AsyncTracker::op_transit(uint32_t slot, Change change) {
  std::atomic<uint64_t>& word = op_state_[slot];
  uint64_t old = word.load(std::memory_order_acquire);
  uint64_t now = 0;
  bool have_now = false;
  for (;;) {
    uint64_t next = change(old) & ~kLeaf;
    const bool leaf = leaf_clock_runs(next);
    uint64_t value = old & kValue;
    if (leaf != ((old & kLeaf) != 0)) {
      // The clock is read only when the leaf clock starts or stops.
      if (!have_now) {
        now = now_rel();
        have_now = true;
      }
      value = now > value ? now - value : 0;
    }
    next = (next & ~kValue) | (value & kValue) | (leaf ? kLeaf : 0);
    if (word.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire)) return;
  }
}

// A new operation is suspended from the start: its box is made at its first await that does not
// complete at once, inside the MoveNext its caller runs (no SyncWorkBegin of its own).
//
// A combinator (`branches` > 0) is an operation only so that its awaiter awaits a live operation
// while any of its branches lives: it is never a leaf itself (kCombinator), and the end of its
// last live branch gives the time back to its awaiter (op_end).
bool AsyncTracker::op_begin(uint32_t id, uint32_t branches) {
  const uint32_t line = id & (kOpSlots - 1) & ~(kOpLine - 1);
  for (uint32_t k = 0; k < kOpLine; ++k) {
    const uint32_t slot = line + ((id + k) & (kOpLine - 1));
    uint64_t expected = 0;
    if (op_ids_[slot].load(std::memory_order_relaxed) != 0) continue;
    if (!op_ids_[slot].compare_exchange_strong(expected, kOpClaimed, std::memory_order_acq_rel)) continue;
    op_awaited_[slot].store(0, std::memory_order_relaxed);
    op_branches_[slot].store(branches, std::memory_order_relaxed);
    op_state_[slot].store(branches > 0 ? kCombinator : kLeaf | (now_rel() & kValue), std::memory_order_relaxed);
    op_ids_[slot].store(kOpPresent | id, std::memory_order_release);
    ops_tracked_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  ops_dropped_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool AsyncTracker::op_alive(uint32_t id) const {
  const uint32_t slot = find_op(id);
  return slot != kOpSlots && (op_state_[slot].load(std::memory_order_acquire) & kEnded) == 0;
}

void AsyncTracker::fan_in(uint32_t combinator) {
  const uint32_t base = orphan_base();
  uint32_t branches = 0;
  for (uint32_t i = base; i < t_async.orphan_count; ++i) {
    const uint32_t branch = t_async.orphans[i];
    // One that already ended has nothing left to show under it.
    if (!op_alive(branch)) continue;
    tasks_.set_awaiter(branch, combinator);
    ++branches;
  }
  t_async.orphan_count = base;
  if (branches == 0) return;
  fan_ins_.fetch_add(1, std::memory_order_relaxed);
  op_begin(combinator, branches);
}

void AsyncTracker::add_orphan(uint32_t id) {
  if (t_async.orphan_count == kOrphans) {
    // Full (a thread that starts operations nothing awaits, never leaving its level): keep the
    // live ones of this level.
    const uint32_t base = orphan_base();
    uint32_t kept = base;
    for (uint32_t i = base; i < kOrphans; ++i) {
      if (op_alive(t_async.orphans[i])) t_async.orphans[kept++] = t_async.orphans[i];
    }
    t_async.orphan_count = kept;
    if (kept == kOrphans) return;
  }
  t_async.orphans[t_async.orphan_count++] = id;
}

void AsyncTracker::op_awaits(uint32_t awaiter, uint32_t awaited) {
  const uint32_t slot = find_op(awaiter);
  if (slot == kOpSlots) return;
  op_awaited_[slot].store(awaited, std::memory_order_relaxed);
  const uint32_t inner = find_op(awaited);
  if (inner == kOpSlots || (op_state_[inner].load(std::memory_order_acquire) & kEnded) != 0) return;
  // A combinator whose branches all ended already waits for tasks that are no operations.
  if ((op_state_[inner].load(std::memory_order_acquire) & kCombinator) != 0 && op_branches_[inner].load(std::memory_order_acquire) == 0) {
    return;
  }
  // Its time is the awaited operation's until that one ends (op_end gives it back).
  op_transit(slot, [](uint64_t s) { return s | kAwaitsOp; });
}

void AsyncTracker::op_end(uint32_t id) {
  const uint32_t slot = find_op(id);
  if (slot == kOpSlots) return;
  op_transit(slot, [](uint64_t s) { return s | kEnded; });
  // Its awaiter, if it awaits this one, is the leaf again (waiting to be run) until it runs.
  const uint32_t awaiter = awaiter_of(id);
  const uint32_t outer = awaiter == 0 ? kOpSlots : find_op(awaiter);
  if (outer == kOpSlots) return;
  if ((op_state_[outer].load(std::memory_order_acquire) & kCombinator) != 0) {
    // A branch: the combinator's awaiter waits on the other branches until the last live one ends.
    uint32_t left = op_branches_[outer].load(std::memory_order_acquire);
    while (left > 0 && !op_branches_[outer].compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) {
    }
    if (left == 1) give_back(awaiter);
    return;
  }
  if (awaited_task(op_awaited_[outer].load(std::memory_order_relaxed)) != id) return;
  op_transit(outer, [](uint64_t s) { return s & ~kAwaitsOp; });
}

void AsyncTracker::give_back(uint32_t combinator) {
  const uint32_t awaiter = awaiter_of(combinator);
  const uint32_t slot = awaiter == 0 ? kOpSlots : find_op(awaiter);
  if (slot == kOpSlots || awaited_task(op_awaited_[slot].load(std::memory_order_relaxed)) != combinator) return;
  op_transit(slot, [](uint64_t s) { return s & ~kAwaitsOp; });
}

uint32_t AsyncTracker::intern(const std::string& name) {
  const uint64_t h = fnv1a(name);
  for (uint32_t probe = 0; probe < 64; ++probe) {
    NameSlot& s = name_table_[(h + probe) & (kNameSlots - 1)];
    uint64_t seen = s.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (s.hash.compare_exchange_strong(seen, h, std::memory_order_acq_rel)) {
        const size_t n = name.size() < kNameBytes ? name.size() : kNameBytes;
        std::memcpy(s.text, name.data(), n);
        s.text[n] = '\0';
        s.ready.store(1, std::memory_order_release);
        return static_cast<uint32_t>((h + probe) & (kNameSlots - 1)) + 1;
      }
    }
    // A 64-bit hash match is taken as the same name: a collision would only mislabel a frame.
    if (seen == h) return static_cast<uint32_t>((h + probe) & (kNameSlots - 1)) + 1;
  }
  names_dropped_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

uint32_t AsyncTracker::running_box() const { return t_async_current(); }

void AsyncTracker::set_current(uint32_t box, uint32_t op_slot, bool begin) {
  uint32_t ended_slot = kOpSlots, ended_box = 0;
  if (begin) {
    if (t_async.depth < kDepth) {
      t_async.stack[t_async.depth] = box;
      t_async.op_slot[t_async.depth] = op_slot;
      t_async.orphan_mark[t_async.depth] = t_async.orphan_count;
      ++t_async.depth;
      if (op_slot != kOpSlots) {
        const uint64_t awaited = op_awaited_[op_slot].load(std::memory_order_relaxed);
        if (awaited != 0) op_awaited_[op_slot].store(awaited | kAwaitedBefore, std::memory_order_relaxed);
        op_transit(op_slot, [](uint64_t s) {
          const uint64_t runs = runs_of(s) < 0x7F ? runs_of(s) + 1 : 0x7F;
          return (s & ~(kRunMask | kAwaitsOp)) | runs << kRunShift;
        });
      }
    } else {
      // Deeper levels keep the deepest box kept; their ends only undo this count.
      depth_overflows_.fetch_add(1, std::memory_order_relaxed);
      ++t_async.overflow;
      return;
    }
  } else {
    if (t_async.overflow > 0) {
      --t_async.overflow;
      return;
    }
    if (t_async.depth > 0) {
      --t_async.depth;
      ended_slot = t_async.op_slot[t_async.depth];
      ended_box = t_async.stack[t_async.depth];
      // What the level began and left unawaited is no combinator's: it was started and not waited for.
      t_async.orphan_count = t_async.orphan_mark[t_async.depth];
    }
  }
  // The slot cannot be reused while the operation is counted as running (take_suspended frees
  // only operations that ended and run nowhere), so its id still names this box.
  if (ended_slot != kOpSlots && op_ids_[ended_slot].load(std::memory_order_acquire) == (kOpPresent | ended_box)) {
    // An operation that ended has no next suspension: its last charge names what it awaited.
    uint64_t awaited = op_awaited_[ended_slot].load(std::memory_order_relaxed);
    if ((awaited & kAwaitedBefore) != 0 && (op_state_[ended_slot].load(std::memory_order_acquire) & kEnded) == 0) {
      op_awaited_[ended_slot].compare_exchange_strong(awaited, 0, std::memory_order_relaxed);
    }
    op_transit(ended_slot, [](uint64_t s) {
      const uint64_t runs = runs_of(s) > 0 ? runs_of(s) - 1 : 0;
      return (s & ~kRunMask) | runs << kRunShift;
    });
  }
  ThreadSlot* slot = own_slot(*registry_);
  if (slot != nullptr) slot->async_box.store(t_async_current(), std::memory_order_relaxed);
}

bool AsyncTracker::on_event(uint32_t event_id, const uint8_t* data, size_t size) {
  delivered_.fetch_add(1, std::memory_order_relaxed);
  if (log_payloads_ && event_id < 32 && logged_[event_id].fetch_add(1, std::memory_order_relaxed) < 8) {
    char hex[3 * 96 + 1] = {};
    const size_t n = size < 96 ? size : 96;
    for (size_t i = 0; i < n; ++i) std::snprintf(hex + 3 * i, 4, "%02x ", data[i]);
    log_line("tpl event %u, %llu bytes: %s", event_id, static_cast<unsigned long long>(size), hex);
  }
  uint32_t a = 0, b = 0;
  switch (event_id) {
    case tpl_events::kTaskWaitBegin:
      if (!parse_task_wait_begin(data, size, &a, &b)) return false;
      tasks_.set_awaiter(a, b);
      if (t_async.orphan_count > orphan_base()) drop_orphan(a);
      op_awaits(b, a);
      break;
    case tpl_events::kTraceOperationBegin: {
      std::string name;
      bool async_method = false;
      if (!parse_operation_begin(data, size, &a, &name, kNameBytes, &async_method)) return false;
      // Every task that begins has an entry, its name or none: what awaits it is kept there too.
      tasks_.begin(a, intern(name));
      // Promises (Task.Delay, Task.WhenAll, a Task.Run delegate) are what operations await, not
      // operations whose suspended time is charged.
      if (async_method) {
        if (op_begin(a, 0)) add_orphan(a);
      } else if (is_fan_in(name)) {
        fan_in(a);
      }
      break;
    }
    case tpl_events::kTraceOperationEnd:
      if (!parse_operation_end(data, size, &a)) return false;
      op_end(a);
      tasks_.end(a);
      break;
    case tpl_events::kTraceSynchronousWorkBegin:
      if (!parse_sync_work_begin(data, size, &a, &b)) return false;
      // A completion notification runs the finished task's continuations, not the task: the
      // thread keeps its box (each continuation that is a box brackets itself), but the level is
      // pushed all the same, since its End comes.
      if (b == kWorkExecution) {
        set_current(a, find_op(a), true);
      } else {
        set_current(t_async_current(), kOpSlots, true);
      }
      break;
    case tpl_events::kTraceSynchronousWorkEnd:
      set_current(0, kOpSlots, false);
      break;
    default:
      return false;
  }
  events_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

uint32_t AsyncTracker::awaiter_of(uint32_t id) const { return tasks_.awaiter_of(id); }

std::string AsyncTracker::name_of(uint32_t id) const { return name_at(name_index_of(id)); }

uint32_t AsyncTracker::name_index_of(uint32_t id) const { return tasks_.name_of(id); }

std::string AsyncTracker::name_at(uint32_t index) const {
  if (index == 0 || index > kNameSlots) return std::string();
  const NameSlot& s = name_table_[index - 1];
  if (s.ready.load(std::memory_order_acquire) == 0) return std::string();
  return std::string(s.text);
}

size_t AsyncTracker::take_suspended(uint64_t now, SuspendedCharge* out, size_t max) {
  const uint64_t rel = now > base_ ? now - base_ : 0;
  size_t n = 0;
  for (uint32_t k = 0; k < kOpSlots; ++k) {
    const uint32_t slot = (op_cursor_ + k) & (kOpSlots - 1);
    const uint64_t word = op_ids_[slot].load(std::memory_order_acquire);
    if ((word & kOpPresent) == 0) continue;
    const uint32_t id = static_cast<uint32_t>(word);
    OpCharge& c = op_charges_[slot];
    const uint64_t state = op_state_[slot].load(std::memory_order_acquire);
    if (c.id != id) {
      // Its callers' awaits, which make its chain, come right after it began: a live operation
      // is first charged at the next visit, when they have been made (a thread preempted between
      // the two would otherwise have a tick of it charged to a chain cut short). Suspended now,
      // it is in flight all the same: counted where it sits, with no time (an operation begun
      // and suspended within each tick, as each step of a Task.Yield loop is, was never counted).
      if ((state & kEnded) == 0) {
        if ((state & kLeaf) != 0) {
          if (n == max) {
            op_cursor_ = slot;
            return n;
          }
          out[n++] = SuspendedCharge{id, awaited_task(op_awaited_[slot].load(std::memory_order_relaxed)), 0, true};
        }
        c = OpCharge{id, 0, 0};
        continue;
      }
      c = OpCharge{id, 0, 0};
    }
    const uint64_t total = leaf_time(state, rel);
    if (total > c.charged) {
      if (n == max) {
        op_cursor_ = slot;  // the next call starts here
        return n;
      }
      const uint32_t awaited = awaited_task(op_awaited_[slot].load(std::memory_order_relaxed));
      out[n++] = SuspendedCharge{id, awaited, total - c.charged, (state & kLeaf) != 0};
      c.charged = total;
    }
    if ((state & kEnded) != 0 && (runs_of(state) == 0 || ++c.stale > kStaleVisits)) {
      // Nothing touches an ended operation that runs nowhere: its slot is free for the next.
      op_ids_[slot].store(0, std::memory_order_release);
      c = OpCharge{};
    }
  }
  return n;
}

uint32_t AsyncTracker::live_ops() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < kOpSlots; ++i) {
    const uint64_t word = op_ids_[i].load(std::memory_order_acquire);
    if ((word & kOpPresent) != 0 && (op_state_[i].load(std::memory_order_acquire) & kEnded) == 0) ++n;
  }
  return n;
}

std::string AsyncTracker::chain(uint32_t box, uint32_t levels) const {
  std::string out;
  uint32_t seen[64];
  uint32_t count = 0;
  for (uint32_t id = box; id != 0 && count < levels && count < 64; id = awaiter_of(id)) {
    for (uint32_t i = 0; i < count; ++i) {
      if (seen[i] == id) return out + "<(cycle)";
    }
    seen[count++] = id;
    if (!out.empty()) out += '<';
    const std::string name = name_of(id);
    out += name.empty() ? "?" + std::to_string(id) : name;
  }
  return out;
}

}  // namespace clrscope
