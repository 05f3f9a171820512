#pragma once
// FrameResolver for a process with a CLR: native libraries first (cheap, no runtime call),
// then the runtime's own answer for managed code, JIT-compiled or ReadyToRun.
#include "clr/corprof.h"
#include "core/symbol_cache.h"
#include "shim/managed_names.h"

namespace clrscope {

class ClrFrameResolver final : public FrameResolver {
 public:
  explicit ClrFrameResolver(clr::ICorProfilerInfo8* info) : info_(info), names_(info) {}
  void resolve(uintptr_t pc, ResolvedFrame* out) override;
  std::string type_name(uint64_t class_id) override { return names_.type_name(static_cast<clr::ClassID>(class_id)); }

 private:
  clr::ICorProfilerInfo8* info_;
  ManagedNames names_;
};

}  // namespace clrscope
