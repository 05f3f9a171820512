#pragma once
// Walks a thread's stack from an interrupted context. Runs inside a signal handler: no
// allocation, no locks, no calls into anything that might take one. Native code with unwind
// tables is stepped through with its DWARF call-frame information (system libraries keep no
// frame pointers), ReadyToRun code with its images' unwind codes (core/r2r_unwind.h);
// everything else, notably JIT-compiled code, through the frame-pointer chain. Every memory
// read is bounds-checked first, so a corrupt chain ends the walk instead of faulting.
#include <cstdint>

namespace clrscope {

struct ModuleSnapshot;

struct WalkRegisters {
  uintptr_t ip;
  uintptr_t sp;
  uintptr_t fp;
};

struct StackBounds {
  uintptr_t lo;  // lowest valid address (inclusive)
  uintptr_t hi;  // one past the highest valid address
};

// On-stack replacement (the runtime moving a running method from its first code into optimized
// code in the middle of a loop) leaves two frame records for one call: the optimized frame's
// record saves the original frame's caller's frame pointer, and its return-address slot holds
// the patchpoint's address inside the original code; the original frame's record, with the
// real return address into the caller, sits above it. Following the frame pointer alone skips
// the caller and shows the method twice. The walker cannot tell such a record from a look-alike
// in the caller's frame, so it keeps both candidates and lets the sampler decide by name: the
// pair at out[at] (the patchpoint's address) and out[at + 1] (the return address from the
// original record) is an OSR pair when out[at] lies in the same method as out[at - 1].
constexpr uint32_t kMaxOsrPairs = 8;

struct WalkResult {
  uint32_t count;    // frames written to `out`
  uint32_t gap_at;   // when elided > 0: frames [0, gap_at) are innermost, the rest outermost
  uint32_t elided;   // frames dropped from the middle of a stack deeper than the buffer
  bool complete;     // the walk reached a frame that marks a thread's root
  uint32_t osr_pairs;
  uint32_t osr_at[kMaxOsrPairs];  // positions in `out`, all within the innermost part
};

// Writes return addresses leaf first into out[0..max_frames). Frame 0 is the interrupted
// instruction pointer itself. When the stack is deeper than max_frames, the innermost
// (max_frames - tail_keep) frames and the outermost tail_keep frames are kept, so the
// flame graph stays rooted at the thread's entry point. `modules` may be null (frame
// pointers only).
WalkResult walk_frames(const WalkRegisters& regs, const StackBounds& bounds, uintptr_t* out, uint32_t max_frames,
                       uint32_t tail_keep, const ModuleSnapshot* modules);

}  // namespace clrscope
