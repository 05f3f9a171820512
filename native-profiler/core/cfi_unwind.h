#pragma once
// One unwind step through native code from its DWARF call-frame information (.eh_frame, found
// through .eh_frame_hdr). glibc and other system libraries keep no frame pointers, so a thread
// waiting inside libc can only be walked back to its callers this way. Runs inside a signal
// handler: no allocation, no locks, every read bounds-checked (unwind data against the
// module's view, which in a handler is the profiler's own copy; stack slots against the
// thread's stack).
#include <cstdint>

#include "core/frame_walker.h"
#include "core/module_table.h"

namespace clrscope {

enum class CfiStep {
  kOk,           // regs now describe the caller
  kOutermost,    // the return address is undefined: this frame is a thread's root
  kNoInfo,       // no FDE covers pc
  kUnsupported,  // the rules need a register or expression we do not track
  kBadRead,      // a read fell outside the unwind data or the stack
};

// `lookup_pc` is the pc used to find the rules: the exact pc for the interrupted frame,
// return address minus one for callers; `generation` is the module table's (cached rules are
// only trusted for the table they were computed under). On kOk, regs.ip/sp/fp hold the
// caller's values.
CfiStep cfi_step(const CodeModule& module, uint32_t generation, uintptr_t lookup_pc, WalkRegisters* regs,
                 const StackBounds& stack);

// The address ranges a walk may read for a module with this .eh_frame_hdr: the header with its
// search table, and .eh_frame from its first CIE to the end of its last FDE. Read through
// `live` (the library's own pages, on the sampler thread while the loader holds the library);
// false when the tables are not in a shape this unwinder uses. The ranges' `bytes` are unset.
bool unwind_extent(const MemoryView& live, uintptr_t eh_frame_hdr, ViewRange* hdr_range, ViewRange* frames_range);

}  // namespace clrscope
