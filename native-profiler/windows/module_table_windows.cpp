// The module table on Windows: deliberately empty. It exists for the Linux handler, which steps
// through native code with DWARF call-frame information read lock-free inside a signal handler.
// Windows walks differently (thread_capture_windows.cpp): the thread's stack is copied while it
// is suspended and unwound after it runs again, through the system's function tables
// (RtlLookupFunctionEntry, which also reaches the runtime's JIT code through the callback it
// registered) and the unwind-code interpreter in x64_unwind.h.
#include "core/module_table.h"
#include "core/page_memory.h"
#include "core/platform.h"
#include "windows/win_common.h"
#include "core/thread_registry.h"

namespace clrscope::platform {

bool refresh_modules() {
  if (current_modules() != nullptr) return false;
  ModuleSnapshot* empty = ModuleSnapshot::allocate(0);
  if (empty == nullptr) return false;
  publish_modules(empty);
  return true;
}

bool modules_changed_since_refresh() { return false; }

// The ReadyToRun tables serve the Linux handler; Windows looks functions up through the system
// (RtlLookupFunctionEntry, thread_capture_windows.cpp).
bool refresh_r2r_images() { return false; }
bool add_r2r_image(uintptr_t, const char*) { return false; }
void release_r2r_images() {}

void release_free_memory() {}

void* page_alloc(size_t bytes) { return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE); }

void page_free(void* p, size_t) {
  if (p != nullptr) VirtualFree(p, 0, MEM_RELEASE);
}

size_t unwind_copy_bytes() { return 0; }

void release_modules() { release_all_modules(); }

// The OS's thread list is not consulted on Windows yet: only threads the runtime reports are
// sampled there.
bool list_os_threads(std::vector<OsThread>* out) {
  out->clear();
  return false;
}

}  // namespace clrscope::platform
