#pragma once
// The live heap (README, "Live heap"): a weak handle to each sampled allocation, so that after a
// GC the profiler knows which sampled objects are still alive. The sampler sends the survivors,
// by type and allocating stack, as the live set (wire EVENTS kinds 4 and 5).
//
// Three kinds of threads meet here, none of them waiting for another:
// - an allocating thread, inside the runtime's allocation (its AllocationTick/AllocationSampled
//   event), claims a slot and creates the handle (track);
// - the GC's thread, with the runtime suspended (GarbageCollectionFinished), asks every handle
//   for its object and frees the slots whose object is gone (sweep);
// - the sampler thread reads which slots hold survivors to send them (state, survivor).
// Each slot's state word carries a generation that changes when the slot is freed, so a token
// taken for one object never names the next one put in the same slot.
//
// Bounded: at most `capacity` handles (kCapacity by default). When every slot is taken, the
// sample is not tracked and counted in dropped(); the live set then undercounts until GCs free
// slots, and a reader can tell from the count.
#include <atomic>
#include <cstdint>
#include <memory>

namespace clrscope {

// The runtime's handle operations (ICorProfilerInfo13 in the shim; plain functions in tests).
struct HandleOps {
  void* context = nullptr;
  // A weak handle to `object`; 0 when the runtime refuses.
  uint64_t (*create)(void* context, uint64_t object) = nullptr;
  // What is behind the handle now (see HandleCheck); `type_id` is the type the allocation said.
  int (*check)(void* context, uint64_t handle, uint64_t type_id) = nullptr;
  void (*destroy)(void* context, uint64_t handle) = nullptr;
  // The object's address now, 0 once it was collected (exception identities, core/exception_identity.h).
  uint64_t (*object)(void* context, uint64_t handle) = nullptr;
};

enum HandleCheck : int {
  kHandleCollected = 0,  // the object is gone
  kHandleAlive = 1,
  kHandleOtherType = 2,  // an object of another type: the address was not the sampled object's
};

struct LiveHeapCounts {
  uint64_t tracked = 0;    // handles created
  uint64_t collected = 0;  // freed after their object was collected
  uint64_t dropped = 0;    // samples not tracked: every slot taken
  uint64_t refused = 0;    // samples not tracked: the runtime gave no handle
  uint64_t other_type = 0; // freed because the handle's object was not of the sampled type
  uint64_t sweeps = 0;
  uint64_t sweep_ns = 0;   // time spent in sweep(), all GCs together
  uint64_t sweep_max_ns = 0;  // the longest one
  uint64_t last_sweep_mono = 0;
};

class LiveHeap {
 public:
  // 8,192 handles: at AllocationSampled's mean of one sample per 100 KiB this follows about
  // 800 MiB of live sampled heap before it saturates; a sweep looks at every slot once per GC.
  static constexpr uint32_t kCapacity = 8192;

  explicit LiveHeap(const HandleOps& ops, uint32_t capacity = kCapacity);
  LiveHeap(const LiveHeap&) = delete;
  LiveHeap& operator=(const LiveHeap&) = delete;

  uint32_t capacity() const { return capacity_; }

  // Allocating thread: a weak handle to `object` (of type `type_id`). A token naming the slot
  // (never 0), or 0 when the sample is not tracked (counted as dropped or refused).
  uint64_t track(uint64_t object, uint64_t type_id);
  // The event of a tracked sample could not be recorded: the slot goes back, its handle too.
  void untrack(uint64_t token);
  // After a GC, runtime suspended: survivors are marked, the others' handles destroyed and their
  // slots freed. Returns false (doing nothing) when another sweep is running.
  bool sweep(uint64_t mono);
  // Destroys every handle (before a detach); tracking stays possible afterwards.
  void release_all();

  // Sampler thread: whether the token's object survived the last sweep (and is still tracked).
  bool survivor(uint64_t token) const;
  // The token of the object now in `slot`, 0 when the slot holds none.
  uint64_t token_at(uint32_t slot) const;
  static uint32_t slot_of(uint64_t token) { return static_cast<uint32_t>(token & 0xFFFF); }

  LiveHeapCounts counts() const;

 private:
  enum State : uint64_t { kFree = 0, kClaimed = 1, kLive = 2, kSurvived = 3 };
  static uint64_t gen_of(uint64_t word) { return word >> 2; }
  static uint64_t token_of(uint64_t word, uint32_t slot) { return (gen_of(word) << 16) | slot; }
  bool pop_free(uint32_t* slot);
  // The slot was claimed (state kClaimed): a new generation, and back on the free stack.
  void free_slot(uint32_t slot, uint64_t word);
  void lock() const;
  void unlock() const;

  HandleOps ops_;
  uint32_t capacity_;
  std::unique_ptr<std::atomic<uint64_t>[]> state_;
  std::unique_ptr<uint64_t[]> handle_;
  std::unique_ptr<uint64_t[]> type_;
  // The free slots as a stack under a spin lock: pushed and popped a few thousand times a second
  // at most, each a handful of instructions.
  std::unique_ptr<uint32_t[]> free_;
  uint32_t free_top_ = 0;
  mutable std::atomic_flag free_lock_ = ATOMIC_FLAG_INIT;
  std::atomic<uint32_t> free_count_{0};
  std::atomic_flag sweeping_ = ATOMIC_FLAG_INIT;

  std::atomic<uint64_t> tracked_{0}, collected_{0}, dropped_{0}, refused_{0}, other_type_{0};
  std::atomic<uint64_t> sweeps_{0}, sweep_ns_{0}, sweep_max_ns_{0}, last_sweep_mono_{0};
};

}  // namespace clrscope
