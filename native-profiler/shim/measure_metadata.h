#pragma once
// One module's metadata as the measuring code needs it: its types and methods by name, and the
// tokens an instrumented body refers to (the extended locals signature, the probes' call-site
// signatures or P/Invoke methods). Used by the measuring worker thread only.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "clr/corprof.h"
#include "clr/metadata.h"
#include "clr/metadata_emit.h"
#include "core/il_instrument.h"

namespace clrscope {

// How instrumented code reaches the probes (README, "Measuring methods exactly": the choice
// and its cost). The default is an unmanaged calli without a GC transition; the others exist
// to measure against it (scripts/bench/measure-cost.mjs, CLRSCOPE_PROBE_CALL).
enum class ProbeMode { kCalli, kCalliTransition, kPinvoke, kPinvokeTransition };
ProbeMode probe_mode_from(const std::string& text);
const char* probe_mode_name(ProbeMode mode);

struct PreparedMethod {
  std::vector<uint8_t> il;
  std::vector<clr::COR_IL_MAP> map;
};

class ModuleMeta {
 public:
  ModuleMeta(clr::ICorProfilerInfo12* info, clr::ModuleID id);
  ~ModuleMeta();
  ModuleMeta(const ModuleMeta&) = delete;
  ModuleMeta& operator=(const ModuleMeta&) = delete;

  bool readable() const { return import_ != nullptr; }
  clr::ModuleID id() const { return id_; }
  const std::string& file() const { return file_; }

  // Every type with its metadata name ("Ns.Name`1", nested ones "Ns.Outer+Inner"), read once.
  const std::vector<std::pair<clr::mdTypeDef, std::string>>& types();
  std::vector<clr::mdMethodDef> methods_of(clr::mdTypeDef type);
  std::string method_name(clr::mdMethodDef method);
  // "Ns.Type+Nested.Method" as the flame graph names it, without generic arguments.
  std::string display_name(clr::mdMethodDef method);
  // The compiler made this method a state machine's kickoff (AsyncStateMachineAttribute).
  bool is_async(clr::mdMethodDef method);
  // It or its type has generic parameters.
  bool is_generic(clr::mdMethodDef method);

  // The wrapped body of `method` for probe index `index`, or false with a sentence. Emits
  // metadata (signature tokens, type references); call apply() once a batch is prepared.
  bool prepare(clr::mdMethodDef method, uint32_t index, ProbeMode mode, PreparedMethod* out, std::string* reason);
  // The box probe's wrap of CoreLib's AsyncStateMachineBox<T>.MoveNext(Thread) (core/il_box_probe.h),
  // calling `enter` and `leave` by address (shim/box_probe_metadata.cpp).
  bool prepare_box_probe(clr::mdMethodDef method, uint64_t enter, uint64_t leave, PreparedMethod* out, std::string* reason);
  clr::IMetaDataImport* import() const { return import_; }
  // Makes what prepare() defined visible to the runtime (needed after startup).
  void apply();

 private:
  struct MethodProps {
    clr::mdTypeDef owner = 0;
    std::string name;
    clr::PCCOR_SIGNATURE sig = nullptr;
    clr::ULONG sig_len = 0;
  };
  bool method_props(clr::mdMethodDef method, MethodProps* out);
  std::string type_name(clr::mdTypeDef type);
  bool probe_calls(ProbeMode mode, il::ProbeCall* enter, il::ProbeCall* leave, il::ProbeCall* raise, std::string* reason);
  clr::mdToken core_scope();
  clr::mdToken type_ref(const char16_t* name);
  bool define_pinvoke_probes(bool suppress, std::string* reason);

  clr::ICorProfilerInfo12* info_;
  clr::ModuleID id_;
  clr::IMetaDataImport* import_ = nullptr;
  clr::IMetaDataEmit* emit_ = nullptr;
  std::string file_;
  bool types_read_ = false;
  std::vector<std::pair<clr::mdTypeDef, std::string>> types_;
  bool emitted_ = false;
  // Probe tokens, made once per module and mode.
  bool probes_ready_ = false;
  ProbeMode probes_mode_ = ProbeMode::kCalli;
  il::ProbeCall enter_, leave_, raise_;
};

}  // namespace clrscope
