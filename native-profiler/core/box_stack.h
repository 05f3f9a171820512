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

#include "core/capture_ring.h"
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
  // Changes at every enter and leave, so a chain kept below belongs to one run of one top box.
  uintptr_t serial;
  // The top box's chain as last read while the runtime was not suspended (by a handler's kept
  // walk, or by this thread as it began a suspension itself). A sample taken while the runtime is
  // suspended (a GC may be moving the objects) gets it instead of a walk: the chain's types do
  // not change while the same box runs, only the objects' addresses do. Written only on this
  // thread (its handler or its runtime callback), so no reader races a writer.
  uintptr_t kept_serial;  // the serial it was read at; 0: nothing kept
  uintptr_t kept_box;     // and the top box then (a handler between a serial's change and the depth's sees the other box)
  uintptr_t keeping;      // the thread's own callback is writing it: its handler leaves it alone
  uint32_t kept_count;
  uint8_t kept_end;
  uintptr_t kept_root;    // HeapWalk::root of that read
  uintptr_t kept[kHeapChainBoxes];
};

// The registry the probes find their thread's slot in (set once, before ReJIT is requested).
void set_box_registry(ThreadRegistry* registry);

// Handler side (async-signal-safe): the box the interrupted thread runs, 0 when none is published,
// the slot is not this thread's, or the stack is deeper than kDepth (*too_deep set).
// *run says which stack it was read from (checked to be this thread's) and its serial then.
struct BoxRun {
  uintptr_t stack = 0;
  uintptr_t serial = 0;
};
uintptr_t running_box(const ThreadSlot& slot, uintptr_t identity, SafeLoad load, bool* too_deep, BoxRun* run);

// Handler side, after running_box found `box` in `run`: the chain kept for that run of it
// (false: none), or keep the one just walked. Only on the stack's own thread.
struct KeptChain {
  uintptr_t* boxes;  // kHeapChainBoxes of room
  uint32_t count;
  uint8_t end;
  uintptr_t root;  // HeapWalk::root
};
bool kept_chain(const BoxRun& run, uintptr_t box, KeptChain* out);
void keep_chain(const BoxRun& run, uintptr_t box, const KeptChain& chain);

// The calling thread is about to suspend the runtime (a GC it triggered): walks its own chain
// while nothing moves yet and keeps it, for the samples the GC's own work will take.
void keep_own_chain(HeapTypeSet& types, SafeLoad load);

// The root of the chain the calling thread runs now (HeapWalk::root of a walk that reached it),
// 0 when it runs no box or the walk stopped short. Normal context, on the thread itself; the
// caller checks that no suspension overlapped it (objects may move only then).
uintptr_t own_chain_root(HeapTypeSet& types, SafeLoad load);

// Stops the probes for good (the recording ended; ReJIT cannot be undone, so the wrapped
// MoveNexts keep calling them): from then on they return at once and touch nothing.
void quiet_box_probes();
bool box_probes_quiet();

// MoveNext entries seen so far (flushed from each thread every few thousand, and at the end by
// the thread itself), and entries past kDepth.
uint64_t box_enters();
uint64_t box_overflows();

}  // namespace clrscope

// The probes the wrapped MoveNext calls (an unmanaged calli without a GC transition): nothing
// here may block, allocate after the thread's first call, or call back into the runtime.
extern "C" void clrscope_box_enter(uintptr_t box);
extern "C" void clrscope_box_leave();
