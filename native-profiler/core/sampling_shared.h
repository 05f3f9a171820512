#pragma once
// State shared between the signal handler and the sampler thread. Set up once before the
// handler is installed and never freed: a signal may arrive at any moment, even during exit.
#include <atomic>
#include <cstdint>

#include "core/capture_ring.h"
#include "core/frame_walker.h"
#include "core/heap_chain.h"
#include "core/thread_registry.h"

namespace clrscope {

struct SamplingShared {
  ThreadRegistry* registry = nullptr;
  CaptureRing* ring = nullptr;
  std::atomic<bool> active{false};
  std::atomic<uint64_t> captures{0};
  std::atomic<uint64_t> dropped_ring_full{0};
  std::atomic<uint64_t> dropped_watchdog{0};
  std::atomic<uint64_t> dropped_other{0};
  // CPU ticks that fell in a dear walk's pause (core/walk_pacing.h).
  std::atomic<uint64_t> paused_ticks{0};
  // Event captures (core/event_capture.h), apart from the signal handlers' ring so neither
  // crowds the other out; null when no event is recorded.
  CaptureRing* event_ring = nullptr;
  // Allocation samples, in a ring of their own: a program allocating gigabytes a second raises
  // tens of thousands a second, which kept the shared ring full and lost the rare lock waits and
  // exceptions that arrived meanwhile. Null: allocations use event_ring (or are off).
  CaptureRing* alloc_ring = nullptr;
  std::atomic<uint64_t> dropped_events{0};
  // Time spent inside record_capture, for the log's cost line.
  std::atomic<uint64_t> capture_ns{0};
  // Async stacks read from the heap (core/heap_chain.h): the types the sampler thread classified
  // (null: off), and what the handlers' walks did.
  HeapTypeSet* heap_types = nullptr;
  std::atomic<uint64_t> heap_walks{0};          // a box published and the thread in managed code
  std::atomic<uint64_t> heap_ends[4]{};         // by HeapWalkEnd
  std::atomic<uint64_t> heap_native{0};         // of the walks, those of a thread in native code
  std::atomic<uint64_t> heap_suspended{0};      // walks thrown away: the runtime was suspended (a GC may move objects)
  std::atomic<uint64_t> heap_kept_used{0};      // of those, samples given the chain kept for the same run of the box
  std::atomic<uint64_t> heap_cpu_boxed{0};      // CPU samples taken while a box ran (wall ones include threads parked in a GC)
  std::atomic<uint64_t> heap_cpu_chained{0};    // of those, the ones given a chain (walked or kept)
  std::atomic<uint64_t> heap_too_deep{0};       // MoveNexts nested deeper than the published stack
  std::atomic<uint64_t> heap_walk_ns{0};        // time inside the walks
  // The runtime's suspensions (RuntimeSuspendStarted to RuntimeResumeFinished or Aborted), when
  // every GC that moves objects happens: `runtime_suspended` counts those under way, and
  // `suspension_epoch` changes at each start and end, so a walk that saw no suspension before it
  // and the same epoch after it read no object a GC moved meanwhile.
  std::atomic<uint32_t> runtime_suspended{0};
  std::atomic<uint64_t> suspension_epoch{0};
};

// Runtime callbacks: a suspension of the runtime starts, or ends (resumed or aborted).
void note_runtime_suspension(SamplingShared& shared, bool starts);

SamplingShared* sampling_shared();
void set_sampling_shared(SamplingShared* shared);

// The portable half of a capture, called from the OS-specific handler with the interrupted
// registers. `kinds` are CaptureKind bits; `cpu_now_ns` is the thread's CPU clock now (only
// read for CPU captures). `identity` is the captured thread's own identity when the caller runs
// on it (a signal handler: pthread_self), checked against the slot's before its stack is read;
// 0 when the caller vouches for the slot's bounds itself (a suspending capture). Async-signal-safe.
void record_capture(SamplingShared& shared, uint32_t slot_index, uint32_t wire_id, uint8_t kinds, uint64_t cpu_now_ns,
                    const WalkRegisters& regs, uintptr_t identity);

// record_capture in two halves, for an OS layer that walks after the capture (Windows: the
// thread stays suspended only while its stack is copied; the walk, which needs the system's
// function tables and their locks, runs on the copy once it is resumed). claim_capture settles
// the sample's values and takes a ring slot as record_capture does, or returns nullptr (counted)
// when there is nothing to record; the caller fills frames, count, gap_at, elided, complete,
// bounds_known and thread_cpu_after, then publishes with commit_capture(…, index, c->mono).
Capture* claim_capture(SamplingShared& shared, uint32_t slot_index, uint32_t wire_id, uint8_t kinds,
                       uint64_t cpu_now_ns, uintptr_t sp, uint32_t* index);
// Returns the monotonic time it read (the capture's end), for the caller's pacing.
uint64_t commit_capture(SamplingShared& shared, uint32_t index, uint64_t claimed_mono);

// What a capture request carries to the handler, packed into one pointer-sized value
// (siginfo's si_value on Linux): a tag so foreign signals are recognised, the kind, the slot
// and the thread's wire id (slots are reused, wire ids are not).
struct CaptureTicket {
  uint8_t kinds;
  uint32_t slot;
  uint32_t wire_id;
};
uint64_t pack_ticket(const CaptureTicket& t);
bool unpack_ticket(uint64_t v, CaptureTicket* t);

}  // namespace clrscope
