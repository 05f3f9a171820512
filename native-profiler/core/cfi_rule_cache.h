#pragma once
// A walk steps through the same native return addresses over and over (every thread enters
// the runtime the same way); interpreting their unwind programs each time is most of what a
// capture costs. Results are kept per pc in a fixed table written by handlers themselves, one
// writer per entry at a time (a sequence word claimed with compare-exchange); readers retry
// nothing: a torn or busy entry is simply a miss. Entries carry the module table's generation,
// so a library loaded where another was unloaded never inherits stale rules.
// Runs inside a signal handler: lock-free, no allocation.
#include <cstdint>

#include "core/cfi_unwind.h"

namespace clrscope {

// What the call-frame information says about one pc, independent of any register values: the
// part worth caching.
struct PcRules {
  CfiStep status;
  bool cfa_from_fp;  // CFA = fp + cfa_offset, else sp + cfa_offset
  bool fp_saved;     // the caller's fp is at CFA + fp_offset, else unchanged
  int64_t cfa_offset;
  int64_t ra_offset;
  int64_t fp_offset;
};

// The rules kept for `pc` under the module table's `generation`; false on a miss.
bool cfi_cache_get(uintptr_t pc, uint32_t generation, PcRules* out);
// Keeps them, unless the entry is being written by another handler or they do not fit it.
void cfi_cache_put(uintptr_t pc, uint32_t generation, const PcRules& r);

}  // namespace clrscope
