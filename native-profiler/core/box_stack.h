#pragma once
// The async state machine box each thread runs now, for the heap walk of approach B
// (core/heap_chain.h). ReJIT wraps CoreLib's `AsyncStateMachineBox<TStateMachine>.MoveNext(Thread)`
// (shim/box_probe_rejit.cpp) so that it pins `this` and calls clrscope_box_enter with its address
// before running the state machine, and clrscope_box_leave in a finally after. The boxes live in
// a per-thread stack (inline continuations nest: a box completing runs its awaiter's MoveNext
// inside its own); the thread's registry slot points at it, so the capture handler, running on
// that same thread, reads the top with a few loads. The top box cannot move while it is
// published: the wrapped MoveNext keeps it in a pinned local until the finally has run.
#include <cstddef>
#include <cstdint>

#include "core/heap_chain.h"

namespace clrscope {

class ThreadRegistry;
struct ThreadSlot;

struct BoxStack {
  static constexpr uint32_t kDepth = 16;  // nested MoveNexts published; deeper ones are counted, not walked
  uintptr_t depth;                        // MoveNexts entered and not left (may exceed kDepth)
  uintptr_t owner;                        // the thread's identity (pthread_self), checked by the handler
  uintptr_t boxes[kDepth];
  uint64_t enters;                        // since the last flush into the global count
};

// The registry the probes find their thread's slot in (set once, before ReJIT is requested).
void set_box_registry(ThreadRegistry* registry);

// Handler side (async-signal-safe): the box the interrupted thread runs, 0 when none is published,
// the slot is not this thread's, or the stack is deeper than kDepth (*too_deep set).
uintptr_t running_box(const ThreadSlot& slot, uintptr_t identity, SafeLoad load, bool* too_deep);

// MoveNext entries seen so far (flushed from each thread every few thousand, and at the end by
// the thread itself), and entries past kDepth.
uint64_t box_enters();
uint64_t box_overflows();

}  // namespace clrscope

// The probes the wrapped MoveNext calls (an unmanaged calli without a GC transition): nothing
// here may block, allocate after the thread's first call, or call back into the runtime.
extern "C" void clrscope_box_enter(uintptr_t box);
extern "C" void clrscope_box_leave();
