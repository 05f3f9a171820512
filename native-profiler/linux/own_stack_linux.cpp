// The calling thread's own stack on Linux: the signal handler's walker, from this call's frame.
#include "core/platform.h"

namespace clrscope::platform {

// noinline: the registers are those of the caller just after this call returns, so the walk
// starts in the caller (clrscope's own code, which the caller drops).
__attribute__((noinline)) WalkResult walk_own_stack(uintptr_t stack_hi, const ModuleSnapshot* modules, uintptr_t* out,
                                                    uint32_t max_frames, uint32_t tail_keep, uintptr_t* sp) {
  auto* fp = static_cast<uintptr_t*>(__builtin_frame_address(0));
  const WalkRegisters regs{reinterpret_cast<uintptr_t>(__builtin_return_address(0)), reinterpret_cast<uintptr_t>(fp + 2),
                           fp[0]};
  *sp = regs.sp;
  if (regs.sp >= stack_hi) return WalkResult{0, 0, 0, false, 0, {}};
  return walk_frames(regs, StackBounds{regs.sp, stack_hi}, out, max_frames, tail_keep, modules);
}

}  // namespace clrscope::platform
