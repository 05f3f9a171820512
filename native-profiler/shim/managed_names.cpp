#include "shim/managed_names.h"

#include <cstring>

#include "core/utf16.h"
#include "shim/metadata_names.h"

namespace clrscope {
namespace {

using namespace clr;

constexpr uint32_t kMaxTypeArgs = 32;
constexpr int kMaxDepth = 4;  // List<Dictionary<string, List<int>>> and no deeper

std::string strip_arity(std::string name) {
  // Metadata spells generic types with their arity ("List`1"); the arguments follow in <...>.
  const size_t tick = name.find('`');
  if (tick != std::string::npos) name.resize(tick);
  return name;
}

}  // namespace

const ManagedNames::ModuleInfo& ManagedNames::module(ModuleID id) {
  auto it = modules_.find(id);
  if (it != modules_.end()) return it->second;
  ModuleInfo m;
  IUnknown* unk = nullptr;
  if (SUCCEEDED(info_->GetModuleMetaData(id, ofRead, IID_IMetaDataImport, &unk)) && unk != nullptr) {
    m.metadata = static_cast<IMetaDataImport*>(unk);
  }
  WCHAR path[512];
  ULONG len = 0;
  LPCBYTE base = nullptr;
  AssemblyID assembly = 0;
  if (SUCCEEDED(info_->GetModuleInfo(id, &base, 512, &len, path, &assembly)) && len > 0) {
    m.path = utf16_to_utf8(reinterpret_cast<const char16_t*>(path), len < 512 ? len : 512);
    const size_t slash = m.path.find_last_of("/\\");
    m.file = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
  }
  if (m.metadata != nullptr) {
    // The MVID tells a module's build apart from any other, so the workstation can check that
    // a PDB it finds later belongs to the code that ran.
    GUID mvid{};
    ULONG name_len = 0;
    if (SUCCEEDED(m.metadata->GetScopeProps(nullptr, 0, &name_len, &mvid))) {
      static_assert(sizeof(mvid) == sizeof(m.mvid), "a GUID is 16 bytes");
      std::memcpy(m.mvid, &mvid, sizeof m.mvid);
    }
  }
  return modules_.emplace(id, m).first->second;
}

std::string ManagedNames::type_def_name(const ModuleInfo& m, mdTypeDef type) {
  const std::string name = nested_type_name(m.metadata, type, 8, strip_arity);
  return name.empty() ? "?" : name;
}

std::string ManagedNames::type_args(const ClassID* args, uint32_t count, int depth) {
  if (count == 0) return std::string();
  std::string out = "<";
  for (uint32_t i = 0; i < count; ++i) {
    if (i > 0) out += ",";
    out += class_name(args[i], depth + 1);
  }
  return out + ">";
}

std::string ManagedNames::class_name(ClassID id, int depth) {
  if (id == 0) return "?";
  if (depth > kMaxDepth) return "...";
  auto it = classes_.find(id);
  if (it != classes_.end()) return it->second;
  std::string name;
  ModuleID mod = 0;
  mdTypeDef td = 0;
  ClassID parent = 0;
  ClassID args[kMaxTypeArgs];
  ULONG32 nargs = 0;
  CorElementType elem{};
  ClassID element = 0;
  ULONG rank = 0;
  if (SUCCEEDED(info_->IsArrayClass(id, &elem, &element, &rank)) && element != 0) {
    // IsArrayClass answers S_OK for arrays and S_FALSE otherwise.
    name = class_name(element, depth + 1) + "[" + std::string(rank > 1 ? rank - 1 : 0, ',') + "]";
  } else if (SUCCEEDED(info_->GetClassIDInfo2(id, &mod, &td, &parent, kMaxTypeArgs, &nargs, args))) {
    name = type_def_name(module(mod), td) + type_args(args, nargs < kMaxTypeArgs ? nargs : kMaxTypeArgs, depth);
  } else {
    name = "?";
  }
  classes_.emplace(id, name);
  return name;
}

bool ManagedNames::dynamic_name(FunctionID function, std::string* name, std::string* module_file) {
  // IL stubs and dynamic methods (LCG: expression trees, minimal-API request delegates) have no
  // method definition; the runtime still knows their names. Named as the runtime's own stack
  // traces and PerfView name them.
  WCHAR buf[512];
  ULONG len = 0;
  ModuleID dyn_module = 0;
  if (FAILED(info_->GetDynamicFunctionInfo(function, &dyn_module, nullptr, nullptr, 512, &len, buf)) || len == 0) {
    return false;
  }
  // len counts the terminating NUL.
  while (len > 0 && buf[len - 1] == 0) --len;
  const std::string method = utf16_to_utf8(reinterpret_cast<const char16_t*>(buf), len);
  *name = method.rfind("IL_STUB", 0) == 0 ? "[stub] " + method : "dynamicClass." + method;
  module_file->clear();
  return true;
}

bool ManagedNames::describe(FunctionID function, ResolvedFrame* out) {
  std::string* name = &out->name;
  std::string* module_file = &out->module;
  out->module_path.clear();
  std::memset(out->mvid, 0, sizeof out->mvid);
  out->token = 0;
  ClassID cls = 0;
  ModuleID mod = 0;
  mdToken token = 0;
  ClassID method_args[kMaxTypeArgs];
  ULONG32 nargs = 0;
  if (FAILED(info_->GetFunctionInfo2(function, 0, &cls, &mod, &token, kMaxTypeArgs, &nargs, method_args))) {
    return dynamic_name(function, name, module_file);
  }
  // A dynamic method answers with a module (the one it is hosted in) but no method token.
  if ((token & 0x00FFFFFF) == 0 && dynamic_name(function, name, module_file)) return true;
  const ModuleInfo& m = module(mod);
  *module_file = m.file;
  out->module_path = m.path;
  std::memcpy(out->mvid, m.mvid, sizeof out->mvid);
  out->token = token;
  std::string method = "?";
  mdTypeDef owner = mdTokenNil;
  if (m.metadata != nullptr) {
    WCHAR buf[512];
    ULONG len = 0;
    DWORD attrs = 0, impl = 0;
    PCCOR_SIGNATURE sig = nullptr;
    ULONG sig_len = 0, rva = 0;
    if (SUCCEEDED(m.metadata->GetMethodProps(token, &owner, buf, 512, &len, &attrs, &sig, &sig_len, &rva, &impl))) {
      method = utf16_to_utf8(reinterpret_cast<const char16_t*>(buf), len);
    }
  }
  // With an exact ClassID the type's own generic arguments are known; shared generic code has
  // none (the runtime answers 0), and the definition's name is the honest answer.
  const std::string type = cls != 0 ? class_name(cls, 0) : type_def_name(m, owner);
  *name = type + "." + method + type_args(method_args, nargs < kMaxTypeArgs ? nargs : kMaxTypeArgs, 0);
  return true;
}

ManagedNames::~ManagedNames() {
  for (auto& [id, m] : modules_) {
    if (m.metadata != nullptr) m.metadata->Release();
  }
}

}  // namespace clrscope
