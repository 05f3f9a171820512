#pragma once
// FrameResolver for a process with a CLR: native libraries first (cheap, no runtime call),
// then the runtime's own answer for managed code, JIT-compiled or ReadyToRun, with the IL
// offset of the pc from the map of the code body it lies in.
#include "clr/corprof.h"
#include "core/il_map_cache.h"
#include "core/runtime_stubs.h"
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
  // The runtime's perf map for this process (core/runtime_stubs.h); before the first resolve.
  void read_stub_names(const std::string& perf_map, bool owned) { stubs_.configure(perf_map, owned); }
  size_t stub_map_lines() const { return stubs_.map_lines(); }

 private:
  clr::ICorProfilerInfo9* info_;
  ManagedNames names_;
  ClrCodeSource code_;
  IlMapCache il_maps_;
  RuntimeStubNames stubs_;
};

}  // namespace clrscope
