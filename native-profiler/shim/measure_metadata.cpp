#include "shim/measure_metadata.h"

#include <cstdio>

#include "core/il_signature.h"
#include "core/library_path.h"
#include "core/measure_probes.h"
#include "core/method_pattern.h"
#include "core/utf16.h"
#include "shim/metadata_names.h"

namespace clrscope {

using namespace clr;

namespace {

constexpr ULONG kNameChars = 1024;

std::string utf8(const WCHAR* s, ULONG len) { return utf16_to_utf8(reinterpret_cast<const char16_t*>(s), len); }
const WCHAR* wide(const char16_t* s) { return reinterpret_cast<const WCHAR*>(s); }

std::string hr_text(HRESULT hr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

bool fail(std::string* reason, const std::string& text) {
  if (reason != nullptr) *reason = text;
  return false;
}

}  // namespace

ProbeMode probe_mode_from(const std::string& text) {
  if (text == "calli-transition") return ProbeMode::kCalliTransition;
  if (text == "pinvoke") return ProbeMode::kPinvokeTransition;
  if (text == "pinvoke-suppress") return ProbeMode::kPinvoke;
  return ProbeMode::kCalli;
}

const char* probe_mode_name(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::kCalli: return "calli";
    case ProbeMode::kCalliTransition: return "calli-transition";
    case ProbeMode::kPinvoke: return "pinvoke-suppress";
    case ProbeMode::kPinvokeTransition: return "pinvoke";
  }
  return "calli";
}

ModuleMeta::ModuleMeta(ICorProfilerInfo12* info, ModuleID id) : info_(info), id_(id) {
  IUnknown* unk = nullptr;
  if (SUCCEEDED(info_->GetModuleMetaData(id, ofRead, IID_IMetaDataImport, &unk)) && unk != nullptr) {
    import_ = static_cast<IMetaDataImport*>(unk);
  }
  WCHAR path[kNameChars];
  ULONG len = 0;
  LPCBYTE base = nullptr;
  AssemblyID assembly = 0;
  if (SUCCEEDED(info_->GetModuleInfo(id, &base, kNameChars, &len, path, &assembly)) && len > 0) {
    const std::string p = utf8(path, len);
    const size_t slash = p.find_last_of("/\\");
    file_ = slash == std::string::npos ? p : p.substr(slash + 1);
  }
}

ModuleMeta::~ModuleMeta() {
  if (emit_ != nullptr) emit_->Release();
  if (import_ != nullptr) import_->Release();
}

std::string ModuleMeta::type_name(mdTypeDef type) { return nested_type_name(import_, type, 16); }

const std::vector<std::pair<mdTypeDef, std::string>>& ModuleMeta::types() {
  if (types_read_ || import_ == nullptr) return types_;
  types_read_ = true;
  HCORENUM e = nullptr;
  mdTypeDef batch[256];
  ULONG n = 0;
  while (SUCCEEDED(import_->EnumTypeDefs(&e, batch, 256, &n)) && n > 0) {
    for (ULONG i = 0; i < n; ++i) types_.emplace_back(batch[i], type_name(batch[i]));
  }
  if (e != nullptr) import_->CloseEnum(e);
  return types_;
}

std::vector<mdMethodDef> ModuleMeta::methods_of(mdTypeDef type) {
  std::vector<mdMethodDef> out;
  if (import_ == nullptr) return out;
  HCORENUM e = nullptr;
  mdMethodDef batch[256];
  ULONG n = 0;
  while (SUCCEEDED(import_->EnumMethods(&e, type, batch, 256, &n)) && n > 0) out.insert(out.end(), batch, batch + n);
  if (e != nullptr) import_->CloseEnum(e);
  return out;
}

std::string ModuleMeta::method_name(mdMethodDef method) {
  WCHAR buf[kNameChars];
  ULONG len = 0;
  mdTypeDef owner = 0;
  DWORD attrs = 0, impl = 0;
  PCCOR_SIGNATURE sig = nullptr;
  ULONG sig_len = 0, rva = 0;
  if (import_ == nullptr || FAILED(import_->GetMethodProps(method, &owner, buf, kNameChars, &len, &attrs, &sig, &sig_len, &rva, &impl))) {
    return std::string();
  }
  return utf8(buf, len);
}

bool ModuleMeta::method_props(mdMethodDef method, MethodProps* out) {
  DWORD attrs = 0, impl = 0;
  ULONG rva = 0, len = 0;
  WCHAR buf[kNameChars];
  if (import_ == nullptr || FAILED(import_->GetMethodProps(method, &out->owner, buf, kNameChars, &len, &attrs, &out->sig,
                                                          &out->sig_len, &rva, &impl))) {
    return false;
  }
  out->name = utf8(buf, len);
  return true;
}

std::string ModuleMeta::display_name(mdMethodDef method) {
  MethodProps m;
  if (!method_props(method, &m)) return "?";
  return without_arity(type_name(m.owner)) + "." + m.name;
}

bool ModuleMeta::is_async(mdMethodDef method) {
  const void* data = nullptr;
  ULONG size = 0;
  return import_ != nullptr &&
         import_->GetCustomAttributeByName(method, wide(u"System.Runtime.CompilerServices.AsyncStateMachineAttribute"),
                                           &data, &size) == S_OK;
}

bool ModuleMeta::is_generic(mdMethodDef method) {
  MethodProps m;
  if (!method_props(method, &m)) return false;
  const bool method_generic = m.sig_len > 0 && (m.sig[0] & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0;
  return method_generic || type_name(m.owner).find('`') != std::string::npos;
}

// The resolution scope for references to the core library's types: wherever this module's
// reference to System.Object points (System.Runtime, System.Private.CoreLib, netstandard ...).
mdToken ModuleMeta::core_scope() {
  HCORENUM e = nullptr;
  mdTypeRef batch[256];
  ULONG n = 0;
  mdToken scope = mdtModule | 1;  // this module itself, when it references no System.Object
  bool found = false;
  while (!found && SUCCEEDED(import_->EnumTypeRefs(&e, batch, 256, &n)) && n > 0) {
    for (ULONG i = 0; i < n && !found; ++i) {
      WCHAR buf[kNameChars];
      ULONG len = 0;
      mdToken s = 0;
      if (SUCCEEDED(import_->GetTypeRefProps(batch[i], &s, buf, kNameChars, &len)) && utf8(buf, len) == "System.Object") {
        scope = s;
        found = true;
      }
    }
  }
  if (e != nullptr) import_->CloseEnum(e);
  return scope;
}

// A TypeRef (or, inside the core library itself, the TypeDef) of a core library type. The
// runtime reads calling-convention modifiers by name, so the reference need never resolve.
mdToken ModuleMeta::type_ref(const char16_t* name) {
  mdTypeDef own = 0;
  if (SUCCEEDED(import_->FindTypeDefByName(wide(name), mdTokenNil, &own)) && !IsNilToken(own)) return own;
  mdTypeRef ref = 0;
  if (FAILED(emit_->DefineTypeRefByName(core_scope(), wide(name), &ref))) return 0;
  emitted_ = true;
  return ref;
}

bool ModuleMeta::define_pinvoke_probes(bool suppress, std::string* reason) {
  const std::string path = platform::library_path();
  if (path.empty()) return fail(reason, "the profiler library's own path is unknown, which a P/Invoke needs");
  std::u16string wpath;
  for (char c : path) wpath.push_back(static_cast<char16_t>(static_cast<unsigned char>(c)));  // paths here are ASCII
  const mdToken object = type_ref(u"System.Object");
  mdTypeDef holder = 0;
  mdModuleRef library = 0;
  // abstract sealed: a static class; not public, so nothing outside the module sees it.
  if (object == 0 || FAILED(emit_->DefineTypeDef(wide(u"<clrscope>Probes"), tdAbstract | tdSealed, object, nullptr, &holder)) ||
      FAILED(emit_->DefineModuleRef(wide(wpath.c_str()), &library))) {
    return fail(reason, "the module's metadata would not take the probes' P/Invoke type");
  }
  emitted_ = true;
  mdMemberRef suppress_ctor = 0;
  if (suppress) {
    const mdToken attribute = type_ref(u"System.Runtime.InteropServices.SuppressGCTransitionAttribute");
    const uint8_t ctor_sig[] = {IMAGE_CEE_CS_CALLCONV_HASTHIS, 0x00, il::kElementVoid};
    if (attribute == 0 || FAILED(emit_->DefineMemberRef(attribute, wide(u".ctor"), ctor_sig, sizeof ctor_sig, &suppress_ctor))) {
      return fail(reason, "the module's metadata would not take SuppressGCTransition");
    }
  }
  struct Probe {
    const char16_t* name;
    std::vector<uint8_t> sig;
    il::ProbeCall* call;
  };
  Probe probes[] = {
      {u"clrscope_probe_enter", il::static_method_signature(il::kElementI8, {}), &enter_},
      {u"clrscope_probe_leave", il::static_method_signature(il::kElementVoid, {il::kElementI4, il::kElementI8}), &leave_},
      {u"clrscope_probe_raise", il::static_method_signature(il::kElementVoid, {il::kElementI4, il::kElementI8}), &raise_},
  };
  for (Probe& p : probes) {
    mdMethodDef method = 0;
    if (FAILED(emit_->DefineMethod(holder, wide(p.name), mdPublic | mdStatic | mdHideBySig | mdPinvokeImpl, p.sig.data(),
                                   static_cast<ULONG>(p.sig.size()), 0, miPreserveSig, &method)) ||
        FAILED(emit_->DefinePinvokeMap(method, pmNoMangle | pmCallConvCdecl, wide(p.name), library))) {
      return fail(reason, "the module's metadata would not take the probes' P/Invoke methods");
    }
    const uint8_t blob[] = {0x01, 0x00, 0x00, 0x00};  // prolog, no arguments, no named arguments
    mdCustomAttribute ca = 0;
    if (suppress && FAILED(emit_->DefineCustomAttribute(method, suppress_ctor, blob, sizeof blob, &ca))) {
      return fail(reason, "the module's metadata would not take SuppressGCTransition");
    }
    *p.call = il::ProbeCall{il::ProbeCall::kCall, method, 0};
  }
  return true;
}

bool ModuleMeta::probe_calls(ProbeMode mode, il::ProbeCall* enter, il::ProbeCall* leave, il::ProbeCall* raise,
                             std::string* reason) {
  if (probes_ready_ && probes_mode_ == mode) {
    *enter = enter_;
    *leave = leave_;
    *raise = raise_;
    return true;
  }
  if (mode == ProbeMode::kPinvoke || mode == ProbeMode::kPinvokeTransition) {
    if (!define_pinvoke_probes(mode == ProbeMode::kPinvoke, reason)) return false;
  } else {
    uint32_t modifier = 0;
    if (mode == ProbeMode::kCalli) {
      modifier = type_ref(u"System.Runtime.CompilerServices.CallConvSuppressGCTransition");
      if (modifier == 0) return fail(reason, "the module's metadata would not take a type reference");
    }
    const std::vector<uint8_t> enter_sig = il::unmanaged_call_signature(il::kElementI8, {}, modifier);
    const std::vector<uint8_t> exit_sig = il::unmanaged_call_signature(il::kElementVoid, {il::kElementI4, il::kElementI8}, modifier);
    mdSignature enter_token = 0, exit_token = 0;
    if (FAILED(emit_->GetTokenFromSig(enter_sig.data(), static_cast<ULONG>(enter_sig.size()), &enter_token)) ||
        FAILED(emit_->GetTokenFromSig(exit_sig.data(), static_cast<ULONG>(exit_sig.size()), &exit_token))) {
      return fail(reason, "the module's metadata would not take the probes' call signatures");
    }
    emitted_ = true;
    enter_ = {il::ProbeCall::kCalli, enter_token, reinterpret_cast<uint64_t>(&clrscope_probe_enter)};
    leave_ = {il::ProbeCall::kCalli, exit_token, reinterpret_cast<uint64_t>(&clrscope_probe_leave)};
    raise_ = {il::ProbeCall::kCalli, exit_token, reinterpret_cast<uint64_t>(&clrscope_probe_raise)};
  }
  probes_ready_ = true;
  probes_mode_ = mode;
  *enter = enter_;
  *leave = leave_;
  *raise = raise_;
  return true;
}

bool ModuleMeta::prepare(mdMethodDef method, uint32_t index, ProbeMode mode, PreparedMethod* out, std::string* reason) {
  if (import_ == nullptr) return fail(reason, "its module's metadata cannot be read");
  if (emit_ == nullptr) {
    IUnknown* unk = nullptr;
    if (FAILED(info_->GetModuleMetaData(id_, ofRead | ofWrite, IID_IMetaDataEmit, &unk)) || unk == nullptr) {
      return fail(reason, "its module's metadata cannot be written (a dynamic or resource module?)");
    }
    emit_ = static_cast<IMetaDataEmit*>(unk);
  }
  mdTypeDef owner = 0;
  DWORD attrs = 0, impl = 0;
  PCCOR_SIGNATURE sig = nullptr;
  ULONG sig_len = 0, rva = 0, len = 0;
  WCHAR buf[kNameChars];
  if (FAILED(import_->GetMethodProps(method, &owner, buf, kNameChars, &len, &attrs, &sig, &sig_len, &rva, &impl))) {
    return fail(reason, "its metadata cannot be read");
  }
  if ((attrs & (mdAbstract | mdPinvokeImpl)) != 0 || (impl & (miCodeTypeMask | miInternalCall)) != miIL || rva == 0) {
    return fail(reason, "it has no IL body (abstract, extern, P/Invoke or implemented by the runtime)");
  }
  LPCBYTE header = nullptr;
  ULONG size = 0;
  const HRESULT body_hr = info_->GetILFunctionBody(id_, method, &header, &size);
  if (FAILED(body_hr) || header == nullptr) return fail(reason, "the runtime gives no IL body for it (" + hr_text(body_hr) + ")");
  il::Body body;
  std::string why;
  if (!il::parse_body(header, size, &body, &why)) return fail(reason, "its IL cannot be read: " + why);
  why = il::refusal(body);
  if (!why.empty()) return fail(reason, why);
  std::vector<uint8_t> ret;
  if (!il::return_type(sig, sig_len, &ret, &why)) return fail(reason, why);
  PCCOR_SIGNATURE locals = nullptr;
  ULONG locals_len = 0;
  if (!IsNilToken(body.local_sig_token) && FAILED(import_->GetSigFromToken(body.local_sig_token, &locals, &locals_len))) {
    return fail(reason, "its locals signature cannot be read");
  }
  std::vector<std::vector<uint8_t>> extra = {{il::kElementI8}};
  if (!ret.empty()) extra.push_back(ret);
  std::vector<uint8_t> new_locals;
  uint32_t old_count = 0;
  if (!il::extend_locals(locals, locals_len, extra, &new_locals, &old_count, &why)) return fail(reason, why);
  il::InstrumentPlan plan;
  if (!probe_calls(mode, &plan.enter, &plan.leave, &plan.raise, reason)) return false;
  mdSignature locals_token = 0;
  if (FAILED(emit_->GetTokenFromSig(new_locals.data(), static_cast<ULONG>(new_locals.size()), &locals_token))) {
    return fail(reason, "the module's metadata would not take its extended locals signature");
  }
  emitted_ = true;
  plan.method_index = index;
  plan.locals_token = locals_token;
  plan.start_local = old_count;
  plan.result_local = old_count + 1;
  plan.returns_value = !ret.empty();
  il::Instrumented done;
  if (!il::instrument(body, plan, &done, &why)) return fail(reason, why);
  out->il = std::move(done.body);
  out->map.clear();
  for (const il::OffsetMapping& m : done.mapping) out->map.push_back(COR_IL_MAP{m.old_offset, m.new_offset, 1});
  return true;
}

void ModuleMeta::apply() {
  if (!emitted_) return;
  emitted_ = false;
  // After startup, metadata a profiler adds reaches the runtime's own view only through this.
  info_->ApplyMetaData(id_);
}

}  // namespace clrscope
