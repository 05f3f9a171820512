#include "core/heap_chains.h"

namespace clrscope {
namespace {
// Queued types looked at per tick (the queue holds HeapTypeSet::kUnknownSlots).
constexpr size_t kClassifyPerTick = HeapTypeSet::kUnknownSlots;
}  // namespace

HeapChains::HeapChains(HeapTypeSet* types, Classifier classify) : types_(types), classify_(std::move(classify)) {
  nodes_.push_back(Node{0, 0});
}

uint32_t HeapChains::node(uint32_t parent, uintptr_t method_table) {
  // The tree's edges keyed by both halves; a collision is resolved by comparing the node.
  uint64_t key = (static_cast<uint64_t>(method_table) * 0x9E3779B97F4A7C15ull) ^ parent;
  for (;; ++key) {
    auto it = index_.find(key);
    if (it == index_.end()) break;
    const Node& n = nodes_[it->second];
    if (n.parent == parent && n.method_table == method_table) return it->second;
  }
  if (nodes_.size() > kMaxNodes) {
    ++nodes_refused_;
    return 0;
  }
  const uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(Node{parent, method_table});
  index_.emplace(key, id);
  return id;
}

uint32_t HeapChains::intern(const uintptr_t* boxes, uint32_t count, HeapWalkEnd end) {
  if (count == 0) return 0;
  // A chain cut short (a type not known yet, a bad read, the depth bound) goes on above its
  // outermost box as "?", never as if that box were the root.
  uint32_t parent = end == HeapWalkEnd::kDone ? 0 : node(0, kCut);
  if (end != HeapWalkEnd::kDone && parent == 0) return 0;
  for (uint32_t i = count; i > 0; --i) {
    parent = node(parent, boxes[i - 1]);
    if (parent == 0) return 0;
  }
  return parent;
}

void HeapChains::classify_pending() {
  uintptr_t pending[kClassifyPerTick];
  const size_t n = types_->take_unknown(pending, kClassifyPerTick);
  for (size_t i = 0; i < n; ++i) {
    const uintptr_t mt = pending[i];
    if (++sightings_[mt] < 2) continue;
    sightings_.erase(mt);
    HeapType type;
    std::string name;
    if (classify_ && classify_(mt, &type, &name)) {
      ++classified_;
      if (type.kind == HeapKind::kBox) names_[mt] = name;
    } else {
      ++unclassifiable_;
      type = HeapType{HeapKind::kStop, 0};
    }
    types_->add(mt, type);
  }
  // A type seen once long ago and never again was a torn read: forget it.
  if (sightings_.size() > 4096) sightings_.clear();
}

uint32_t HeapChains::awaiter_of(uint32_t id) const { return id < nodes_.size() ? nodes_[id].parent : 0; }

std::string HeapChains::name_of(uint32_t id) const {
  if (id == 0 || id >= nodes_.size()) return std::string();
  auto it = names_.find(nodes_[id].method_table);
  return it == names_.end() ? std::string() : it->second;
}

}  // namespace clrscope
