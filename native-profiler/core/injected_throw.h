#pragma once
// Failure injection for the torture suite. CLRSCOPE_INJECT_THROW names places (comma-separated):
// callbacks as guarded() names them, whose body then throws before it runs, and SamplerTick,
// where the sampler thread's tick throws. A test then shows that no exception reaches the runtime
// or ends the process, and that the program runs on. Unset in normal use: one load per check.

namespace clrscope {

bool injected_throw(const char* place);

}  // namespace clrscope
