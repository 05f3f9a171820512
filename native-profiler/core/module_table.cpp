#include "core/module_table.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "core/page_memory.h"

namespace clrscope {
namespace {

std::atomic<const ModuleSnapshot*> g_modules{nullptr};
uint32_t g_generation = 0;
// ModuleReadScopes held now.
std::atomic<int> g_readers{0};

// Retired blocks wait in two lists: those retired since the last reclaim, and those already
// seen by one. A block is freed by the first reclaim that finds handlers idle after a reclaim
// that already held it, so every handler that could have loaded a pointer to it has returned.
struct Block {
  void* p;
  size_t bytes;
};
std::vector<Block>* g_retired = nullptr;
std::vector<Block>* g_waiting = nullptr;
// The lists are the sampler's, but a module's loading thread retires the ReadyToRun snapshot it
// replaces too (add_r2r_image). Never taken in a signal handler.
std::mutex g_retire_lock;


size_t list_bytes(const std::vector<Block>* v) {
  size_t n = 0;
  if (v != nullptr) {
    for (const Block& b : *v) n += b.bytes;
  }
  return n;
}

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

size_t ModuleSnapshot::bytes_for(uint32_t count) {
  return sizeof(ModuleSnapshot) + (count > 0 ? count - 1 : 0) * sizeof(CodeModule);
}

ModuleSnapshot* ModuleSnapshot::allocate(uint32_t count) {
  const size_t bytes = bytes_for(count);
  void* p = big_alloc(bytes);
  if (p == nullptr) return nullptr;
  std::memset(p, 0, bytes);
  auto* s = new (p) ModuleSnapshot;
  s->count = count;
  return s;
}

const ModuleSnapshot* current_modules() { return g_modules.load(std::memory_order_seq_cst); }

// seq_cst on both sides, as for handlers (publish_modules): a reader counted before it loads
// the pointer is either seen by the reclaimer or sees the new table.
ModuleReadScope::ModuleReadScope() {
  g_readers.fetch_add(1, std::memory_order_seq_cst);
  modules_ = current_modules();
}

ModuleReadScope::~ModuleReadScope() { g_readers.fetch_sub(1, std::memory_order_seq_cst); }

void publish_modules(ModuleSnapshot* snapshot) {
  snapshot->generation = ++g_generation;
  // seq_cst: a handler increments its in-handler count before loading this pointer, and the
  // reclaimer reads that count after this store; neither may pass the other.
  const ModuleSnapshot* old = g_modules.exchange(snapshot, std::memory_order_seq_cst);
  if (old != nullptr) retire_memory(const_cast<ModuleSnapshot*>(old), ModuleSnapshot::bytes_for(old->count));
}

uint32_t latest_generation() { return g_generation; }

void retire_memory(void* block, size_t bytes) {
  if (block == nullptr) return;
  const std::lock_guard<std::mutex> hold(g_retire_lock);
  if (g_retired == nullptr) g_retired = new std::vector<Block>;
  g_retired->push_back(Block{block, bytes});
}

size_t reclaim_modules(bool handlers_idle) {
  const std::lock_guard<std::mutex> hold(g_retire_lock);
  if (g_waiting == nullptr) g_waiting = new std::vector<Block>;
  if (handlers_idle && g_readers.load(std::memory_order_seq_cst) == 0) {
    for (const Block& b : *g_waiting) big_free(b.p, b.bytes);
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
  if (last != nullptr) retire_memory(const_cast<ModuleSnapshot*>(last), ModuleSnapshot::bytes_for(last->count));
  reclaim_modules(true);
  reclaim_modules(true);
  const std::lock_guard<std::mutex> hold(g_retire_lock);
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
