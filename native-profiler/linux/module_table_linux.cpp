// The loaded ELF objects and their unwind tables, from the dynamic loader's own list.
#include <link.h>

#include <algorithm>
#include <vector>

#include "core/module_table.h"
#include "core/platform.h"

namespace clrscope::platform {
namespace {

unsigned long long g_adds = 0;
unsigned long long g_subs = 0;

int peek_counts(dl_phdr_info* info, size_t size, void* data) {
  if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) return 1;
  auto* changed = static_cast<bool*>(data);
  *changed = info->dlpi_adds != g_adds || info->dlpi_subs != g_subs;
  g_adds = info->dlpi_adds;
  g_subs = info->dlpi_subs;
  return 1;  // the counters are the same in every entry; one is enough
}

int collect(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<CodeModule>*>(data);
  CodeModule base{};
  uintptr_t hdr = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_EH_FRAME) hdr = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && base.readable_count < 4) {
      base.readable[base.readable_count++] = ReadableRange{info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz};
    }
  }
  base.eh_frame_hdr = hdr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || ph.p_memsz == 0) continue;
    CodeModule m = base;
    m.text_lo = info->dlpi_addr + ph.p_vaddr;
    m.text_hi = m.text_lo + ph.p_memsz;
    out->push_back(m);
  }
  return 0;
}

}  // namespace

void refresh_modules() {
  bool changed = false;
  dl_iterate_phdr(peek_counts, &changed);
  if (!changed && current_modules() != nullptr) return;
  std::vector<CodeModule> found;
  dl_iterate_phdr(collect, &found);
  std::sort(found.begin(), found.end(), [](const CodeModule& a, const CodeModule& b) { return a.text_lo < b.text_lo; });
  ModuleSnapshot* s = ModuleSnapshot::allocate(static_cast<uint32_t>(found.size()));
  if (s == nullptr) return;
  std::copy(found.begin(), found.end(), s->modules);
  publish_modules(s);
}

}  // namespace clrscope::platform
