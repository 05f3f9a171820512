// Native frame names on Linux from the dynamic symbol tables of the loaded objects.
//
// The lookup runs inside dl_iterate_phdr's callback, where the loader holds its lock and no
// listed object can be unmapped, and copies what it needs before returning: dladdr hands back
// pointers into the library's string table, which a dlclose on another thread may unmap before
// they are read.
#include <cxxabi.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/native_symbols.h"
#include "core/platform.h"

namespace clrscope {
namespace {

std::string demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
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

struct Lookup {
  uintptr_t pc;
  bool found = false;
  uintptr_t base = 0;
  std::string path;
  std::string symbol;
  uintptr_t symbol_start = 0;
};

// [addr, addr + size) inside one loaded segment of the object.
bool in_object(const dl_phdr_info* info, uintptr_t addr, uintptr_t size) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    const uintptr_t hi = lo + ph.p_memsz;
    if (addr >= lo && addr <= hi && size <= hi - addr) return true;
  }
  return false;
}

// Number of entries in .dynsym, which the dynamic section does not state: from DT_HASH's chain
// count, or from DT_GNU_HASH by following the chain of the highest bucket to its end.
size_t dynsym_count(const dl_phdr_info* info, uintptr_t hash, uintptr_t gnu_hash) {
  if (hash != 0 && in_object(info, hash, 8)) return reinterpret_cast<const uint32_t*>(hash)[1];
  if (gnu_hash == 0 || !in_object(info, gnu_hash, 16)) return 0;
  const uint32_t* h = reinterpret_cast<const uint32_t*>(gnu_hash);
  const uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
  const uintptr_t buckets_at = gnu_hash + 16 + static_cast<uintptr_t>(bloom_size) * sizeof(ElfW(Addr));
  if (!in_object(info, buckets_at, static_cast<uintptr_t>(nbuckets) * 4)) return 0;
  const uint32_t* buckets = reinterpret_cast<const uint32_t*>(buckets_at);
  uint32_t last = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) last = buckets[b] > last ? buckets[b] : last;
  if (last < symoffset) return symoffset;
  const uintptr_t chains_at = buckets_at + static_cast<uintptr_t>(nbuckets) * 4;
  for (;; ++last) {
    const uintptr_t entry = chains_at + static_cast<uintptr_t>(last - symoffset) * 4;
    if (!in_object(info, entry, 4)) return 0;
    if (*reinterpret_cast<const uint32_t*>(entry) & 1) return last + 1;
  }
}

void find_symbol(const dl_phdr_info* info, Lookup* out) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dyn == nullptr) return;
  uintptr_t symtab = 0, strtab = 0, strsz = 0, hash = 0, gnu_hash = 0;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
      case DT_STRTAB: strtab = d->d_un.d_ptr; break;
      case DT_STRSZ: strsz = d->d_un.d_val; break;
      case DT_HASH: hash = d->d_un.d_ptr; break;
      case DT_GNU_HASH: gnu_hash = d->d_un.d_ptr; break;
      default: break;
    }
  }
  // The loader relocates these addresses in place for ordinary objects but not for the vDSO.
  auto absolute = [info](uintptr_t p) { return p != 0 && p < info->dlpi_addr ? p + info->dlpi_addr : p; };
  symtab = absolute(symtab);
  strtab = absolute(strtab);
  hash = absolute(hash);
  gnu_hash = absolute(gnu_hash);
  const size_t count = dynsym_count(info, hash, gnu_hash);
  if (symtab == 0 || strtab == 0 || count == 0 || !in_object(info, symtab, count * sizeof(ElfW(Sym))) ||
      !in_object(info, strtab, strsz)) {
    return;
  }
  const ElfW(Sym)* syms = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const char* strings = reinterpret_cast<const char*>(strtab);
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Sym)& s = syms[i];
    const unsigned type = ELF64_ST_TYPE(s.st_info);
    if (s.st_shndx == SHN_UNDEF || s.st_value == 0 || (type != STT_FUNC && type != STT_GNU_IFUNC)) continue;
    const uintptr_t start = info->dlpi_addr + s.st_value;
    // A symbol names pc only when pc lies inside its extent; the nearest one below may belong
    // to an internal function far past it.
    if (out->pc < start || (s.st_size == 0 ? out->pc != start : out->pc >= start + s.st_size)) continue;
    if (s.st_name >= strsz) continue;
    const char* name = strings + s.st_name;
    out->symbol.assign(name, strnlen(name, strsz - s.st_name));
    out->symbol_start = start;
    return;
  }
}

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<Lookup*>(data);
  bool covers = false;
  for (int i = 0; i < info->dlpi_phnum && !covers; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    covers = ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && out->pc >= lo && out->pc < lo + ph.p_memsz;
  }
  if (!covers) return 0;
  out->found = true;
  out->base = info->dlpi_addr;
  out->path = info->dlpi_name != nullptr ? info->dlpi_name : "";
  find_symbol(info, out);
  return 1;
}

std::string main_program_name() {
  // The main program is listed with an empty name.
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("[main program]");
}

}  // namespace

bool resolve_native(uintptr_t pc, ResolvedFrame* out) {
  Lookup l;
  l.pc = pc;
  dl_iterate_phdr(find_object, &l);
  if (!l.found) return false;
  out->kind = 1;
  out->module = platform::file_name_of(l.path.empty() ? main_program_name() : l.path);
  out->module_path = l.path.empty() ? main_program_name() : l.path;
  out->name = demangle(l.symbol);
  out->key = l.symbol.empty() ? l.base : l.symbol_start;
  out->thread_root = is_thread_start(out->module, out->name);
  return true;
}

}  // namespace clrscope
