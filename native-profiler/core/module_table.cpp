#include "core/module_table.h"

#include <cstdlib>
#include <new>

namespace clrscope {
namespace {
std::atomic<const ModuleSnapshot*> g_modules{nullptr};
}

const CodeModule* ModuleSnapshot::find(uintptr_t pc) const {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (modules[mid].text_hi <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < count && modules[lo].text_lo <= pc && pc < modules[lo].text_hi) return &modules[lo];
  return nullptr;
}

ModuleSnapshot* ModuleSnapshot::allocate(uint32_t count) {
  const size_t bytes = sizeof(ModuleSnapshot) + (count > 0 ? count - 1 : 0) * sizeof(CodeModule);
  void* p = std::calloc(1, bytes);
  if (p == nullptr) return nullptr;
  auto* s = new (p) ModuleSnapshot;
  s->count = count;
  return s;
}

const ModuleSnapshot* current_modules() { return g_modules.load(std::memory_order_acquire); }
void publish_modules(ModuleSnapshot* snapshot) {
  static uint32_t generation = 0;
  snapshot->generation = ++generation;
  g_modules.store(snapshot, std::memory_order_release);
}

bool module_readable(const CodeModule& m, uintptr_t addr, uintptr_t size) {
  for (uint32_t i = 0; i < m.readable_count; ++i) {
    const ReadableRange& r = m.readable[i];
    if (addr >= r.lo && addr <= r.hi && size <= r.hi - addr) return true;
  }
  return false;
}

}  // namespace clrscope
