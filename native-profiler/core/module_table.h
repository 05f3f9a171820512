#pragma once
// The native code of the process as the signal handler sees it: executable ranges of loaded
// ELF objects with the location of their unwind tables. Built on the sampler thread, published
// as an immutable snapshot through one atomic pointer, read lock-free by handlers. Snapshots
// are never freed: a handler may still be reading an old one.
#include <atomic>
#include <cstdint>

namespace clrscope {

struct ReadableRange {
  uintptr_t lo;
  uintptr_t hi;
};

struct CodeModule {
  uintptr_t text_lo;  // executable segment
  uintptr_t text_hi;
  uintptr_t eh_frame_hdr;  // 0: no unwind table
  // Segments of the object that may be read (the unwind tables live in one of them); every
  // read of unwind data is checked against these, so a corrupt table cannot fault the handler.
  ReadableRange readable[4];
  uint32_t readable_count;
};

struct ModuleSnapshot {
  uint32_t generation;  // set by publish_modules; distinguishes tables over time
  uint32_t count;
  CodeModule modules[1];  // `count` entries, sorted by text_lo

  // Async-signal-safe.
  const CodeModule* find(uintptr_t pc) const;
  static ModuleSnapshot* allocate(uint32_t count);
};

const ModuleSnapshot* current_modules();
void publish_modules(ModuleSnapshot* snapshot);

// True when [addr, addr + size) lies inside one readable segment of the module.
bool module_readable(const CodeModule& m, uintptr_t addr, uintptr_t size);

}  // namespace clrscope
