#include "shim/provider_name.h"

namespace clrscope {

using namespace clr;

bool provider_named(ICorProfilerInfo12* info, EVENTPIPE_PROVIDER provider, const char16_t* name, size_t length) {
  constexpr ULONG kChars = 64;
  if (provider == 0 || length >= kChars) return false;
  WCHAR got[kChars] = {};
  ULONG got_length = 0;
  if (FAILED(info->EventPipeGetProviderInfo(provider, kChars, &got_length, got))) return false;
  // The runtime's length may or may not count the NUL.
  if (got_length != length && got_length != length + 1) return false;
  for (size_t i = 0; i < length; ++i) {
    if (static_cast<char16_t>(got[i]) != name[i]) return false;
  }
  return true;
}

}  // namespace clrscope
