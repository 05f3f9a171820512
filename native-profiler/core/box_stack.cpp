#include "core/box_stack.h"

#include <atomic>

#include "core/platform.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

std::atomic<ThreadRegistry*> g_registry{nullptr};
std::atomic<uint64_t> g_enters{0};
std::atomic<uint64_t> g_overflows{0};
std::atomic<bool> g_quiet{false};
constexpr uint64_t kFlushEvery = 4096;
// A thread no slot knows yet (the runtime reports it a little later, or never) looks again only
// every so many entries: the look scans the registry.
constexpr uint32_t kLookEvery = 1024;

struct ProbeThread {
  BoxStack stack{};
  uint32_t index = 0;
  uint32_t wire_id = 0;
  uint32_t until_look = 0;
};
thread_local ProbeThread t_probe;

// Finds this thread's slot by its OS id, without the registry's lock (the probe runs in
// cooperative mode: it must not wait for a thread that may be waiting for a GC).
void publish(ProbeThread& t) {
  ThreadRegistry* registry = g_registry.load(std::memory_order_acquire);
  if (registry == nullptr) return;
  const uint32_t tid = platform::current_tid_remembered();
  const uint32_t limit = registry->slot_limit();
  for (uint32_t i = 0; i < limit; ++i) {
    ThreadSlot& s = registry->slot(i);
    if (s.os_tid.load(std::memory_order_acquire) != tid || s.state.load(std::memory_order_acquire) != ThreadSlot::kLive) continue;
    const uint32_t wire_id = s.wire_id.load(std::memory_order_acquire);
    if (wire_id == 0) continue;
    t.index = i;
    t.wire_id = wire_id;
    t.stack.owner = platform::current_thread_identity();
    s.box_stack.store(reinterpret_cast<uintptr_t>(&t.stack), std::memory_order_release);
    return;
  }
  t.until_look = kLookEvery;
}

}  // namespace

void set_box_registry(ThreadRegistry* registry) { g_registry.store(registry, std::memory_order_release); }

uint64_t box_enters() { return g_enters.load(std::memory_order_relaxed); }
uint64_t box_overflows() { return g_overflows.load(std::memory_order_relaxed); }

void quiet_box_probes() { g_quiet.store(true, std::memory_order_release); }
bool box_probes_quiet() { return g_quiet.load(std::memory_order_acquire); }

uintptr_t running_box(const ThreadSlot& slot, uintptr_t identity, SafeLoad load, bool* too_deep, BoxRun* run) {
  const uintptr_t stack = slot.box_stack.load(std::memory_order_relaxed);
  if (stack == 0) return 0;
  uintptr_t owner = 0, depth = 0, box = 0;
  if (!load(stack + offsetof(BoxStack, owner), &owner) || owner != identity) return 0;
  if (!load(stack + offsetof(BoxStack, depth), &depth) || depth == 0) return 0;
  if (depth > BoxStack::kDepth) {
    *too_deep = true;
    return 0;
  }
  if (!load(stack + offsetof(BoxStack, boxes) + (depth - 1) * sizeof(uintptr_t), &box)) return 0;
  if (!load(stack + offsetof(BoxStack, serial), &run->serial)) return 0;
  run->stack = stack;
  return box;
}

// running_box checked that the run's stack is this thread's own (its thread-local, alive while
// the thread runs this handler): plain reads and writes from here.
bool kept_chain(const BoxRun& run, uintptr_t box, KeptChain* out) {
  const auto* s = reinterpret_cast<const BoxStack*>(run.stack);
  if (s == nullptr || run.serial == 0 || s->keeping != 0 || s->kept_serial != run.serial || s->kept_box != box) return false;
  const uint32_t n = s->kept_count < kHeapChainBoxes ? s->kept_count : kHeapChainBoxes;
  for (uint32_t i = 0; i < n; ++i) out->boxes[i] = s->kept[i];
  out->count = n;
  out->end = s->kept_end;
  out->root = s->kept_root;
  return n > 0;
}

