#pragma once
// Where a sample's [GC] frame goes, so a CPU flame graph shows what collecting garbage costs.
//
// A thread that only collects (server GC's per-heap threads, the background GC threads) gets it
// as its stack's root: thread → [GC] → the collector's own frames. A thread that performs a
// collection itself (workstation GC runs on the allocating thread that triggered it, GC.Collect
// on its caller) gets it between its managed frames and the runtime's native ones above them,
// so the collection's cost lands under the method that allocated.
//
// Decided on the sampler thread from what the capture carries: whether the thread was inside
// the runtime's GarbageCollectionStarted … GarbageCollectionFinished when the signal came (the
// handler copies a flag the callbacks set on the thread's slot; nothing else happens there),
// and the thread's kind from the name the runtime gave it.
#include <cstddef>
#include <cstdint>

namespace clrscope {

constexpr size_t kNoGcFrame = static_cast<size_t>(-1);

// `frames` leaf first. The index the [GC] frame takes (frames from there on move one toward
// the root; `count` puts it at the root), or kNoGcFrame when the sample gets none.
// `is_managed(frame)` says whether a frame lies in managed code.
template <typename IsManaged>
size_t gc_frame_at(const uint32_t* frames, size_t count, bool gc_thread, bool collecting, IsManaged&& is_managed) {
  if (gc_thread) return count;
  if (!collecting) return kNoGcFrame;
  // Above the innermost managed frame: everything nearer the leaf is the runtime's collection
  // (its allocation helper, the collector, memset and friends in libc).
  for (size_t i = 0; i < count; ++i) {
    if (is_managed(frames[i])) return i;
  }
  return count;  // no managed code on the stack (a collection from a native thread): at the root
}

}  // namespace clrscope
