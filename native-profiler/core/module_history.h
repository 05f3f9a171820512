#pragma once
// Which library owned a piece of code at a given moment, for naming frames captured a little
// before the sampler names them (a capture waits up to a tick in the ring, and a library may be
// unloaded, or another loaded in its place, in between).
//
// The sampler only sees the loader's state when it looks (each tick), so a library's life is
// known to within a tick at each end: it was certainly there from the first look that found it
// to the last look that still did, and possibly a little before and after. A frame is named
// after a library only when that library is the one certain owner of its address at the
// capture's time, or the only possible one; anything else is named as unknown rather than
// guessed. Sampler thread only.
#include <cstdint>
#include <string>
#include <vector>

namespace clrscope {

struct LoadedCode {
  uintptr_t lo;
  uintptr_t hi;
  uintptr_t base;  // the object's load address: code ranges of one object share it
  std::string name;
};

struct CodeSpan {
  uintptr_t lo, hi, base;
  std::string name;
  uint32_t first_generation;  // the first module table that held it
  uint32_t gone_generation;   // the first that did not (0: still loaded)
  uint64_t possible_from;     // the look before the first that found it
  uint64_t first_seen;
  uint64_t last_seen;         // the latest look that found it loaded
  uint64_t gone_seen;         // the first look that found it gone (0: still loaded)
};

class ModuleHistory {
 public:
  enum class Owner { kNone, kLoaded, kGone, kUnknown };

  // A look at `now` that found `loaded`, published as module table `generation`. `removals`
  // is how many objects the loader unloaded since the previous look, by its own counter: more
  // than the look can account for means objects came and went unseen, and then nobody can
  // say what was where in between.
  void observe(uint64_t now, uint32_t generation, const std::vector<LoadedCode>& loaded, uint64_t removals);
  // A look at `now` that found nothing changed.
  void confirm(uint64_t now);
  // Who owned `pc` at time `t`: a library still loaded, one since gone (`*span` set for both),
  // nobody (not library code), or unknown.
  Owner owner_at(uintptr_t pc, uint64_t t, const CodeSpan** span) const;
  // The library that covered `pc` in module table `generation`, or null.
  const CodeSpan* in_generation(uintptr_t pc, uint32_t generation) const;
  // Ranges that changed owner with the latest look (to forget names cached for them).
  const std::vector<CodeSpan>& latest_changes() const { return latest_changes_; }

 private:
  void prune(uint64_t now);

  std::vector<CodeSpan> spans_;
  std::vector<CodeSpan> latest_changes_;
  // Windows (from, to] in which unseen objects came and went.
  std::vector<std::pair<uint64_t, uint64_t>> blind_;
  uint64_t last_look_ = 0;
};

ModuleHistory& module_history();

}  // namespace clrscope
