#include "core/module_history.h"

namespace clrscope {
namespace {
// Captures are named within a tick or two of being taken; what left longer ago than this can
// no longer matter.
constexpr uint64_t kKeepNs = 10000000000ull;

bool same_code(const CodeSpan& s, const LoadedCode& l) { return s.lo == l.lo && s.hi == l.hi && s.base == l.base && s.name == l.name; }
}  // namespace

ModuleHistory& module_history() {
  static ModuleHistory* h = new ModuleHistory;
  return *h;
}

void ModuleHistory::observe(uint64_t now, uint32_t generation, const std::vector<LoadedCode>& loaded,
                            uint64_t removals) {
  latest_changes_.clear();
  std::vector<uintptr_t> gone_objects;
  for (CodeSpan& s : spans_) {
    if (s.gone_seen != 0) continue;
    bool still = false;
    for (const LoadedCode& l : loaded) still = still || same_code(s, l);
    if (still) {
      s.last_seen = now;
    } else {
      s.gone_seen = now;
      s.gone_generation = generation;
      latest_changes_.push_back(s);
      bool counted = false;
      for (uintptr_t b : gone_objects) counted = counted || b == s.base;
      if (!counted) gone_objects.push_back(s.base);
    }
  }
  for (const LoadedCode& l : loaded) {
    bool known = false;
    for (const CodeSpan& s : spans_) known = known || (s.gone_seen == 0 && same_code(s, l));
    if (known) continue;
    CodeSpan s{l.lo, l.hi, l.base, l.name, generation, 0, last_look_, now, now, 0};
    spans_.push_back(s);
    if (last_look_ != 0) latest_changes_.push_back(s);
  }
  if (removals > gone_objects.size() && last_look_ != 0) blind_.emplace_back(last_look_, now);
  last_look_ = now;
  prune(now);
}

void ModuleHistory::confirm(uint64_t now) {
  for (CodeSpan& s : spans_) {
    if (s.gone_seen == 0) s.last_seen = now;
  }
  last_look_ = now;
}

ModuleHistory::Owner ModuleHistory::owner_at(uintptr_t pc, uint64_t t, const CodeSpan** span) const {
  // First: a library seen by the looks on both sides of a blind window may have been unloaded
  // and loaded again inside it, with another in its place meanwhile (the same range, the same
  // name: nothing tells the two lives apart), so its span says nothing certain there.
  for (const auto& [from, to] : blind_) {
    if (t > from && t <= to) return Owner::kUnknown;
  }
  const CodeSpan* possible = nullptr;
  int possibilities = 0;
  for (const CodeSpan& s : spans_) {
    if (pc < s.lo || pc >= s.hi) continue;
    if (t >= s.first_seen && t <= s.last_seen) {
      // Two objects never share an address while both are loaded: this one it was.
      *span = &s;
      return s.gone_seen == 0 ? Owner::kLoaded : Owner::kGone;
    }
    const bool after_start = t > s.possible_from;
    const bool before_end = s.gone_seen == 0 || t < s.gone_seen;
    if (after_start && before_end) {
      possible = &s;
      ++possibilities;
    }
  }
  if (possibilities == 0) return Owner::kNone;
  if (possibilities > 1) return Owner::kUnknown;
  *span = possible;
  return possible->gone_seen == 0 ? Owner::kLoaded : Owner::kGone;
}

const CodeSpan* ModuleHistory::in_generation(uintptr_t pc, uint32_t generation) const {
  for (const CodeSpan& s : spans_) {
    if (pc >= s.lo && pc < s.hi && s.first_generation <= generation &&
        (s.gone_generation == 0 || generation < s.gone_generation)) {
      return &s;
    }
  }
  return nullptr;
}

void ModuleHistory::prune(uint64_t now) {
  if (now < kKeepNs) return;
  const uint64_t horizon = now - kKeepNs;
  for (size_t i = 0; i < spans_.size();) {
    if (spans_[i].gone_seen != 0 && spans_[i].gone_seen < horizon) {
      spans_[i] = std::move(spans_.back());
      spans_.pop_back();
    } else {
      ++i;
    }
  }
  for (size_t i = 0; i < blind_.size();) {
    if (blind_[i].second < horizon) {
      blind_[i] = blind_.back();
      blind_.pop_back();
    } else {
      ++i;
    }
  }
}

}  // namespace clrscope
