#pragma once
// Names for native code (the runtime, libc, the host, P/Invoke targets), per OS.
#include <cstdint>

#include "core/symbol_cache.h"

namespace clrscope {

// True when `pc` lies in a loaded native library or executable; fills `out` with
// `symbol` (demangled where possible, empty when the library has no symbol covering pc) and
// `module` (the library's file name). Sampler thread only (takes the loader's lock).
bool resolve_native(uintptr_t pc, ResolvedFrame* out);

}  // namespace clrscope
