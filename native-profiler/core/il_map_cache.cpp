#include "core/il_map_cache.h"

#include <algorithm>

namespace clrscope {
namespace {
// Rows the JIT wrote that overlap (zero-length rows at one offset, nested ranges) are looked
// at this far back from the last row starting at or before the offset.
constexpr int kBackwardRows = 16;
}  // namespace

void IlMapCache::clear() {
  bodies_.clear();
  by_function_.clear();
  rows_.clear();
  rows_.shrink_to_fit();
}

bool IlMapCache::offset_in(const Body& b, uintptr_t pc, uint32_t* offset) {
  // The map's native offsets run through the hot range, then on through the cold one.
  size_t before = 0;
  for (uint32_t i = 0; i < b.range_count; ++i) {
    const CodeRange& r = b.ranges[i];
    if (pc >= r.start && pc - r.start < r.size) {
      const uint64_t o = before + (pc - r.start);
      if (o > UINT32_MAX) return false;
      *offset = static_cast<uint32_t>(o);
      return true;
    }
    before += r.size;
  }
  return false;
}

const IlMapCache::Body* IlMapCache::load(uintptr_t start) {
  auto it = bodies_.find(start);
  if (it != bodies_.end()) return &it->second;
  Body b;
  b.start = start;
  ranges_.clear();
  ++source_calls_;
  if (!source_->code_ranges(start, &ranges_) || ranges_.empty()) return nullptr;
  for (const CodeRange& r : ranges_) {
    if (b.range_count == 2) break;
    if (r.size != 0) b.ranges[b.range_count++] = r;
  }
  fetched_.clear();
  ++source_calls_;
  if (!source_->il_map(start, &fetched_)) fetched_.clear();
  if (rows_.size() + fetched_.size() > max_rows_) clear();
  if (fetched_.size() > max_rows_) fetched_.resize(max_rows_);
  std::stable_sort(fetched_.begin(), fetched_.end(),
                   [](const IlMapRow& a, const IlMapRow& c) { return a.native_start < c.native_start; });
  b.row_first = rows_.size();
  b.row_count = fetched_.size();
  rows_.insert(rows_.end(), fetched_.begin(), fetched_.end());
  return &bodies_.emplace(start, b).first->second;
}

const IlMapCache::Body* IlMapCache::find(uint64_t function, uint64_t rejit, uintptr_t pc, uint32_t* offset) {
  const Key key{function, rejit};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto known = by_function_.find(key);
    if (known != by_function_.end()) {
      for (uintptr_t start : known->second) {
        auto b = bodies_.find(start);
        if (b != bodies_.end() && offset_in(b->second, pc, offset)) return &b->second;
      }
    }
    if (attempt == 1) break;
    // Not in a body seen so far: ask which bodies exist now (a newer tier, a ReJIT version).
    starts_.clear();
    ++source_calls_;
    if (!source_->code_starts(function, rejit, &starts_)) return nullptr;
    std::vector<uintptr_t> list;
    for (uintptr_t start : starts_) {
      if (start != 0 && load(start) != nullptr) list.push_back(start);
    }
    // load() may have cleared the cache to stay within bounds: keep only bodies still there.
    list.erase(std::remove_if(list.begin(), list.end(), [this](uintptr_t s) { return bodies_.count(s) == 0; }),
               list.end());
    by_function_[key] = std::move(list);
  }
  return nullptr;
}

bool IlMapCache::lookup(const Body& b, uint32_t offset, uint32_t* il) const {
  if (b.row_count == 0) return false;
  const IlMapRow* first = rows_.data() + b.row_first;
  const IlMapRow* last = first + b.row_count;
  const IlMapRow* at =
      std::upper_bound(first, last, offset, [](uint32_t o, const IlMapRow& r) { return o < r.native_start; });
  for (int k = 0; k < kBackwardRows && at != first; ++k) {
    --at;
    if (offset >= at->native_end || at->native_end <= at->native_start) continue;
    if (at->il == kIlProlog) {
      *il = 0;
      return true;
    }
    if (at->il == kIlEpilog || at->il == kIlNoMapping) return false;
    *il = at->il;
    return true;
  }
  return false;
}

bool IlMapCache::il_offset(uint64_t function, uint64_t rejit, uintptr_t pc, uint32_t* il) {
  uint32_t offset = 0;
  const Body* b = find(function, rejit, pc, &offset);
  return b != nullptr && lookup(*b, offset, il);
}

}  // namespace clrscope
