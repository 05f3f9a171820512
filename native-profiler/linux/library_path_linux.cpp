#include <dlfcn.h>

#include "core/library_path.h"
#include "core/platform.h"
#include "core/measure_probes.h"

namespace clrscope {
namespace platform {

std::string library_path() {
  Dl_info info{};
  // dladdr's strings belong to the loader; copied at once.
  if (dladdr(reinterpret_cast<void*>(&clrscope_probe_enter), &info) == 0 || info.dli_fname == nullptr) return std::string();
  return std::string(info.dli_fname);
}

}  // namespace platform
}  // namespace clrscope

namespace clrscope {
namespace platform {

bool is_own_code(uintptr_t pc) {
  static void* const own_base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&clrscope_probe_enter), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return own_base != nullptr && dladdr(reinterpret_cast<void*>(pc), &info) != 0 && info.dli_fbase == own_base;
}

}  // namespace platform
}  // namespace clrscope
