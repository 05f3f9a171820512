#pragma once
// An EventPipe provider told by its name. The providers of the profiler's session share event ids
// (10 is both TplEventSource's TaskWaitBegin and the runtime's AllocationTick), so each delivered
// event is told apart by its provider's handle; the runtime names a handle once, and the callers
// keep the answer.
#include <cstddef>

#include "clr/corprof.h"

namespace clrscope {

// Whether `provider` is named `name` (`length` characters, at most 63).
bool provider_named(clr::ICorProfilerInfo12* info, clr::EVENTPIPE_PROVIDER provider, const char16_t* name, size_t length);

template <size_t N>
bool provider_named(clr::ICorProfilerInfo12* info, clr::EVENTPIPE_PROVIDER provider, const char16_t (&name)[N]) {
  return provider_named(info, provider, name, N - 1);
}

}  // namespace clrscope
