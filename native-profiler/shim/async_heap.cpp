#include "shim/async_heap.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include "core/box_stack.h"
#include "core/log.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/utf16.h"
#include "shim/metadata_names.h"

namespace clrscope {

using namespace clr;

namespace {

constexpr ULONG kChars = 512;
// A state machine sits inside its async method's type, which may be nested itself.
constexpr int kNestedHops = 8;
// How long the worker waits for CoreLib to be loaded (at a launch it comes right after the
// profiler's start; after an attach it is there already).
constexpr int kWaitForCoreLibMs = 30000;

const char16_t kCoreLib[] = u"System.Private.CoreLib.dll";
const char16_t kBuilder[] = u"System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1";
const char16_t kBox[] = u"AsyncStateMachineBox`1";
const char16_t kBoxFull[] = u"System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1";
// The pooled ValueTask box (PoolingAsyncValueTaskMethodBuilder, .NET 6 on): an IValueTaskSource,
// not a Task; its awaiter is in the base's `_valueTaskSource` (ManualResetValueTaskSourceCore).
const char16_t kPooledBuilder[] = u"System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder`1";
const char16_t kPooledBox[] = u"StateMachineBox`1";
const char16_t kPooledBoxFull[] = u"System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder`1+StateMachineBox`1";
const char16_t kPooledBase[] = u"System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder`1+StateMachineBox";
const char16_t kSourceCore[] = u"System.Threading.Tasks.Sources.ManualResetValueTaskSourceCore`1";
const char16_t kTask[] = u"System.Threading.Tasks.Task";
const char16_t kDelegate[] = u"System.Delegate";
const char16_t kAwaitContinuation[] = u"System.Threading.Tasks.AwaitTaskContinuation";

const WCHAR* wide(const char16_t* s) { return reinterpret_cast<const WCHAR*>(s); }
std::u16string u16(const WCHAR* s, ULONG len) {
  std::u16string out(reinterpret_cast<const char16_t*>(s), len);
  while (!out.empty() && out.back() == u'\0') out.pop_back();
  return out;
}
bool ends_with(const std::u16string& s, const std::u16string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
std::string hr_text(HRESULT hr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

}  // namespace

AsyncHeap::AsyncHeap(ICorProfilerInfo12* info, bool log) : info_(info), log_(log) {}

AsyncHeap::~AsyncHeap() {
  stop();
  for (auto& m : imports_) m.second->Release();
}

void AsyncHeap::start() {
  try {
    worker_ = std::thread([this] { run(); });
  } catch (...) {
    log_line("async stacks (heap): could not start the worker thread; no async stacks");
  }
}

void AsyncHeap::stop() {
  stopping_.store(true, std::memory_order_release);
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
}

void AsyncHeap::run() {
  platform::name_current_thread("clrscope-async");
  mark_own_thread();
  ModuleID corelib = 0;
  for (int waited = 0; corelib == 0 && waited < kWaitForCoreLibMs && !stopping_.load(std::memory_order_acquire); waited += 20) {
    ICorProfilerModuleEnum* modules = nullptr;
    if (SUCCEEDED(info_->EnumModules(&modules)) && modules != nullptr) {
      ModuleID batch[64];
      ULONG n = 0;
      while (corelib == 0 && SUCCEEDED(modules->Next(64, batch, &n)) && n > 0) {
        for (ULONG i = 0; i < n && corelib == 0; ++i) {
          WCHAR path[kChars];
          ULONG len = 0;
          LPCBYTE base = nullptr;
          AssemblyID assembly = 0;
          if (SUCCEEDED(info_->GetModuleInfo(batch[i], &base, kChars, &len, path, &assembly)) && ends_with(u16(path, len), kCoreLib)) {
            corelib = batch[i];
          }
        }
      }
      modules->Release();
    }
    if (corelib == 0) platform::sleep_until_mono_ns(platform::mono_now_ns() + 20000000ull);
  }
  if (corelib != 0) {
    corelib_.store(corelib, std::memory_order_release);
    if (!prepare()) log_line("async stacks (heap): %s; no async stacks", refusal_.c_str());
  } else if (!stopping_.load()) {
    log_line("async stacks (heap): CoreLib was not found among the loaded modules; no async stacks");
  }
  unmark_own_thread();
}

bool AsyncHeap::box_methods(IMetaDataImport* import, const char16_t* outer, const char16_t* box_name, uint32_t params,
                            mdMethodDef* move_next, std::vector<mdMethodDef>* callers) {
  mdTypeDef builder = 0, box = 0;
  if (FAILED(import->FindTypeDefByName(wide(outer), mdTokenNil, &builder)) || FAILED(import->FindTypeDefByName(wide(box_name), builder, &box))) {
    return false;
  }
  // MoveNext with `params` parameters is the one wrapped; every other of these names calls it.
  for (const char16_t* wanted : {u"MoveNext", u"ExecuteFromThreadPool", u"ExecuteDirectly", u"System.Threading.IThreadPoolWorkItem.Execute"}) {
    HCORENUM e = nullptr;
    mdMethodDef methods[8];
    ULONG n = 0;
    if (SUCCEEDED(import->EnumMethodsWithName(&e, box, wide(wanted), methods, 8, &n))) {
      for (ULONG i = 0; i < n; ++i) {
        mdTypeDef owner = 0;
        WCHAR name[kChars];
        ULONG len = 0, sig_len = 0, rva = 0;
        DWORD attrs = 0, impl = 0;
        PCCOR_SIGNATURE sig = nullptr;
        if (FAILED(import->GetMethodProps(methods[i], &owner, name, kChars, &len, &attrs, &sig, &sig_len, &rva, &impl))) continue;
        if (std::u16string(wanted) == u"MoveNext" && sig_len >= 2 && sig[1] == params) {
          *move_next = methods[i];
        } else {
          callers->push_back(methods[i]);
        }
      }
    }
    if (e != nullptr) import->CloseEnum(e);
  }
  return *move_next != 0;
}

bool AsyncHeap::prepare() {
  ModuleMeta meta(info_, corelib_.load());
  IMetaDataImport* import = meta.import();
  mdMethodDef move_next[kBoxKinds] = {};
  std::vector<mdMethodDef> callers;
  if (import == nullptr || !box_methods(import, kBuilder, kBox, 1, &move_next[0], &callers)) {
    refusal_ = "CoreLib has no AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.MoveNext(Thread)";
    return false;
  }
  // The pooled box is wrapped too where CoreLib has it; without it, its methods keep their
  // physical stacks only.
  if (!box_methods(import, kPooledBuilder, kPooledBox, 0, &move_next[1], &callers)) {
    log_line("async stacks (heap): CoreLib has no PoolingAsyncValueTaskMethodBuilder`1+StateMachineBox`1.MoveNext(); pooled ValueTask "
             "methods keep their physical stacks");
  }
  if (callers.size() > kCallers) callers.resize(kCallers);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int k = 0; k < kBoxKinds; ++k) {
      if (move_next[k] == 0) continue;
      if (!meta.prepare_box_probe(move_next[k], reinterpret_cast<uint64_t>(&clrscope_box_enter),
                                  reinterpret_cast<uint64_t>(&clrscope_box_leave), &prepared_[k], &refusal_)) {
        if (k == 0) return false;
        log_line("async stacks (heap): the pooled box's MoveNext cannot be wrapped (%s)", refusal_.c_str());
        refusal_.clear();
        move_next[k] = 0;
      }
    }
    ready_ = true;
  }
  meta.apply();
  for (size_t i = 0; i < callers.size(); ++i) callers_[i].store(callers[i], std::memory_order_release);
  for (int k = 0; k < kBoxKinds; ++k) move_next_[k].store(move_next[k], std::memory_order_release);
  DWORD low = 0, high = 0;
  HRESULT hr = info_->GetEventMask2(&low, &high);
  if (SUCCEEDED(hr)) hr = info_->SetEventMask2(low | COR_PRF_ENABLE_REJIT | COR_PRF_MONITOR_JIT_COMPILATION, high);
  if (FAILED(hr)) {
    refusal_ = "the runtime would not enable ReJIT (" + hr_text(hr) + ")";
    return false;
  }
  // Every instantiation, loaded now or later, compiles from the wrapped IL (IL versions belong to
  // the method definition); methods that inlined a MoveNext are compiled again, as far as the
  // runtime tracked their inlining (not before an attach: hence the callers).
  std::vector<mdMethodDef> defs = callers;
  for (int k = kBoxKinds - 1; k >= 0; --k) {
    if (move_next[k] != 0) defs.insert(defs.begin(), move_next[k]);
  }
  std::vector<ModuleID> modules(defs.size(), corelib_.load());
  hr = info_->RequestReJITWithInliners(COR_PRF_REJIT_BLOCK_INLINING, static_cast<ULONG>(defs.size()), modules.data(), defs.data());
  if (FAILED(hr)) {
    refusal_ = "the runtime did not accept the ReJIT request (" + hr_text(hr) + ")";
    return false;
  }
  log_line("async stacks (heap): ReJIT requested for AsyncStateMachineBox`1.MoveNext(Thread) (token 0x%08x) and the pooled "
           "StateMachineBox`1.MoveNext() (token 0x%08x)",
           static_cast<unsigned>(move_next[0]), static_cast<unsigned>(move_next[1]));
  return true;
}

bool AsyncHeap::owns(ModuleID module, mdMethodDef method) const {
  if (module == 0 || module != corelib_.load(std::memory_order_acquire) || method == 0) return false;
  for (const auto& m : move_next_) {
    if (m.load(std::memory_order_acquire) == method) return true;
  }
  for (const auto& c : callers_) {
    if (c.load(std::memory_order_acquire) == method) return true;
  }
  return false;
}

HRESULT AsyncHeap::get_rejit_parameters(mdMethodDef method, ICorProfilerFunctionControl* control) {
  std::lock_guard<std::mutex> lock(mu_);
  // A caller keeps its own IL: compiled again, it calls the wrapped MoveNext.
  int k = 0;
  while (k < kBoxKinds && method != move_next_[k].load(std::memory_order_acquire)) ++k;
  if (!ready_ || k == kBoxKinds) return S_OK;
  const HRESULT hr = control->SetILFunctionBody(static_cast<ULONG>(prepared_[k].il.size()), prepared_[k].il.data());
  if (FAILED(hr)) log_line("async stacks (heap): the runtime did not take the wrapped MoveNext (%s)", hr_text(hr).c_str());
  return hr;
}

void AsyncHeap::on_rejit_finished(FunctionID function, mdMethodDef method, HRESULT status) {
  if (method != move_next_[0].load(std::memory_order_acquire) && method != move_next_[1].load(std::memory_order_acquire)) {
    if (FAILED(status)) log_line("async stacks (heap): a caller of MoveNext(Thread) failed to compile again (%s)", hr_text(status).c_str());
    return;
  }
  if (FAILED(status)) {
    failed_.fetch_add(1, std::memory_order_relaxed);
    log_line("async stacks (heap): an instantiation of MoveNext failed to compile (%s)", hr_text(status).c_str());
    return;
  }
  const uint64_t n = compiled_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (!log_ || n > 64) return;
  // Which instantiation: the study's question of whether ReJIT reaches every one.
  ClassID cls = 0;
  ModuleID module = 0;
  mdToken token = 0;
  ModuleID owner = 0;
  mdTypeDef td = 0;
  ClassID parent = 0;
  ULONG32 count = 0;
  ClassID args[4] = {};
  if (FAILED(info_->GetFunctionInfo(function, &cls, &module, &token)) || cls == 0 ||
      FAILED(info_->GetClassIDInfo2(cls, &owner, &td, &parent, 4, &count, args)) || count == 0) {
    log_line("async stacks (heap): MoveNext compiled with the probe (instantiation %llu, shared or unknown)",
             static_cast<unsigned long long>(n));
    return;
  }
  HeapType ignored;
  std::string name;
  ModuleID sm_module = 0;
  mdTypeDef sm_td = 0;
  IMetaDataImport* import = nullptr;
  if (SUCCEEDED(info_->GetClassIDInfo(args[count - 1], &sm_module, &sm_td))) {
    IUnknown* unk = nullptr;
    if (SUCCEEDED(info_->GetModuleMetaData(sm_module, ofRead, IID_IMetaDataImport, &unk)) && unk != nullptr) {
      import = static_cast<IMetaDataImport*>(unk);
      name = nested_type_name(import, sm_td, kNestedHops);
      import->Release();
    }
  }
  log_line("async stacks (heap): MoveNext compiled with the probe for %s (instantiation %llu)", name.empty() ? "?" : name.c_str(),
           static_cast<unsigned long long>(n));
}

void AsyncHeap::on_rejit_error(HRESULT status) {
  failed_.fetch_add(1, std::memory_order_relaxed);
  log_line("async stacks (heap): ReJIT of MoveNext failed (%s)", hr_text(status).c_str());
}

IMetaDataImport* AsyncHeap::import_of(ModuleID module) {
  auto it = imports_.find(module);
  if (it != imports_.end()) return it->second;
  IUnknown* unk = nullptr;
  IMetaDataImport* import = nullptr;
  if (SUCCEEDED(info_->GetModuleMetaData(module, ofRead, IID_IMetaDataImport, &unk)) && unk != nullptr) {
    import = static_cast<IMetaDataImport*>(unk);
  }
  if (import != nullptr) imports_.emplace(module, import);
  return import;
}

bool AsyncHeap::field_offset(ClassID level, IMetaDataImport* import, const char16_t* field, uint16_t* out) {
  const auto key = std::make_pair(level, std::u16string(field));
  auto it = offsets_.find(key);
  if (it != offsets_.end()) {
    *out = it->second;
    return true;
  }
  COR_FIELD_OFFSET fields[128];
  ULONG count = 0, size = 0;
  bool found = false;
  if (SUCCEEDED(info_->GetClassLayout(level, fields, 128, &count, &size))) {
    for (ULONG i = 0; i < count && i < 128 && !found; ++i) {
      WCHAR buf[kChars];
      ULONG len = 0;
      mdTypeDef owner = 0;
      DWORD attrs = 0, cplus = 0;
      PCCOR_SIGNATURE sig = nullptr;
      ULONG sig_len = 0, value_len = 0;
      UVCP_CONSTANT value = nullptr;
      if (FAILED(import->GetFieldProps(fields[i].ridOfField, &owner, buf, kChars, &len, &attrs, &sig, &sig_len, &cplus, &value, &value_len))) {
        continue;
      }
      // The profiler API gives reference types' field offsets from the object's start (after
      // the MethodTable pointer's 8 bytes, which it counts), value types' from their first byte.
      if (u16(buf, len) == key.second && fields[i].ulOffset < 0x8000) {
        *out = static_cast<uint16_t>(fields[i].ulOffset);
        found = true;
      }
    }
  }
  if (found) {
    offsets_.emplace(key, *out);
    if (log_) log_line("async stacks (heap): field %s at offset %u", utf16_to_utf8(key.second.data(), key.second.size()).c_str(), *out);
  }
  return found;
}

uint16_t AsyncHeap::pooled_awaiter_offset(ClassID level, IMetaDataImport* import) {
  ModuleID module = 0;
  mdTypeDef td = 0;
  ClassID parent = 0;
  ULONG32 count = 0;
  ClassID args[2] = {};
  mdTypeDef core = 0;
  ClassID core_class = 0;
  uint16_t outer = 0, inner = 0;
  // The struct's layout depends on TResult: its instantiation over the box's own.
  if (FAILED(info_->GetClassIDInfo2(level, &module, &td, &parent, 2, &count, args)) || count != 1 ||
      FAILED(import->FindTypeDefByName(wide(kSourceCore), mdTokenNil, &core)) ||
      FAILED(info_->GetClassFromTokenAndTypeArgs(module, core, 1, args, &core_class)) ||
      !field_offset(level, import, u"_valueTaskSource", &outer) || !field_offset(core_class, import, u"_continuationState", &inner)) {
    return 0;
  }
  return static_cast<uint16_t>(outer + inner);
}

bool AsyncHeap::classify(uintptr_t class_id, HeapType* type, std::string* name) {
  const ModuleID corelib = corelib_.load(std::memory_order_acquire);
  bool box = false;
  *type = HeapType{HeapKind::kStop, 0};
  ClassID c = class_id;
  for (int depth = 0; depth < 32 && c != 0; ++depth) {
    ModuleID module = 0;
    mdTypeDef td = 0;
    ClassID parent = 0;
    ULONG32 count = 0;
    ClassID args[4] = {};
    if (FAILED(info_->GetClassIDInfo2(c, &module, &td, &parent, 4, &count, args))) return depth > 0;
    if (module == corelib) {
      IMetaDataImport* import = import_of(module);
      if (import == nullptr) return false;
      const std::string level = nested_type_name(import, td, kNestedHops);
      const std::u16string level16(level.begin(), level.end());  // CoreLib's names here are ASCII
      if (level16 == kBoxFull || level16 == kPooledBoxFull) {
        box = true;
        ModuleID sm_module = 0;
        mdTypeDef sm_td = 0;
        if (count > 0 && count <= 4 && SUCCEEDED(info_->GetClassIDInfo(args[count - 1], &sm_module, &sm_td))) {
          IMetaDataImport* sm_import = import_of(sm_module);
          if (sm_import != nullptr) *name = nested_type_name(sm_import, sm_td, 1);
        }
      } else if (level16 == kPooledBase) {
        // Only a box awaits (the base alone is the builder's sentinel of a synchronous result).
        const uint16_t offset = box ? pooled_awaiter_offset(c, import) : 0;
        *type = offset != 0 ? HeapType{HeapKind::kBox, offset} : HeapType{HeapKind::kStop, 0};
        return true;
      } else {
        const bool task = level16 == kTask, delegate = level16 == kDelegate, continuation = level16 == kAwaitContinuation;
        if (task || delegate || continuation) {
          const HeapKind kind = task ? (box ? HeapKind::kBox : HeapKind::kTask) : delegate ? HeapKind::kDelegate : HeapKind::kContinuation;
          uint16_t offset = 0;
          const bool known = field_offset(c, import, task ? u"m_continuationObject" : delegate ? u"_target" : u"m_action", &offset);
          *type = known && offset != 0 ? HeapType{kind, offset} : HeapType{HeapKind::kStop, 0};
          return true;
        }
      }
    }
    c = parent;
  }
  return true;  // no Task, delegate or continuation among its bases: the chain ends there
}

}  // namespace clrscope
