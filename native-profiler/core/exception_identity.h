#pragma once
// Which thrown exceptions are the same object thrown again (README, "Allocations, locks and
// exceptions"): a `throw;`, and ExceptionDispatchInfo.Throw, which every await of a faulted task
// uses, raise ExceptionThrown again with the object first thrown. Each exception event then
// carries the object's identity, so readers can count an exception once, at the site where it
// started, and keep the rethrows as its path.
//
// Keyed by the object's address, which only a GC changes: a weak handle per tracked object
// (ICorProfilerInfo13, shim/live_handles.h) tells after each GC where it went, or that it is
// gone. Between two GCs a lookup compares addresses and calls nothing of the runtime's.
//
// The throwing threads and the GC's thread meet under one mutex held only for array work: a
// thread in ExceptionThrown is in cooperative mode, so no GC can run while it holds the lock,
// and the runtime is never called with the lock held on a throwing thread.
//
// Bounded: kCapacity objects; the oldest one gives its slot (and handle) to a new exception, so a
// rethrow that comes more than kCapacity distinct exceptions later counts as a new exception.
#include <cstdint>
#include <mutex>

#include "core/live_heap.h"

namespace clrscope {

struct ExceptionIdentityCounts {
  uint64_t exceptions = 0;  // distinct objects seen (identities given)
  uint64_t rethrows = 0;    // throws of an object already seen
  uint64_t evicted = 0;     // tracked objects given up for a newer one while still alive
  uint64_t refused = 0;     // no handle from the runtime: identity given, rethrows not recognized
};

class ExceptionIdentity {
 public:
  static constexpr uint32_t kCapacity = 256;

  // `ops.object` must be set: the address behind a handle now (0: collected).
  explicit ExceptionIdentity(const HandleOps& ops) : ops_(ops) {}
  ExceptionIdentity(const ExceptionIdentity&) = delete;
  ExceptionIdentity& operator=(const ExceptionIdentity&) = delete;

  struct Seen {
    uint64_t id = 0;       // from 1, one per distinct object
    bool rethrow = false;  // the object was thrown before
  };
  // On the throwing thread, in ExceptionThrown (cooperative mode: `object` stays put). An object
  // not seen before is tracked (given an identity and a handle) only when `track`: a handle costs
  // the runtime's CreateHandle and, later, DestroyHandle, so only exceptions sent with a stack get
  // one (id 0 otherwise); a rethrow of a tracked object is found whatever `track` says.
  Seen on_thrown(uint64_t object, bool track = true);
  // After a GC (GarbageCollectionFinished): where each tracked object is now; gone ones freed.
  void after_gc();
  // Destroys every handle (before a detach).
  void release_all();

  ExceptionIdentityCounts counts() const;

  // The wire's value2 of an exception event: the identity, and bit 0 set for a rethrow.
  static uint64_t wire_value(const Seen& s) { return (s.id << 1) | (s.rethrow ? 1u : 0u); }

 private:
  HandleOps ops_;
  mutable std::mutex lock_;
  uint64_t address_[kCapacity] = {};  // 0: free slot
  uint64_t handle_[kCapacity] = {};
  uint64_t id_[kCapacity] = {};
  uint32_t next_ = 0;  // the slot a new object takes: the oldest one
  uint64_t next_id_ = 1;
  ExceptionIdentityCounts counts_;
};

}  // namespace clrscope
