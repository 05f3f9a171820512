#pragma once
// The native code of the process as the signal handler sees it: executable ranges of loaded
// ELF objects, each with a view of its unwind tables. Built on the sampler thread, published as
// an immutable snapshot through one atomic pointer, read lock-free by handlers.
//
// A handler must never read memory that can vanish under it, and a program may unload a
// library at any moment (dlclose), so a handler never reads a library's own pages: the unwind
// tables it walks are the profiler's copies, made while the loader guaranteed the library was
// mapped. Copies and snapshots are freed only once no handler can still hold them (retire()
// and reclaim()).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clrscope {

// One contiguous range of the original address space and where its bytes can be read: the
// library's own pages (only while the loader holds the library, on the sampler thread) or
// the profiler's copy of them.
struct ViewRange {
  uintptr_t lo;
  uintptr_t hi;
  const uint8_t* bytes;  // bytes of address `lo`
};

struct MemoryView {
  static constexpr uint32_t kMaxRanges = 4;
  ViewRange ranges[kMaxRanges];
  uint32_t count;
};

struct CodeModule {
  uintptr_t text_lo;  // executable segment
  uintptr_t text_hi;
  uintptr_t eh_frame_hdr;  // original address; 0: no unwind table
  // Where the unwind tables may be read; every read of unwind data is checked against it, so a
  // corrupt table cannot fault the handler either.
  MemoryView unwind;
};

struct ModuleSnapshot {
  uint32_t generation;  // set by publish_modules; distinguishes tables over time
  uint32_t count;
  CodeModule modules[1];  // `count` entries, sorted by text_lo

  // Async-signal-safe.
  const CodeModule* find(uintptr_t pc) const;
  static ModuleSnapshot* allocate(uint32_t count);
  static size_t bytes_for(uint32_t count);
};

// Handlers: the snapshot to walk with (may be null).
const ModuleSnapshot* current_modules();

// A walk outside a signal handler (an event's stack, walked on its own thread inside a runtime
// callback, where the handlers' count does not see it) holds one of these for as long as it
// reads the snapshot: nothing retired is freed while any is held. Async-signal-safe.
class ModuleReadScope {
 public:
  ModuleReadScope();
  ~ModuleReadScope();
  ModuleReadScope(const ModuleReadScope&) = delete;
  ModuleReadScope& operator=(const ModuleReadScope&) = delete;
  const ModuleSnapshot* modules() const { return modules_; }

 private:
  const ModuleSnapshot* modules_;
};
// Sampler thread: makes `snapshot` current and retires the previous one.
void publish_modules(ModuleSnapshot* snapshot);
// Memory handlers may still read (an old snapshot's unwind copies), from big_alloc; freed by a
// later reclaim() that finds no handler running. Any thread but a signal handler.
void retire_memory(void* block, size_t bytes);
// Sampler thread: frees what was retired before, if `handlers_idle` says no handler has been
// running since (see the platform's capture_handlers_idle()) and no ModuleReadScope is held.
// Returns bytes still waiting.
size_t reclaim_modules(bool handlers_idle);
// Everything, when the library is about to be unloaded and no handler can run any more.
void release_all_modules();

// True when [addr, addr + size) lies inside one range of the view; `out` then points at the
// bytes of addr.
bool view_read(const MemoryView& v, uintptr_t addr, uintptr_t size, const uint8_t** out);

// The newest generation published so far (0 before the first).
uint32_t latest_generation();

}  // namespace clrscope
