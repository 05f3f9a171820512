#pragma once
// The capture signal held off while a fault handler runs on the alternate stack
// (fault_handlers_linux.cpp). Linux only; called by signal_capture_linux.cpp.
#include <cstdint>

namespace clrscope::platform {

// Puts clrscope's entry in front of each fault handler that runs on the alternate stack, with
// `capture_signal` added to its mask.
void hold_capture_during_fault_handlers(int capture_signal);
// Gives each fault signal its handler back; false when another library installed one over
// clrscope's entry since (then the library must stay loaded: that one may pass faults on to it).
bool release_fault_handlers();
// How many fault handlers clrscope's entry stands in front of (for the log and tests).
uint32_t wrapped_fault_handlers();
// Inside the fault entry: a fault of safe_load_word's load is moved to its failure exit (true);
// any other fault is not ours (false). safe_load_linux.cpp.
bool recover_safe_load(void* ucontext);
// Faults of safe loads recovered so far.
void safe_load_faults_add();
uint64_t safe_load_faults();

}  // namespace clrscope::platform
