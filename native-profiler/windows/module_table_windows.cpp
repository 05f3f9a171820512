// The module table on Windows: deliberately empty. It exists for the Linux handler, which steps
// through native code with DWARF call-frame information read lock-free inside a signal handler.
// Windows walks differently (thread_capture_windows.cpp): the thread's stack is copied while it
// is suspended and unwound after it runs again, through the system's function tables
// (RtlLookupFunctionEntry, which also reaches the runtime's JIT code through the callback it
// registered) and the unwind-code interpreter in x64_unwind.h.
#include "core/module_table.h"
#include "core/platform.h"

namespace clrscope::platform {

void refresh_modules() {
  if (current_modules() != nullptr) return;
  // Published once and never freed, like every snapshot (a walk may be reading it).
  ModuleSnapshot* empty = ModuleSnapshot::allocate(0);
  if (empty != nullptr) publish_modules(empty);
}

}  // namespace clrscope::platform
