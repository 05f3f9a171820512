#pragma once
// FrameResolver for a process with a CLR: native libraries first (cheap, no runtime call),
// then the runtime's own answer for managed code, JIT-compiled or ReadyToRun, with the IL
// offset of the pc from the map of the code body it lies in.
#include "clr/corprof.h"
#include "core/il_map_cache.h"
#include "core/symbol_cache.h"
#include "shim/clr_code_source.h"
#include "shim/managed_names.h"

namespace clrscope {

class ClrFrameResolver final : public FrameResolver {
 public:
  explicit ClrFrameResolver(clr::ICorProfilerInfo9* info)
      : info_(info), names_(info), code_(info), il_maps_(&code_) {}
  void resolve(uintptr_t pc, ResolvedFrame* out) override;
  std::string type_name(uint64_t class_id) override { return names_.type_name(static_cast<clr::ClassID>(class_id)); }

 private:
  clr::ICorProfilerInfo9* info_;
  ManagedNames names_;
  ClrCodeSource code_;
  IlMapCache il_maps_;
};

}  // namespace clrscope
