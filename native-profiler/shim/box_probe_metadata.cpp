// The metadata and IL of the box probe (core/il_box_probe.h): CoreLib's own tokens for the
// extended locals signature and the probes' unmanaged call sites, as the measuring code makes
// them for any module (shim/measure_metadata.cpp).
#include "core/il_box_probe.h"
#include "core/il_signature.h"
#include "shim/measure_metadata.h"

namespace clrscope {

using namespace clr;

namespace {
bool fail_with(std::string* reason, const std::string& text) {
  if (reason != nullptr) *reason = text;
  return false;
}
}  // namespace

bool ModuleMeta::prepare_box_probe(mdMethodDef method, uint64_t enter, uint64_t leave, PreparedMethod* out, std::string* reason) {
  if (import_ == nullptr) return fail_with(reason, "CoreLib's metadata cannot be read");
  if (emit_ == nullptr) {
    IUnknown* unk = nullptr;
    if (FAILED(info_->GetModuleMetaData(id_, ofRead | ofWrite, IID_IMetaDataEmit, &unk)) || unk == nullptr) {
      return fail_with(reason, "CoreLib's metadata cannot be written");
    }
    emit_ = static_cast<IMetaDataEmit*>(unk);
  }
  LPCBYTE header = nullptr;
  ULONG size = 0;
  if (FAILED(info_->GetILFunctionBody(id_, method, &header, &size)) || header == nullptr) {
    return fail_with(reason, "the runtime gives no IL body for MoveNext");
  }
  il::Body body;
  std::string why;
  if (!il::parse_body(header, size, &body, &why)) return fail_with(reason, "MoveNext's IL cannot be read: " + why);
  PCCOR_SIGNATURE locals = nullptr;
  ULONG locals_len = 0;
  if (!IsNilToken(body.local_sig_token) && FAILED(import_->GetSigFromToken(body.local_sig_token, &locals, &locals_len))) {
    return fail_with(reason, "MoveNext's locals signature cannot be read");
  }
  std::vector<uint8_t> new_locals;
  uint32_t old_count = 0;
  if (!il::extend_locals(locals, locals_len, {{il::kElementPinned, il::kElementObject}}, &new_locals, &old_count, &why)) {
    return fail_with(reason, why);
  }
  // Without a GC transition: two calls per resumption must cost nanoseconds, and the probes
  // neither block nor call the runtime.
  const mdToken modifier = type_ref(u"System.Runtime.CompilerServices.CallConvSuppressGCTransition");
  if (modifier == 0) return fail_with(reason, "CoreLib's metadata would not take a type reference");
  const std::vector<uint8_t> enter_sig = il::unmanaged_call_signature(il::kElementVoid, {il::kElementI}, modifier);
  const std::vector<uint8_t> leave_sig = il::unmanaged_call_signature(il::kElementVoid, {}, modifier);
  mdSignature locals_token = 0, enter_token = 0, leave_token = 0;
  if (FAILED(emit_->GetTokenFromSig(new_locals.data(), static_cast<ULONG>(new_locals.size()), &locals_token)) ||
      FAILED(emit_->GetTokenFromSig(enter_sig.data(), static_cast<ULONG>(enter_sig.size()), &enter_token)) ||
      FAILED(emit_->GetTokenFromSig(leave_sig.data(), static_cast<ULONG>(leave_sig.size()), &leave_token))) {
    return fail_with(reason, "CoreLib's metadata would not take the probe's signatures");
  }
  emitted_ = true;
  il::BoxProbePlan plan;
  plan.locals_token = locals_token;
  plan.pinned_local = old_count;
  plan.enter = il::ProbeCall{il::ProbeCall::kCalli, enter_token, enter};
  plan.leave = il::ProbeCall{il::ProbeCall::kCalli, leave_token, leave};
  il::Instrumented done;
  if (!il::wrap_box_probe(body, plan, &done, &why)) return fail_with(reason, why);
  out->il = std::move(done.body);
  out->map.clear();
  for (const il::OffsetMapping& m : done.mapping) out->map.push_back(COR_IL_MAP{m.old_offset, m.new_offset, 1});
  return true;
}

}  // namespace clrscope
