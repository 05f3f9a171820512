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
    return;
  }
  // Runtime stubs, precode and helpers live in anonymous executable memory.
  out->kind = 2;
  out->key = 0;
  out->name = "[unknown]";
  out->module.clear();
  out->module_path.clear();
}

}  // namespace clrscope
