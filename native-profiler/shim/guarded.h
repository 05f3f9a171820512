#pragma once
// Callback bodies run through guarded(): nothing may propagate across the COM boundary.
#include <new>

#include "clr/pal_types.h"
#include "core/log.h"

namespace clrscope {

template <typename Fn>
clr::HRESULT guarded(const char* what, Fn&& fn) {
  using namespace clr;  // the HRESULT names are macros on Windows, constants in clr:: elsewhere
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    log_line("%s: out of memory", what);
    return E_OUTOFMEMORY;
  } catch (...) {
    log_line("%s: unexpected exception", what);
    return E_FAIL;
  }
}

}  // namespace clrscope
