#include "core/library_path.h"
#include "core/platform.h"
#include "core/measure_probes.h"
#include "core/utf16.h"
#include "windows/win_common.h"

namespace clrscope {
namespace platform {

std::string library_path() {
  HMODULE self = nullptr;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          reinterpret_cast<LPCWSTR>(&clrscope_probe_enter), &self)) {
    return std::string();
  }
  wchar_t path[1024];
  const DWORD n = GetModuleFileNameW(self, path, 1024);
  if (n == 0 || n >= 1024) return std::string();
  return utf16_to_utf8(reinterpret_cast<const char16_t*>(path), n);
}

}  // namespace platform
}  // namespace clrscope

namespace clrscope {
namespace platform {

bool is_own_code(uintptr_t pc) {
  HMODULE self = nullptr, at = nullptr;
  const DWORD flags = GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT;
  return GetModuleHandleExW(flags, reinterpret_cast<LPCWSTR>(&clrscope_probe_enter), &self) &&
         GetModuleHandleExW(flags, reinterpret_cast<LPCWSTR>(pc), &at) && self == at;
}

}  // namespace platform
}  // namespace clrscope
