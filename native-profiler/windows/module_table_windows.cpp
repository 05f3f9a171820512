// The module table on Windows: deliberately empty, so every walk follows frame pointers only.
//
// The table exists to step through native code with DWARF call-frame information, which PE
// images do not carry: x64 Windows code describes its frames in .pdata/.xdata instead. The
// system's reader for those (RtlLookupFunctionEntry, RtlVirtualUnwind) may take the loader lock
// or call back into the runtime for JIT-compiled code, so it cannot run while the sampler holds
// a thread suspended, and a lock-free reader of our own is future work. Until then a native
// frame without a frame pointer (most of ntdll, kernel32 and the runtime itself) is skipped
// over when it leaves RBP alone, and ends the walk (or now and then adds a bogus frame) when it
// uses RBP as a scratch register. The same holds for JIT-compiled code: on x64 Windows the JIT
// does not promise RBP frames (it does on Unix), so managed stacks can come out shorter than on
// Linux.
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
