// Thread stack bounds on Windows.
#include "core/platform.h"
#include "windows/win_common.h"

namespace clrscope::platform {

bool current_thread_stack(uintptr_t* lo, uintptr_t* hi) {
  // The whole reservation: its low end is not committed yet, but the walker never reads below
  // the interrupted stack pointer, and everything from there up to the base is committed.
  ULONG_PTR low = 0, high = 0;
  GetCurrentThreadStackLimits(&low, &high);
  if (low == 0 || high <= low) return false;
  *lo = static_cast<uintptr_t>(low);
  *hi = static_cast<uintptr_t>(high);
  return true;
}

bool stack_bounds_containing(uintptr_t sp, uintptr_t* lo, uintptr_t* hi) {
  // A thread stack is one reservation: uncommitted pages, a guard page, then committed
  // read-write pages up to the stack base. sp must lie in the committed part, and the
  // reservation's last region ends at the base.
  MEMORY_BASIC_INFORMATION mbi;
  if (VirtualQuery(reinterpret_cast<const void*>(sp), &mbi, sizeof mbi) != sizeof mbi) return false;
  if (mbi.State != MEM_COMMIT || (mbi.Protect & PAGE_GUARD) != 0 || (mbi.Protect & PAGE_READWRITE) == 0) {
    return false;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(mbi.AllocationBase);
  uintptr_t end = reinterpret_cast<uintptr_t>(mbi.BaseAddress) + mbi.RegionSize;
  // A stack reservation has a handful of regions; the bound only guards against a corrupt map.
  for (int i = 0; i < 64; ++i) {
    MEMORY_BASIC_INFORMATION next;
    if (VirtualQuery(reinterpret_cast<const void*>(end), &next, sizeof next) != sizeof next) break;
    if (next.AllocationBase != mbi.AllocationBase || next.State != MEM_COMMIT) break;
    end = reinterpret_cast<uintptr_t>(next.BaseAddress) + next.RegionSize;
  }
  *lo = base;
  *hi = end;
  return true;
}

}  // namespace clrscope::platform
