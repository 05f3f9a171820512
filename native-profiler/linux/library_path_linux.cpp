#include <dlfcn.h>
#include <link.h>

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

namespace {

struct CodeRange {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
};

// The executable segments of the library holding this code, found once: the loader's lock is
// taken here (dl_iterate_phdr), never on the thread of an event, which may be inside the runtime
// while another thread holds that lock and waits for the runtime.
CodeRange own_code_range() {
  static const CodeRange range = [] {
    CodeRange r;
    dl_iterate_phdr(
        [](struct dl_phdr_info* object, size_t, void* data) -> int {
          const uintptr_t probe = reinterpret_cast<uintptr_t>(&clrscope_probe_enter);
          for (int i = 0; i < object->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = object->dlpi_phdr[i];
            if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
            const uintptr_t lo = object->dlpi_addr + ph.p_vaddr;
            if (probe < lo || probe >= lo + ph.p_memsz) continue;
            *static_cast<CodeRange*>(data) = CodeRange{lo, lo + ph.p_memsz};
            return 1;
          }
          return 0;
        },
        &r);
    return r;
  }();
  return range;
}

}  // namespace

bool is_own_code(uintptr_t pc) {
  const CodeRange r = own_code_range();
  return pc >= r.lo && pc < r.hi;
}

}  // namespace platform
}  // namespace clrscope
