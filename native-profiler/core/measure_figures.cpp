#include "core/measure_figures.h"

#include <algorithm>

#include "core/measure_probes.h"

namespace clrscope {
namespace measure {
namespace {

struct CellSnapshot {
  uint64_t calls, exceptions, total_ns, max_ns;
  uint32_t lo, hi;
  uint64_t pending;  // the latest call's duration + 1, not in the buckets yet (0: none)
};

CellSnapshot snapshot(const Cell& c) {
  CellSnapshot s;
  s.calls = c.calls.load(std::memory_order_relaxed);
  s.exceptions = c.exceptions.load(std::memory_order_relaxed);
  s.total_ns = c.total_ns.load(std::memory_order_relaxed);
  s.max_ns = c.max_ns.load(std::memory_order_relaxed);
  s.pending = c.pending.load(std::memory_order_relaxed);
  s.lo = c.lo.load(std::memory_order_relaxed);
  s.hi = std::min(c.hi.load(std::memory_order_relaxed), kBuckets - 1);
  if (s.pending != 0) {
    const uint32_t b = bucket_of(s.pending - 1);
    s.lo = std::min(s.lo, b);
    s.hi = std::max(s.hi, b);
  }
  return s;
}

void add_row(std::vector<ThreadFigures>* rows, const ThreadFigures& row, size_t limit) {
  if (rows->size() < limit) {
    rows->push_back(row);
    return;
  }
  // Past the limit every further thread goes into the last row, which becomes "other threads".
  ThreadFigures& rest = rows->back();
  rest.os_tid = 0;
  rest.calls += row.calls;
  rest.exceptions += row.exceptions;
  rest.total_ns += row.total_ns;
}

}  // namespace

void FiguresReader::fold_retired() {
  SlabTable& table = slab_table();
  for (uint32_t slot = 0; slot < kMaxSlabs; ++slot) {
    Slab* s = table.slots[slot].load(std::memory_order_acquire);
    if (s == nullptr || !s->retired.load(std::memory_order_acquire)) continue;
    for (uint32_t m = 0; m < kMaxMethods; ++m) {
      const Cell* c = s->cells[m].load(std::memory_order_acquire);
      if (c == nullptr) continue;
      const CellSnapshot snap = snapshot(*c);
      if (snap.calls == 0) continue;
      Folded& f = folded_[m];
      f.calls += snap.calls;
      f.exceptions += snap.exceptions;
      f.total_ns += snap.total_ns;
      f.max_ns = std::max(f.max_ns, snap.max_ns);
      if (f.buckets.empty()) f.buckets.assign(kBuckets, 0);
      for (uint32_t b = snap.lo; b <= snap.hi; ++b) f.buckets[b] += c->buckets[b].load(std::memory_order_relaxed);
      if (snap.pending != 0) f.buckets[bucket_of(snap.pending - 1)] += 1;
      add_row(&f.threads, ThreadFigures{s->os_tid, snap.calls, snap.exceptions, snap.total_ns}, kMaxExitedRows);
    }
    free_slab(slot);
  }
}

void FiguresReader::read(const std::vector<uint32_t>& methods, std::vector<Figures>* out) {
  fold_retired();
  out->assign(methods.size(), Figures{});
  SlabTable& table = slab_table();
  for (size_t i = 0; i < methods.size(); ++i) {
    const uint32_t m = methods[i];
    if (m >= kMaxMethods) continue;
    Figures& fig = (*out)[i];
    std::fill(std::begin(sums_), std::end(sums_), 0);
    uint32_t lo = kBuckets, hi = 0;
    for (uint32_t slot = 0; slot < kMaxSlabs; ++slot) {
      const Slab* s = table.slots[slot].load(std::memory_order_acquire);
      if (s == nullptr) continue;
      const Cell* c = s->cells[m].load(std::memory_order_acquire);
      if (c == nullptr) continue;
      const CellSnapshot snap = snapshot(*c);
      if (snap.calls == 0) continue;
      fig.calls += snap.calls;
      fig.exceptions += snap.exceptions;
      fig.total_ns += snap.total_ns;
      fig.max_ns = std::max(fig.max_ns, snap.max_ns);
      for (uint32_t b = snap.lo; b <= snap.hi; ++b) sums_[b] += c->buckets[b].load(std::memory_order_relaxed);
      if (snap.pending != 0) sums_[bucket_of(snap.pending - 1)] += 1;
      lo = std::min(lo, snap.lo);
      hi = std::max(hi, snap.hi);
      // A live thread's row is never merged: there are at most kMaxSlabs of them.
      fig.threads.push_back(ThreadFigures{s->os_tid, snap.calls, snap.exceptions, snap.total_ns});
    }
    auto it = folded_.find(m);
    if (it != folded_.end()) {
      const Folded& f = it->second;
      fig.calls += f.calls;
      fig.exceptions += f.exceptions;
      fig.total_ns += f.total_ns;
      fig.max_ns = std::max(fig.max_ns, f.max_ns);
      for (uint32_t b = 0; b < kBuckets; ++b) {
        if (f.buckets[b] == 0) continue;
        sums_[b] += f.buckets[b];
        lo = std::min(lo, b);
        hi = std::max(hi, b);
      }
      fig.threads.insert(fig.threads.end(), f.threads.begin(), f.threads.end());
    }
    for (uint32_t b = lo; b <= hi && b < kBuckets; ++b) {
      if (sums_[b] != 0) fig.buckets.emplace_back(static_cast<uint16_t>(b), sums_[b]);
    }
  }
}

uint64_t FiguresReader::dropped_calls() const { return slab_table().dropped_calls.load(std::memory_order_relaxed); }

}  // namespace measure
}  // namespace clrscope
