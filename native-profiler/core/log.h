#pragma once
// The profiler's diagnostics go to a file named by CLRSCOPE_LOG, never to the target's
// stdout/stderr (they belong to the program). Without the variable, logging is off.
#include <string>

namespace clrscope {

void log_open_from_env();
// Closes the log file (before the library is unloaded).
void log_close();
// printf-style; normal context only (never from a signal handler).
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void log_line(const char* fmt, ...);

}  // namespace clrscope
