#pragma once
// Async call stacks read from the heap at sample time (native-profiler/ASYNC-STACKS-STUDY.md §3,
// approach B): from the box a thread runs now (core/box_stack.h publishes it), each awaiter is
// found through `Task.m_continuationObject`, which holds the awaiting box itself, a delegate whose
// `_target` is the box, or an AwaitTaskContinuation whose `m_action` is that delegate. The walk
// runs in the signal handler, so it trusts nothing it reads: every load goes through a load that
// survives a fault, and every object's MethodTable (the profiler API's ClassID) must be one the
// sampler thread has classified, with the offset of the field to follow. A MethodTable nobody
// classified yet ends the walk and is queued, so later samples get further.
//
// Async-signal-safe: no allocation, no locks. Pure (the loads come from the caller), so tests
// walk a fake heap in a buffer (native-profiler/tests/heap_chain_test.cpp).
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace clrscope {

enum class HeapKind : uint8_t {
  kUnknown = 0,
  kBox = 1,           // an async method's state machine box: part of the chain, then its continuation
  kTask = 2,          // another Task (WhenAll's promise, Unwrap's proxy): its continuation, not shown
  kDelegate = 3,      // a delegate: its `_target`
  kContinuation = 4,  // an AwaitTaskContinuation (captured context or scheduler): its `m_action`
  kStop = 5,          // anything else (a List of continuations, the completion sentinel): the chain ends
};

struct HeapType {
  HeapKind kind = HeapKind::kUnknown;
  uint16_t next_offset = 0;  // of the reference to follow, from the object's start (its MethodTable pointer)
};

// MethodTables the sampler thread classified, read lock-free by handlers. One writer (the
// sampler thread); a key is published after its value, so a reader that sees it sees the value.
class HeapTypeSet {
 public:
  static constexpr uint32_t kSlots = 8192;  // power of two; types classified at most
  static constexpr uint32_t kProbes = 32;
  static constexpr uint32_t kUnknownSlots = 64;

  HeapTypeSet();
  HeapTypeSet(const HeapTypeSet&) = delete;
  HeapTypeSet& operator=(const HeapTypeSet&) = delete;

  // Any thread, signal handlers included.
  bool find(uintptr_t method_table, HeapType* out) const;
  // A MethodTable a walk met that nobody classified: kept for the sampler thread (dropped and
  // counted when kUnknownSlots are waiting).
  void note_unknown(uintptr_t method_table);

  // Sampler thread only. False (counted) when the table is full.
  bool add(uintptr_t method_table, HeapType type);
  // The MethodTables waiting to be classified, at most `max`; each leaves the queue.
  size_t take_unknown(uintptr_t* out, size_t max);

  uint32_t size() const { return size_.load(std::memory_order_relaxed); }
  uint64_t full() const { return full_.load(std::memory_order_relaxed); }
  uint64_t unknown_dropped() const { return unknown_dropped_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uintptr_t> keys_[kSlots];
  std::atomic<uint32_t> values_[kSlots];  // kind << 16 | next_offset
  std::atomic<uintptr_t> unknown_[kUnknownSlots];
  std::atomic<uint32_t> size_{0};
  std::atomic<uint64_t> full_{0};
  std::atomic<uint64_t> unknown_dropped_{0};
};

// Why a walk ended.
enum class HeapWalkEnd : uint8_t {
  kDone = 0,     // at the root: no continuation, or one that is no awaiter (kStop)
  kUnknown = 1,  // a MethodTable not classified yet (queued)
  kBadRead = 2,  // an address that is no object's, or a load that faulted
  kDepth = 3,    // more boxes than the caller keeps, or more hops than allowed (a cycle)
};

struct HeapWalk {
  uint32_t count = 0;  // boxes' MethodTables written, the running box first
  HeapWalkEnd end = HeapWalkEnd::kDone;
  // The address of the last box written: with kDone, the chain's root (an HTTP request's
  // connection, core/request_tracker.h). Valid only until the runtime next suspends.
  uintptr_t root = 0;
};

// One aligned word at `address`; false when it cannot be read (async-signal-safe).
using SafeLoad = bool (*)(uintptr_t address, uintptr_t* out);

// Walks from `box` (the box the thread runs) outwards and writes each box's MethodTable, at most
// `max_boxes`, following at most `max_hops` objects in all.
HeapWalk walk_heap_chain(uintptr_t box, HeapTypeSet& types, SafeLoad load, uintptr_t* out, uint32_t max_boxes,
                         uint32_t max_hops);

}  // namespace clrscope
