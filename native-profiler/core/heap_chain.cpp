#include "core/heap_chain.h"

namespace clrscope {
namespace {

uint32_t slot_of(uintptr_t key, uint32_t probe) {
  // MethodTables are 8-byte aligned: the low bits carry nothing.
  const uint64_t h = (static_cast<uint64_t>(key) >> 3) * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>((h >> 40) + probe) & (HeapTypeSet::kSlots - 1);
}

// An object reference the handler may try to load: aligned, above the null page, below the
// top of user space. Anything else is no object, whatever the loads would say.
bool plausible(uintptr_t address) {
  return address >= 0x10000 && (address & 7) == 0 && address < (static_cast<uintptr_t>(1) << 56);
}

}  // namespace

HeapTypeSet::HeapTypeSet() {
  for (auto& k : keys_) k.store(0, std::memory_order_relaxed);
  for (auto& v : values_) v.store(0, std::memory_order_relaxed);
  for (auto& u : unknown_) u.store(0, std::memory_order_relaxed);
}

bool HeapTypeSet::find(uintptr_t method_table, HeapType* out) const {
  if (method_table == 0) return false;
  for (uint32_t p = 0; p < kProbes; ++p) {
    const uint32_t s = slot_of(method_table, p);
    const uintptr_t key = keys_[s].load(std::memory_order_acquire);
    if (key == 0) return false;
    if (key != method_table) continue;
    const uint32_t v = values_[s].load(std::memory_order_relaxed);
    out->kind = static_cast<HeapKind>(v >> 16);
    out->next_offset = static_cast<uint16_t>(v);
    return true;
  }
  return false;
}

bool HeapTypeSet::add(uintptr_t method_table, HeapType type) {
  if (method_table == 0) return false;
  const uint32_t value = static_cast<uint32_t>(type.kind) << 16 | type.next_offset;
  for (uint32_t p = 0; p < kProbes; ++p) {
    const uint32_t s = slot_of(method_table, p);
    const uintptr_t key = keys_[s].load(std::memory_order_relaxed);
    if (key == method_table) return true;  // classified once; its layout does not change
    if (key != 0) continue;
    values_[s].store(value, std::memory_order_relaxed);
    keys_[s].store(method_table, std::memory_order_release);
    size_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  full_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void HeapTypeSet::note_unknown(uintptr_t method_table) {
  const uint32_t start = slot_of(method_table, 0) & (kUnknownSlots - 1);
  for (uint32_t i = 0; i < kUnknownSlots; ++i) {
    std::atomic<uintptr_t>& s = unknown_[(start + i) & (kUnknownSlots - 1)];
    uintptr_t seen = s.load(std::memory_order_relaxed);
    if (seen == method_table) return;  // already waiting
    if (seen != 0) continue;
    if (s.compare_exchange_strong(seen, method_table, std::memory_order_acq_rel)) return;
    if (seen == method_table) return;
  }
  unknown_dropped_.fetch_add(1, std::memory_order_relaxed);
}

size_t HeapTypeSet::take_unknown(uintptr_t* out, size_t max) {
  size_t n = 0;
  for (uint32_t i = 0; i < kUnknownSlots && n < max; ++i) {
    const uintptr_t mt = unknown_[i].exchange(0, std::memory_order_acq_rel);
    if (mt != 0) out[n++] = mt;
  }
  return n;
}

HeapWalk walk_heap_chain(uintptr_t box, HeapTypeSet& types, SafeLoad load, uintptr_t* out, uint32_t max_boxes,
                         uint32_t max_hops) {
  HeapWalk w;
  uintptr_t object = box;
  for (uint32_t hops = 0; object != 0; ++hops) {
    if (hops == max_hops) {
      w.end = HeapWalkEnd::kDepth;
      return w;
    }
    uintptr_t mt = 0;
    if (!plausible(object) || !load(object, &mt)) {
      w.end = HeapWalkEnd::kBadRead;
      return w;
    }
    HeapType type;
    if (!types.find(mt, &type)) {
      types.note_unknown(mt);
      w.end = HeapWalkEnd::kUnknown;
      return w;
    }
    switch (type.kind) {
      case HeapKind::kBox:
        if (w.count == max_boxes) {
          w.end = HeapWalkEnd::kDepth;
          return w;
        }
        out[w.count++] = mt;
        w.root = object;
        break;
      case HeapKind::kTask:
      case HeapKind::kDelegate:
      case HeapKind::kContinuation:
        // Only a box is where a chain begins: the running box's type is checked like the rest.
        if (hops == 0) {
          w.end = HeapWalkEnd::kBadRead;
          return w;
        }
        break;
      default:
        w.end = hops == 0 ? HeapWalkEnd::kBadRead : HeapWalkEnd::kDone;
        return w;
    }
    uintptr_t next = 0;
    if (type.next_offset == 0 || !load(object + type.next_offset, &next)) {
      w.end = HeapWalkEnd::kBadRead;
      return w;
    }
    object = next;
  }
  return w;
}

}  // namespace clrscope
