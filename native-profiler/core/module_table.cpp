#include "core/module_table.h"

#include <cstdlib>
#include <new>

namespace clrscope {
namespace {

std::atomic<const ModuleSnapshot*> g_modules{nullptr};
uint32_t g_generation = 0;

// Retired blocks wait in two lists: those retired since the last reclaim, and those already
// seen by one. A block is freed by the first reclaim that finds handlers idle after a reclaim
// that already held it, so every handler that could have loaded a pointer to it has returned.
std::vector<void*>* g_retired = nullptr;
std::vector<void*>* g_waiting = nullptr;


size_t list_bytes(const std::vector<void*>* v) { return v == nullptr ? 0 : v->size(); }

}  // namespace

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

const ModuleSnapshot* current_modules() { return g_modules.load(std::memory_order_seq_cst); }

void publish_modules(ModuleSnapshot* snapshot) {
  snapshot->generation = ++g_generation;
  // seq_cst: a handler increments its in-handler count before loading this pointer, and the
  // reclaimer reads that count after this store; neither may pass the other.
  const ModuleSnapshot* old = g_modules.exchange(snapshot, std::memory_order_seq_cst);
  if (old != nullptr) retire_memory(const_cast<ModuleSnapshot*>(old));
}

uint32_t latest_generation() { return g_generation; }

void retire_memory(void* block) {
  if (block == nullptr) return;
  if (g_retired == nullptr) g_retired = new std::vector<void*>;
  g_retired->push_back(block);
}

size_t reclaim_modules(bool handlers_idle) {
  if (g_waiting == nullptr) g_waiting = new std::vector<void*>;
  if (handlers_idle) {
    for (void* p : *g_waiting) std::free(p);
    g_waiting->clear();
  }
  if (g_retired != nullptr && !g_retired->empty()) {
    g_waiting->insert(g_waiting->end(), g_retired->begin(), g_retired->end());
    g_retired->clear();
  }
  return list_bytes(g_waiting);
}

void release_all_modules() {
  const ModuleSnapshot* last = g_modules.exchange(nullptr, std::memory_order_seq_cst);
  if (last != nullptr) retire_memory(const_cast<ModuleSnapshot*>(last));
  reclaim_modules(true);
  reclaim_modules(true);
  delete g_retired;
  delete g_waiting;
  g_retired = g_waiting = nullptr;
}

bool view_read(const MemoryView& v, uintptr_t addr, uintptr_t size, const uint8_t** out) {
  for (uint32_t i = 0; i < v.count && i < MemoryView::kMaxRanges; ++i) {
    const ViewRange& r = v.ranges[i];
    if (addr >= r.lo && addr <= r.hi && size <= r.hi - addr) {
      *out = r.bytes + (addr - r.lo);
      return true;
    }
  }
  return false;
}




}  // namespace clrscope
