#pragma once
// The file the profiler library was loaded from (for a P/Invoke that must name it).
#include <string>

namespace clrscope {
namespace platform {

// Empty when the OS does not say.
std::string library_path();

}  // namespace platform
}  // namespace clrscope
