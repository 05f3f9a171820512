// Async stacks read from the heap (core/heap_chain.h) need loads that survive a fault inside the
// capture; Windows captures from the sampler thread, where the walk's premise (the thread runs
// managed code, so no GC moves objects) does not hold. Not offered there.
#include "core/platform.h"

namespace clrscope::platform {

bool safe_load_word(uintptr_t, uintptr_t*) { return false; }
bool safe_loads_ready() { return false; }

}  // namespace clrscope::platform
