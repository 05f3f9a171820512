#pragma once
#include "clr/pal_types.h"

namespace clrscope {

// clrscope's profiler CLSID, as passed in CORECLR_PROFILER / the attach command. The
// workstation has the same value in electron/services/profiler/profiler-env.ts.
inline constexpr clr::GUID kProfilerClsid = clr::guid_from_string("03FD9B91-24D7-4053-BF50-EAA94807A91B");
inline constexpr const char* kProfilerVersion = "0.1.0";

}  // namespace clrscope
