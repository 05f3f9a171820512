#include "shim/clr_frame_resolver.h"

#include "core/native_symbols.h"

namespace clrscope {

void ClrFrameResolver::resolve(uintptr_t pc, ResolvedFrame* out) {
  if (resolve_native(pc, out)) return;
  clr::FunctionID function = 0;
  clr::ReJITID rejit = 0;
  // GetFunctionFromIP3 also knows IL stubs and dynamic methods.
  if (clr::SUCCEEDED(info_->GetFunctionFromIP3(reinterpret_cast<clr::LPCBYTE>(pc), &function, &rejit)) && function != 0 &&
      names_.describe(function, out)) {
    out->kind = 0;
    out->key = function;
    // IL stubs share one name; the perf map tells them apart by signature.
    std::string line;
    if (out->name.compare(0, 7, "[stub] ") == 0 && stubs_.map_name(pc, &line)) {
      const std::string signature = il_stub_label(line);
      if (!signature.empty()) out->name = "[stub] " + signature;
    }
    uint32_t il = 0;
    if (il_maps_.il_offset(function, rejit, pc, &il)) {
      out->offset_kind = 1;  // wire::kOffsetIL
      out->offset = il;
    }
    return;
  }
  // Runtime stubs, precode and helpers live in anonymous executable memory.
  out->kind = 2;
  out->key = 0;
  if (!stubs_.name(pc, &out->name)) out->name = "[unknown]";
  out->module.clear();
  out->module_path.clear();
}

}  // namespace clrscope
