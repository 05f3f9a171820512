// The loaded ELF objects and copies of their unwind tables, from the dynamic loader's own list.
//
// Everything that reads a library's pages happens inside dl_iterate_phdr's callback: the
// loader holds its lock there, so no library in the list can be unmapped while we read it (an
// object leaves the list before it is unmapped and joins it after it is mapped). Handlers only
// ever read the copies.
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/cfi_unwind.h"
#include "core/log.h"
#include "core/module_history.h"
#include "core/module_table.h"
#include "core/page_memory.h"
#include "core/platform.h"

namespace clrscope::platform {
namespace {

struct UnwindCopy {
  uintptr_t base;  // dlpi_addr
  uintptr_t hdr;
  ViewRange hdr_range;
  ViewRange frames_range;
  uint8_t* block;  // both ranges' bytes, one allocation (freed through retire_memory)
  size_t size;
  unsigned long long subs_when_made;  // the loader's removal count when copied
  bool seen;
};

struct State {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
  std::vector<UnwindCopy> copies;
  size_t copied_bytes = 0;
};

State& state() {
  static State* s = new State;
  return *s;
}

struct Collect {
  std::vector<CodeModule> modules;
  std::vector<LoadedCode> loaded;
  // The loader's counters as the list was read, under the same lock.
  unsigned long long adds = 0;
  unsigned long long subs = 0;
  bool counted = false;
};

int peek_counts(dl_phdr_info* info, size_t size, void* data) {
  if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) return 1;
  auto* counts = static_cast<unsigned long long*>(data);  // {adds, subs}
  counts[0] = info->dlpi_adds;
  counts[1] = info->dlpi_subs;
  return 1;  // the counters are the same in every entry; one is enough
}

// Whether the copy still holds this object's tables. With no unload since the copy was made,
// nothing can have replaced the object at its address; after one, the bytes decide.
bool same_tables(const UnwindCopy& c, const ViewRange& live_hdr, const ViewRange& live_frames,
                 unsigned long long subs_now) {
  if (c.hdr_range.lo != live_hdr.lo || c.hdr_range.hi != live_hdr.hi || c.frames_range.lo != live_frames.lo ||
      c.frames_range.hi != live_frames.hi) {
    return false;
  }
  if (c.subs_when_made == subs_now) return true;
  return std::memcmp(c.hdr_range.bytes, live_hdr.bytes, live_hdr.hi - live_hdr.lo) == 0 &&
         std::memcmp(c.frames_range.bytes, live_frames.bytes, live_frames.hi - live_frames.lo) == 0;
}

// The profiler's copy of this object's unwind tables: an existing one when the same bytes are
// still there, else a new one. Null when the object has none we can use.
const UnwindCopy* copy_for(dl_phdr_info* info, const MemoryView& live, uintptr_t hdr, unsigned long long subs_now) {
  ViewRange h{}, f{};
  if (!unwind_extent(live, hdr, &h, &f)) return nullptr;
  const uint8_t* hb = nullptr;
  const uint8_t* fb = nullptr;
  if (!view_read(live, h.lo, h.hi - h.lo, &hb) || !view_read(live, f.lo, f.hi - f.lo, &fb)) return nullptr;
  h.bytes = hb;
  f.bytes = fb;
  State& st = state();
  for (UnwindCopy& c : st.copies) {
    if (c.base == info->dlpi_addr && c.hdr == hdr && !c.seen && same_tables(c, h, f, subs_now)) {
      c.seen = true;
      return &c;
    }
  }
  const size_t hs = h.hi - h.lo, fs = f.hi - f.lo;
  auto* block = static_cast<uint8_t*>(big_alloc(hs + fs));
  if (block == nullptr) return nullptr;
  std::memcpy(block, hb, hs);
  std::memcpy(block + hs, fb, fs);
  UnwindCopy c{info->dlpi_addr, hdr, ViewRange{h.lo, h.hi, block}, ViewRange{f.lo, f.hi, block + hs}, block, hs + fs,
               subs_now, true};
  st.copies.push_back(c);
  st.copied_bytes += hs + fs;
  return &st.copies.back();
}

std::string object_name(const dl_phdr_info* info) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return file_name_of(info->dlpi_name);
  // The main program is listed with an empty name.
  static const std::string* program = nullptr;
  if (program == nullptr) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    program = new std::string(n > 0 ? file_name_of(std::string(buf, static_cast<size_t>(n))) : "[program]");
  }
  return *program;
}

