#pragma once
// Callback bodies run through guarded(): nothing may propagate across the COM boundary.
#include <atomic>
#include <cstdint>
#include <new>
#include <stdexcept>

#include "clr/pal_types.h"
#include "core/log.h"
#include "core/injected_throw.h"
#include "core/self_cost.h"

namespace clrscope {

// `part`: where the callback's time goes in the profiler's own cost (core/self_cost.h).
// `once`: a callback that comes once (NestedCostSpan).
template <typename Fn>
clr::HRESULT guarded(const char* what, Fn&& fn, CostPart part = kCostCallbacks, bool once = false) {
  const NestedCostSpan cost(part, once);
  using namespace clr;  // the HRESULT names are macros on Windows, constants in clr:: elsewhere
  // One count per call site (each callback's lambda is its own instantiation): a callback that
  // fails every time logs its first failures and then every thousandth, not a line per call.
  static std::atomic<uint64_t> failures{0};
  const char* why = "unexpected exception";
  HRESULT hr = E_FAIL;
  try {
    if (injected_throw(what)) throw std::runtime_error("injected");
    return fn();
  } catch (const std::bad_alloc&) {
    why = "out of memory";
    hr = E_OUTOFMEMORY;
  } catch (...) {
  }
  const uint64_t n = failures.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n <= 3 || n % 1000 == 0) log_line("%s: %s (%llu so far)", what, why, static_cast<unsigned long long>(n));
  return hr;
}

}  // namespace clrscope
