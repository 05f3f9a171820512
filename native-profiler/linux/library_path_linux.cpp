#include <dlfcn.h>

#include "core/library_path.h"
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