int collect(dl_phdr_info* info, size_t size, void* data) {
  auto* out = static_cast<Collect*>(data);
  if (!out->counted) {
    peek_counts(info, size, &out->adds);
    out->counted = true;
  }
  MemoryView live{};
  uintptr_t hdr = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_EH_FRAME) hdr = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && live.count < MemoryView::kMaxRanges) {
      const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
      live.ranges[live.count++] = ViewRange{lo, lo + ph.p_memsz, reinterpret_cast<const uint8_t*>(lo)};
    }
  }
  const UnwindCopy* copy = hdr != 0 ? copy_for(info, live, hdr, out->subs) : nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || ph.p_memsz == 0) continue;
    CodeModule m{};
    m.text_lo = info->dlpi_addr + ph.p_vaddr;
    m.text_hi = m.text_lo + ph.p_memsz;
    if (copy != nullptr) {
      m.eh_frame_hdr = copy->hdr;
      m.unwind.ranges[0] = copy->hdr_range;
      m.unwind.ranges[1] = copy->frames_range;
      m.unwind.count = 2;
    }
    out->modules.push_back(m);
    out->loaded.push_back(LoadedCode{m.text_lo, m.text_hi, info->dlpi_addr, object_name(info)});
  }
  return 0;
}

}  // namespace

bool refresh_modules() {
  State& st = state();
  const uint64_t now = mono_now_ns();
  unsigned long long counts[2] = {0, 0};
  dl_iterate_phdr(peek_counts, counts);
  const bool changed = counts[0] != st.adds || counts[1] != st.subs || current_modules() == nullptr;
  reclaim_modules(capture_handlers_idle());
  if (!changed) {
    module_history().confirm(now);
    return false;
  }
  for (UnwindCopy& c : st.copies) c.seen = false;
  Collect found;
  dl_iterate_phdr(collect, &found);
  std::sort(found.modules.begin(), found.modules.end(),
            [](const CodeModule& a, const CodeModule& b) { return a.text_lo < b.text_lo; });
  ModuleSnapshot* s = ModuleSnapshot::allocate(static_cast<uint32_t>(found.modules.size()));
  if (s == nullptr) return false;
  std::copy(found.modules.begin(), found.modules.end(), s->modules);
  publish_modules(s);
  const uint64_t removals = found.subs >= st.subs ? found.subs - st.subs : 0;
  module_history().observe(now, s->generation, found.loaded, removals);
  st.adds = found.adds;
  st.subs = found.subs;
  // Copies of objects no longer loaded wait until no handler can be reading them.
  for (auto it = st.copies.begin(); it != st.copies.end();) {
    if (it->seen) {
      ++it;
      continue;
    }
    st.copied_bytes -= it->size;
    retire_memory(it->block, it->size);
    it = st.copies.erase(it);
  }
  return true;
}

size_t unwind_copy_bytes() { return state().copied_bytes; }

bool modules_changed_since_refresh() {
  unsigned long long counts[2] = {0, 0};
  dl_iterate_phdr(peek_counts, counts);
  return counts[0] != state().adds || counts[1] != state().subs;
}

void release_modules() {
  State& st = state();
  for (UnwindCopy& c : st.copies) retire_memory(c.block, c.size);
  st.copies.clear();
  st.adds = st.subs = 0;
  st.copied_bytes = 0;
  release_all_modules();
}

}  // namespace clrscope::platform
