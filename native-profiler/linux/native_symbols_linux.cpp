// Native frame names on Linux from the dynamic symbol tables the loader already has.
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdlib>
#include <cstring>

#include "core/native_symbols.h"
#include "core/platform.h"

namespace clrscope {
namespace {

std::string demangle(const char* name) {
  if (name == nullptr) return std::string();
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (d == nullptr || status != 0) return name;
  std::string out(d);
  std::free(d);
  return out;
}

bool is_thread_start(const std::string& module, const std::string& symbol) {
  // The outermost frames of every thread: glibc starts threads and the process there, and
  // glibc is built without frame pointers, so a walk cannot see beyond it anyway.
  if (module.rfind("libc.so", 0) == 0) return true;
  return symbol == "_start" || symbol == "start_thread" || symbol == "__libc_start_main" || symbol == "clone" ||
         symbol == "__clone3";
}

}  // namespace

bool resolve_native(uintptr_t pc, ResolvedFrame* out) {
  Dl_info info;
  void* extra = nullptr;
  if (dladdr1(reinterpret_cast<void*>(pc), &info, &extra, RTLD_DL_SYMENT) == 0 ||
      info.dli_fname == nullptr) {
    return false;
  }
  const ElfW(Sym)* sym = static_cast<const ElfW(Sym)*>(extra);
  out->kind = 1;
  out->module = platform::file_name_of(info.dli_fname);
  out->module_path = info.dli_fname;
  out->name.clear();
  // dladdr answers with the nearest exported symbol below pc even when pc lies in an internal
  // function far past it; trust the symbol only when pc is inside its extent.
  const uintptr_t start = reinterpret_cast<uintptr_t>(info.dli_saddr);
  if (info.dli_sname != nullptr && sym != nullptr && start != 0 && pc >= start &&
      (sym->st_size == 0 ? pc == start : pc < start + sym->st_size)) {
    out->name = demangle(info.dli_sname);
    out->key = start;
  } else {
    out->key = reinterpret_cast<uintptr_t>(info.dli_fbase);
  }
  out->thread_root = is_thread_start(out->module, out->name);
  return true;
}

}  // namespace clrscope
