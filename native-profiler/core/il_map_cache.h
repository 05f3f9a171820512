#pragma once
// The IL offset of a pc in managed code, from the runtime's IL-to-native maps. A method may
// have several native code bodies at once (tier 0, tier 1, ReJIT versions), each with its own
// map, so maps are kept per body, keyed by the body's start. The runtime is asked only through
// CodeSource, so the cache is tested without one. Sampler thread only.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/page_memory.h"

namespace clrscope {

// One row of a runtime map (COR_DEBUG_IL_TO_NATIVE_MAP): native offsets from the body's start.
struct IlMapRow {
  uint32_t il;  // or kIlNoMapping / kIlProlog / kIlEpilog
  uint32_t native_start;
  uint32_t native_end;
};
constexpr uint32_t kIlNoMapping = 0xFFFFFFFFu;
constexpr uint32_t kIlProlog = 0xFFFFFFFEu;
constexpr uint32_t kIlEpilog = 0xFFFFFFFDu;

struct CodeRange {
  uintptr_t start;
  size_t size;
};

class CodeSource {
 public:
  virtual ~CodeSource() = default;
  // The start of every native body of (function, rejit) that exists now; false on failure.
  virtual bool code_starts(uint64_t function, uint64_t rejit, std::vector<uintptr_t>* out) = 0;
  // The ranges of one body (hot first, then cold), in the order its native offsets run.
  virtual bool code_ranges(uintptr_t start, std::vector<CodeRange>* out) = 0;
  virtual bool il_map(uintptr_t start, std::vector<IlMapRow>* out) = 0;
};

class IlMapCache {
 public:
  explicit IlMapCache(CodeSource* source, size_t max_rows = 1u << 22) : source_(source), max_rows_(max_rows) {}

  // The IL offset of the instruction at `pc` in (function, rejit)'s code: false when no body
  // of it holds the pc or its map says nothing about it (epilog, code the JIT added). Prolog
  // code counts as IL offset 0: the method's opening line.
  bool il_offset(uint64_t function, uint64_t rejit, uintptr_t pc, uint32_t* il);

  size_t bodies() const { return bodies_.size(); }
  size_t rows() const { return rows_.size(); }
  size_t source_calls() const { return source_calls_; }
  // Forgets every map (a body's code may be freed and its address reused: a collectible
  // assembly unloaded).
  void clear();

 private:
  struct Body {
    uintptr_t start = 0;
    size_t row_first = 0, row_count = 0;  // in rows_, sorted by native_start
    CodeRange ranges[2] = {};
    uint32_t range_count = 0;
  };
  // Native offset of pc within the body, or false when outside it.
  static bool offset_in(const Body& b, uintptr_t pc, uint32_t* offset);
  bool lookup(const Body& b, uint32_t offset, uint32_t* il) const;
  const Body* load(uintptr_t start);
  const Body* find(uint64_t function, uint64_t rejit, uintptr_t pc, uint32_t* offset);

  struct Key {
    uint64_t function, rejit;
    bool operator==(const Key& o) const { return function == o.function && rejit == o.rejit; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.function * 31 + k.rejit); }
  };

  CodeSource* source_;
  size_t max_rows_;
  size_t source_calls_ = 0;
  std::vector<IlMapRow, PageAllocator<IlMapRow>> rows_;
  std::unordered_map<uintptr_t, Body, std::hash<uintptr_t>, std::equal_to<uintptr_t>,
                     PageAllocator<std::pair<const uintptr_t, Body>>>
      bodies_;
  // The bodies of a function seen so far; a pc in none of them asks the runtime again (a newer
  // tier may have been compiled since).
  std::unordered_map<Key, std::vector<uintptr_t>, KeyHash, std::equal_to<Key>,
                     PageAllocator<std::pair<const Key, std::vector<uintptr_t>>>>
      by_function_;
  std::vector<uintptr_t> starts_;
  std::vector<CodeRange> ranges_;
  std::vector<IlMapRow> fetched_;
};

}  // namespace clrscope
