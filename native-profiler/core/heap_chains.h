#pragma once
// The sampler thread's side of async stacks read from the heap (core/heap_chain.h): the chains
// that captures bring, as boxes' MethodTables from the running one out, become tasks of the
// stream. Each distinct chain suffix is one node of a tree keyed by (its awaiter's node, its box
// type), so a node id names a whole logical stack and never changes: TASK records go out once
// per node, whatever the number of operations, and the stream needs no per-operation state.
// The tree is bounded (kMaxNodes); a chain that would need more keeps its physical stack (counted).
//
// Types the walks met unclassified are classified here, each tick, through the runtime
// (shim/async_heap.cpp): only on their second sighting, so a MethodTable read from an object
// that changed under a walk is never handed to the runtime unless it comes again.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/heap_chain.h"
#include "core/task_names.h"

namespace clrscope {

class HeapChains final : public TaskNames {
 public:
  static constexpr uint32_t kMaxNodes = 1u << 18;
  // A box's type and its state machine's name ("<Inner>d__6"), or false when the runtime does
  // not know the MethodTable (then it is recorded as a stop).
  using Classifier = std::function<bool(uintptr_t method_table, HeapType* type, std::string* name)>;

  HeapChains(HeapTypeSet* types, Classifier classify);

  // The node of a chain (running box first; `end` how its walk ended), 0 for none.
  uint32_t intern(const uintptr_t* boxes, uint32_t count, HeapWalkEnd end);
  // Classifies the types walks queued since the last call.
  void classify_pending();

  uint32_t awaiter_of(uint32_t id) const override;
  std::string name_of(uint32_t id) const override;

  uint32_t nodes() const { return static_cast<uint32_t>(nodes_.size()) - 1; }
  uint64_t nodes_refused() const { return nodes_refused_; }
  uint64_t classified() const { return classified_; }
  uint64_t unclassifiable() const { return unclassifiable_; }

 private:
  uint32_t node(uint32_t parent, uintptr_t method_table);

  struct Node {
    uint32_t parent;
    uintptr_t method_table;  // kCut: the walk stopped before the chain's root
  };
  static constexpr uintptr_t kCut = 1;
  HeapTypeSet* types_;
  Classifier classify_;
  std::vector<Node> nodes_;  // [0] unused: 0 is "no task"
  std::unordered_map<uint64_t, uint32_t> index_;  // hash of (parent, method table) -> node
  std::unordered_map<uintptr_t, std::string> names_;
  std::unordered_map<uintptr_t, uint32_t> sightings_;
  uint64_t nodes_refused_ = 0;
  uint64_t classified_ = 0;
  uint64_t unclassifiable_ = 0;
};

}  // namespace clrscope
