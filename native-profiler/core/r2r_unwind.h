#pragma once
// Unwinding through ReadyToRun code inside a signal handler: the images' tables
// (core/r2r_image.h) published as one immutable snapshot behind an atomic pointer, read
// lock-free; the step interprets the function's copied unwind codes (core/x64_unwind.h) against
// the live stack, every read bounds-checked. Retired snapshots and tables are freed through the
// module table's reclaim (core/module_table.h), so a handler or a ModuleReadScope still holding
// them keeps them alive.
#include <cstdint>

#include "core/frame_walker.h"
#include "core/r2r_image.h"

namespace clrscope {

struct R2rSnapshot {
  uint32_t count;
  const R2rTable* tables[1];  // `count` entries, sorted by code_lo, ranges disjoint

  const R2rTable* find(uintptr_t pc) const;  // async-signal-safe
  static R2rSnapshot* allocate(uint32_t count);
  static size_t bytes_for(uint32_t count);
};

// Handlers and walks: the snapshot to unwind precompiled code with (may be null).
const R2rSnapshot* current_r2r();
// Sampler thread: makes `s` current and retires the previous snapshot (not its tables: the
// caller retires a table once no snapshot it publishes names it).
void publish_r2r(R2rSnapshot* s);

enum class R2rStep {
  kOk,       // regs now describe the caller
  kNotR2r,   // pc is in no ReadyToRun function we hold
  kFailed,   // the codes could not be followed or a read left the stack
};

// One frame of precompiled code: `lookup_pc` finds the function (the exact pc for the
// interrupted frame, return address - 1 for callers), `exact` says regs->ip is where the thread
// stopped (it may then be in a prolog or an epilog, whose code bytes are read: the thread was
// running them, so they are mapped). Async-signal-safe.
R2rStep r2r_step(const R2rSnapshot& images, uintptr_t lookup_pc, bool exact, WalkRegisters* regs,
                 const StackBounds& stack);

// The runtime's module loads and unloads (the profiler's callbacks count them): the sampler
// looks for new images only when this moved. Any thread.
void note_managed_module_change();
uint64_t managed_module_changes();

}  // namespace clrscope
