#pragma once
// Fixed slots that signal handlers fill with raw captures and the sampler thread drains.
// Producers and the consumer meet only through per-slot atomic states, so a handler never
// waits: when no slot is free it drops the capture and counts it.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace clrscope {

constexpr uint32_t kMaxFrames = 512;   // frames kept per capture
constexpr uint32_t kTailFrames = 64;   // outermost frames kept when a stack is deeper
// UTF-16 units of an event's text (an exception's message) kept per capture; longer texts are cut.
constexpr uint32_t kMaxEventText = 256;
// Boxes of an async chain read from the heap kept per capture (core/heap_chain.h); deeper chains
// are cut there, visibly.
constexpr uint32_t kHeapChainBoxes = 32;
// Longest path of objects a walk follows (boxes, delegates, continuations, promises between
// them) before it counts the chain as cut: a cycle read from objects changing under it ends here.
constexpr uint32_t kHeapChainHops = 4 * kHeapChainBoxes;

enum CaptureKind : uint8_t {
  kCaptureCpu = 1,
  kCaptureWall = 2,
  // Taken by the thread itself in a runtime callback (core/event_capture.h), never by a signal.
  kCaptureEvent = 4,
};

struct Capture {
  uint64_t mono;
  uint64_t cpu_ns;
  uint64_t wall_ns;
  uint64_t thread_cpu_after;  // the thread's CPU clock as the handler finished (wall captures)
  uint64_t switches;          // the thread's context switches so far, as the handler finished
  uintptr_t sp;        // interrupted stack pointer, used to learn unknown stack bounds
  uintptr_t self;      // the thread's identity (pthread_self) for bounds learned from sp
  uint32_t slot;       // thread registry slot
  uint32_t wire_id;    // the thread's stream id when captured (slots are reused)
  uint32_t module_generation;  // the module table the walk used (0: none)
  uint32_t count;
  uint32_t gap_at;
  uint32_t elided;
  uint8_t kinds;       // CaptureKind bits
  bool complete;
  bool bounds_known;   // false: a probe; only frames[0] is set and the stack was not read
  uint8_t osr_pairs;   // see WalkResult::osr_at
  uint16_t osr_at[8];
  uint32_t async_box;  // the thread's running async box when captured (0: none or not tracked)
  bool collecting;     // the thread was performing a garbage collection (ThreadSlot::collecting)
  // Async stacks read from the heap: the boxes' MethodTables from the running one out, and how
  // the walk ended (HeapWalkEnd); heap_count 0: no walk, or no box.
  uint8_t heap_count;
  uint8_t heap_end;
  uintptr_t heap_chain[kHeapChainBoxes];
  // The chain's root box's address when the walk reached it (HeapWalk::root), else 0: which
  // HTTP request the sample was taken in (core/request_tracker.h).
  uintptr_t heap_root;
  // Event captures only: what happened (wire::EventKind, values as PROTOCOL.md's EVENTS) and the
  // runtime's ClassID of the type that names it (0: none), named on the sampler thread.
  uint8_t event_kind;
  bool event_has_value2;
  uint64_t event_type;
  uint64_t event_value1;
  uint64_t event_value2;
  uint64_t event_live;  // allocations: the live-heap token (core/live_heap.h), 0 for none
  // An exception's message as the thread copied it into the ring's text storage for this cell
  // (valid while the cell is being drained; nullptr: no text), its units as copied, and the
  // string's whole length (more than event_text_len: the text was cut).
  const char16_t* event_text;
  uint32_t event_text_len;
  uint32_t event_text_full;
  uintptr_t frames[kMaxFrames];
};

// Every field but the frames set to "nothing yet", so each capture path fills only what it
// knows and a reused cell never carries a previous capture's values. Async-signal-safe.
inline void begin_capture(Capture* c, uint64_t mono, uint32_t slot, uint32_t wire_id, uint8_t kinds) {
  c->mono = mono;
  c->cpu_ns = 0;
  c->wall_ns = 0;
  c->thread_cpu_after = 0;
  c->switches = 0;
  c->sp = 0;
  c->self = 0;
  c->slot = slot;
  c->wire_id = wire_id;
  c->module_generation = 0;
  c->count = 0;
  c->gap_at = 0;
  c->elided = 0;
  c->kinds = kinds;
  c->complete = false;
  c->bounds_known = false;
  c->osr_pairs = 0;
  c->async_box = 0;
  c->collecting = false;
  c->heap_count = 0;
  c->heap_end = 0;
  c->heap_root = 0;
  c->event_kind = 0;
  c->event_has_value2 = false;
  c->event_type = 0;
  c->event_value1 = 0;
  c->event_value2 = 0;
  c->event_live = 0;
  c->event_text = nullptr;
  c->event_text_len = 0;
  c->event_text_full = 0;
}

class CaptureRing {
 public:
  // `with_text`: each cell gets kMaxEventText units of text storage (the event ring), apart from
  // the captures so the signal handlers' ring does not carry it.
  explicit CaptureRing(uint32_t slots, bool with_text = false);
  ~CaptureRing();
  CaptureRing(const CaptureRing&) = delete;
  CaptureRing& operator=(const CaptureRing&) = delete;

  // Async-signal-safe. Returns a slot to fill (and its index for publish), or nullptr when
  // the ring is full.
  Capture* try_acquire(uint32_t* index);
  // Async-signal-safe. Hands a filled slot to the consumer.
  void publish(uint32_t index);
  // The text storage of the cell `index` (kMaxEventText units), nullptr for a ring without.
  char16_t* text(uint32_t index) { return texts_ == nullptr ? nullptr : texts_ + static_cast<size_t>(index) * kMaxEventText; }
  // Consumer side (one thread). Calls fn(const Capture&) for every published slot, then frees it.
  template <typename Fn>
  uint32_t drain(Fn&& fn);

  uint32_t size() const { return slots_; }

 private:
  enum State : uint32_t { kFree = 0, kWriting = 1, kReady = 2 };
  struct Cell {
    std::atomic<uint32_t> state;
    Capture capture;
  };
  uint32_t slots_;
  Cell* cells_;
  char16_t* texts_ = nullptr;
  // One bit a slot, set as the slot is published: the consumer reads a few words a tick instead
  // of every cell's state, which at 4 KiB a cell would walk megabytes (and the program's cache)
  // each tick to find the handful of captures there are.
  std::atomic<uint64_t>* ready_ = nullptr;
  uint32_t ready_words_ = 0;
  std::atomic<uint32_t> cursor_{0};
};

template <typename Fn>
uint32_t CaptureRing::drain(Fn&& fn) {
  uint32_t n = 0;
  for (uint32_t w = 0; w < ready_words_; ++w) {
    if (ready_[w].load(std::memory_order_relaxed) == 0) continue;
    // Taken whole: a slot published after this exchange sets its bit again for the next drain.
    uint64_t bits = ready_[w].exchange(0, std::memory_order_acquire);
    while (bits != 0) {
      const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      Cell& cell = cells_[i];
      if (cell.state.load(std::memory_order_acquire) != kReady) continue;
      fn(static_cast<const Capture&>(cell.capture));
      cell.state.store(kFree, std::memory_order_release);
      ++n;
    }
  }
  return n;
}

}  // namespace clrscope