namespace {
void keep_into(BoxStack* s, uintptr_t serial, uintptr_t box, const KeptChain& chain) {
  s->kept_serial = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uint32_t n = chain.count < kHeapChainBoxes ? chain.count : kHeapChainBoxes;
  for (uint32_t i = 0; i < n; ++i) s->kept[i] = chain.boxes[i];
  s->kept_count = n;
  s->kept_end = chain.end;
  s->kept_root = chain.root;
  s->kept_box = box;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  s->kept_serial = serial;
}
}  // namespace

void keep_chain(const BoxRun& run, uintptr_t box, const KeptChain& chain) {
  auto* s = reinterpret_cast<BoxStack*>(run.stack);
  if (s == nullptr || run.serial == 0 || s->keeping != 0 || chain.count == 0) return;
  keep_into(s, run.serial, box, chain);
}

void keep_own_chain(HeapTypeSet& types, SafeLoad load) {
  BoxStack& s = t_probe.stack;
  const uintptr_t depth = s.depth;
  if (depth == 0 || depth > BoxStack::kDepth || s.serial == 0) return;
  s.keeping = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  uintptr_t boxes[kHeapChainBoxes];
  const uintptr_t box = s.boxes[depth - 1];
  const HeapWalk w = walk_heap_chain(box, types, load, boxes, kHeapChainBoxes, kHeapChainHops);
  if (w.count > 0) keep_into(&s, s.serial, box, KeptChain{boxes, w.count, static_cast<uint8_t>(w.end), w.end == HeapWalkEnd::kDone ? w.root : 0});
  std::atomic_signal_fence(std::memory_order_seq_cst);
  s.keeping = 0;
}

uintptr_t own_chain_root(HeapTypeSet& types, SafeLoad load) {
  const BoxStack& s = t_probe.stack;
  const uintptr_t depth = s.depth;
  if (depth == 0 || depth > BoxStack::kDepth) return 0;
  uintptr_t boxes[kHeapChainBoxes];
  const HeapWalk w = walk_heap_chain(s.boxes[depth - 1], types, load, boxes, kHeapChainBoxes, kHeapChainHops);
  return w.end == HeapWalkEnd::kDone ? w.root : 0;
}

}  // namespace clrscope

using clrscope::BoxStack;

extern "C" void clrscope_box_enter(uintptr_t box) {
  if (clrscope::g_quiet.load(std::memory_order_relaxed)) return;
  clrscope::ProbeThread& t = clrscope::t_probe;
  BoxStack& s = t.stack;
  const uintptr_t depth = s.depth;
  if (depth < BoxStack::kDepth) {
    s.boxes[depth] = box;
  } else {
    clrscope::g_overflows.fetch_add(1, std::memory_order_relaxed);
  }
  ++s.serial;
  // The handler runs on this thread: the box must be in place before the depth says so.
  std::atomic_signal_fence(std::memory_order_release);
  s.depth = depth + 1;
  if (++s.enters == clrscope::kFlushEvery) {
    clrscope::g_enters.fetch_add(s.enters, std::memory_order_relaxed);
    s.enters = 0;
  }
  if (t.wire_id != 0) {
    clrscope::ThreadRegistry* registry = clrscope::g_registry.load(std::memory_order_relaxed);
    if (registry != nullptr && registry->slot(t.index).wire_id.load(std::memory_order_relaxed) == t.wire_id) return;
    t.wire_id = 0;  // the slot was closed (and maybe reused): look again
  }
  if (t.until_look > 0) {
    --t.until_look;
    return;
  }
  clrscope::publish(t);
}

extern "C" void clrscope_box_leave() {
  if (clrscope::g_quiet.load(std::memory_order_relaxed)) return;
  BoxStack& s = clrscope::t_probe.stack;
  if (s.depth > 0) {
    ++s.serial;
    std::atomic_signal_fence(std::memory_order_release);
    s.depth = s.depth - 1;
  }
}
