#include <utility>

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

// The image's range, found once (GetModuleHandleEx takes the loader's lock): not on the thread
// of an event, which may be inside the runtime while another thread holds that lock.
bool is_own_code(uintptr_t pc) {
  static const std::pair<uintptr_t, uintptr_t> range = []() -> std::pair<uintptr_t, uintptr_t> {
    HMODULE self = nullptr;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            reinterpret_cast<LPCWSTR>(&clrscope_probe_enter), &self)) {
      return {0, 0};
    }
    const auto base = reinterpret_cast<uintptr_t>(self);
    const auto* dos = reinterpret_cast<const IMAGE_DOS_HEADER*>(base);
    const auto* nt = reinterpret_cast<const IMAGE_NT_HEADERS*>(base + static_cast<uintptr_t>(dos->e_lfanew));
    return {base, base + nt->OptionalHeader.SizeOfImage};
  }();
  return pc >= range.first && pc < range.second;
}

}  // namespace platform
}  // namespace clrscope
