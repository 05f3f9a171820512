#pragma once
// The runtime hands names out as UTF-16 (WCHAR is char16_t on Unix); the stream carries UTF-8.
#include <cstddef>
#include <string>

namespace clrscope {

// Converts up to `units` code units (stopping at a NUL); unpaired surrogates become U+FFFD.
std::string utf16_to_utf8(const char16_t* s, size_t units);

}  // namespace clrscope
