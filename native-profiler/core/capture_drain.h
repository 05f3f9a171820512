#pragma once
// Takes the captures out of the rings each tick, names their frames (symbolizing here, on the
// sampler thread, never in a handler), and hands each to the emitters: a thread's CPU or wall
// capture as a sample, an event capture as a stacked event. Sampler thread only.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/frame_walker.h"
#include "core/page_memory.h"

namespace clrscope {

class Emitter;
class HeapChains;
class RequestTracker;
class TaskNames;
class ThreadBook;
class ThreadScan;
class WallScheduler;
struct Capture;
struct SampleStream;
struct SamplingShared;

class CaptureDrain {
 public:
  CaptureDrain(SamplingShared* shared, SampleStream* stream, ThreadBook* book, ThreadScan* scan, WallScheduler* wall,
               const std::vector<std::unique_ptr<Emitter>>* emitters);
  // The frames every stream needs named before its first capture.
  void begin();
  void drain();
  // Brings the module table up to date with the loader; false when it could not be read.
  bool refresh_modules();
  // Async stacks read from the heap: captures' chains become the stream's tasks (null: off).
  void set_heap_chains(HeapChains* heap) { heap_ = heap; }
  // HTTP requests: which one each sample whose chain reached its root was taken in (null: off).
  void set_requests(RequestTracker* requests) { requests_ = requests; }
  // With async stacks from TPL events, a sample's request is found by its task chain's root.
  void set_task_roots(const TaskNames* tasks) { task_roots_ = tasks; }

 private:
  // One capture taken out of the ring, its frames resolved.
  struct Drained {
    uint64_t mono, cpu_ns, wall_ns, cpu_after, switches;
    uint32_t wire_id, generation, slot;
    size_t pc_first, pc_count;  // in pcs_
    size_t first, count;        // in ids_, once resolved
    uint8_t kinds;
    uint8_t osr_pairs;
    uint16_t osr_at[kMaxOsrPairs];  // in pcs_, from pc_first
    uint8_t walk_flags;  // what the walk itself said
    uint8_t flags;       // the sample's flags once named
    // The walk broke in native code loaded after the module table it used: not emitted, but
    // taken again once the table knows the code (see drain).
    bool retake;
    // Event captures (kinds kCaptureEvent): Capture's event fields.
    uint8_t event_kind;
    bool event_has_value2;
    uint64_t event_type, event_value1, event_value2, event_live;
    uint32_t event_message;  // the message's STRING id (0: none)
    uint32_t async_box;
    uint32_t request;  // RequestTracker::request_at (0: none)
    uintptr_t root;    // the chain's root it was looked up by (0: none)
    bool collecting;  // the thread was performing a garbage collection (core/gc_frame.h)
  };

  void take(const Capture& c);
  void resolve(Drained& d);
  // Puts the [GC] frame into a resolved sample's stack where it belongs (core/gc_frame.h).
  void add_gc_frame(Drained& d);
  void emit_sample(const Drained& d);
  void emit_event(const Drained& d);

  SamplingShared* shared_;
  SampleStream* stream_;
  ThreadBook* book_;
  ThreadScan* scan_;
  WallScheduler* wall_;
  const std::vector<std::unique_ptr<Emitter>>* emitters_;
  HeapChains* heap_ = nullptr;
  RequestTracker* requests_ = nullptr;
  const TaskNames* task_roots_ = nullptr;
  uint32_t elided_id_ = 0;
  uint32_t unloaded_id_ = 0;
  uint32_t gc_id_ = 0;  // the [GC] frame, defined at its first use
  std::vector<Drained, PageAllocator<Drained>> batch_;
  std::vector<uintptr_t, PageAllocator<uintptr_t>> pcs_;
  std::vector<uint32_t, PageAllocator<uint32_t>> ids_;
};

}  // namespace clrscope
