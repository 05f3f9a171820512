#pragma once
// Helpers shared by the files of the Windows OS layer; nothing outside windows/ includes this.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/transport.h"

namespace clrscope::win {

// Everything the profiler hands on (frame names, paths, the socket path) is UTF-8; Windows
// speaks UTF-16.
std::string utf8_from_wide(const wchar_t* s, size_t units);
std::wstring wide_from_utf8(const std::string& s);

// Kernel plus user time of a thread, in nanoseconds. GetThreadTimes is a plain system call:
// no user-mode lock, so the sampler may call it while the thread is suspended.
bool thread_times_ns(HANDLE thread, uint64_t* out);

// The named-pipe half of connect_transport (socket_transport_windows.cpp picks the kind).
std::unique_ptr<Transport> connect_named_pipe(const std::string& path);

}  // namespace clrscope::win
