#pragma once
// Failure injection for the torture suite. CLRSCOPE_INJECT_THROW names callbacks (comma-separated,
// as guarded() names them) whose body throws before it runs, so a test can show that no exception
// reaches the runtime and that the program runs on. Unset in normal use: one load per callback.

namespace clrscope {

bool injected_throw(const char* callback);

}  // namespace clrscope
