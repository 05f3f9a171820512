#pragma once
// The runtime's answers about native code bodies (ICorProfilerInfo9), for the IL map cache.
#include "clr/corprof.h"
#include "core/il_map_cache.h"

namespace clrscope {

class ClrCodeSource final : public CodeSource {
 public:
  explicit ClrCodeSource(clr::ICorProfilerInfo9* info) : info_(info) {}
  bool code_starts(uint64_t function, uint64_t rejit, std::vector<uintptr_t>* out) override;
  bool code_ranges(uintptr_t start, std::vector<CodeRange>* out) override;
  bool il_map(uintptr_t start, std::vector<IlMapRow>* out) override;

 private:
  clr::ICorProfilerInfo9* info_;
};

}  // namespace clrscope
