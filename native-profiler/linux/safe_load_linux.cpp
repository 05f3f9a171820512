// Loads that survive a fault, for the capture handler's heap walk (core/heap_chain.h). The load
// is one instruction at a known address; when it faults, clrscope's fault entry (in front of the
// runtime's SIGSEGV handler, fault_handlers_linux.cpp) sees the faulting instruction is that
// one, moves the interrupted context to the failure exit and returns, as the kernel's own
// exception tables do for user copies. No setjmp, no per-thread state: the fault can come on
// any thread, inside a signal handler.
#include <signal.h>
#include <ucontext.h>

#include <cstdint>

#include "core/platform.h"
#include "linux/fault_handlers_linux.h"

extern "C" int clrscope_safe_load_asm(uintptr_t address, uintptr_t* out);
extern "C" char clrscope_safe_load_fault_at[];
extern "C" char clrscope_safe_load_fixup[];

#if defined(__x86_64__)
asm(R"(
  .text
  .p2align 4
  .globl clrscope_safe_load_asm
  .hidden clrscope_safe_load_asm
  .type clrscope_safe_load_asm,@function
clrscope_safe_load_asm:
  .globl clrscope_safe_load_fault_at
  .hidden clrscope_safe_load_fault_at
clrscope_safe_load_fault_at:
  movq (%rdi), %rax
  movq %rax, (%rsi)
  movl $1, %eax
  ret
  .globl clrscope_safe_load_fixup
  .hidden clrscope_safe_load_fixup
clrscope_safe_load_fixup:
  xorl %eax, %eax
  ret
  .size clrscope_safe_load_asm, .-clrscope_safe_load_asm
)");
#elif defined(__aarch64__)
asm(R"(
  .text
  .p2align 4
  .globl clrscope_safe_load_asm
  .hidden clrscope_safe_load_asm
  .type clrscope_safe_load_asm,%function
clrscope_safe_load_asm:
  .globl clrscope_safe_load_fault_at
  .hidden clrscope_safe_load_fault_at
clrscope_safe_load_fault_at:
  ldr x2, [x0]
  str x2, [x1]
  mov w0, #1
  ret
  .globl clrscope_safe_load_fixup
  .hidden clrscope_safe_load_fixup
clrscope_safe_load_fixup:
  mov w0, #0
  ret
  .size clrscope_safe_load_asm, .-clrscope_safe_load_asm
)");
#else
#error "clrscope: no safe load for this architecture"
#endif

namespace clrscope::platform {

bool safe_load_word(uintptr_t address, uintptr_t* out) {
  if (!safe_loads_ready()) return false;
  return clrscope_safe_load_asm(address, out) != 0;
}

bool recover_safe_load(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  if (uc == nullptr) return false;
#if defined(__x86_64__)
  if (static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]) != reinterpret_cast<uintptr_t>(clrscope_safe_load_fault_at)) return false;
  uc->uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(reinterpret_cast<uintptr_t>(clrscope_safe_load_fixup));
#else
  if (static_cast<uintptr_t>(uc->uc_mcontext.pc) != reinterpret_cast<uintptr_t>(clrscope_safe_load_fault_at)) return false;
  uc->uc_mcontext.pc = reinterpret_cast<uintptr_t>(clrscope_safe_load_fixup);
#endif
  safe_load_faults_add();
  return true;
}

}  // namespace clrscope::platform
