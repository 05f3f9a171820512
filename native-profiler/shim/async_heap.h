#pragma once
// Async call stacks read from the heap (approach B of native-profiler/ASYNC-STACKS-STUDY.md):
// the runtime's side. Finds CoreLib's `AsyncTaskMethodBuilder<TResult>.AsyncStateMachineBox<T>
// .MoveNext(Thread)`, has ReJIT wrap it with the box probe (core/il_box_probe.h, core/box_stack.h)
// and counts the instantiations the runtime compiles with it; classifies, for the sampler
// thread, the MethodTables the handlers' walks meet (core/heap_chains.h).
//
// Threads: a worker thread of ours finds CoreLib and requests the ReJIT (it suspends the runtime:
// never on a runtime thread or the sampler's); GetReJITParameters on whichever runtime thread
// compiles an instantiation; classify() on the sampler thread.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "clr/corprof.h"
#include "core/heap_chain.h"
#include "shim/measure_metadata.h"

namespace clrscope {

class AsyncHeap {
 public:
  AsyncHeap(clr::ICorProfilerInfo12* info, bool log);
  ~AsyncHeap();
  AsyncHeap(const AsyncHeap&) = delete;
  AsyncHeap& operator=(const AsyncHeap&) = delete;

  // Starts the worker that asks for the ReJIT once CoreLib is loaded.
  void start();
  void stop();

  bool owns(clr::ModuleID module, clr::mdMethodDef method) const;
  clr::HRESULT get_rejit_parameters(clr::mdMethodDef method, clr::ICorProfilerFunctionControl* control);
  void on_rejit_finished(clr::FunctionID function, clr::mdMethodDef method, clr::HRESULT status);
  void on_rejit_error(clr::HRESULT status);

  // Sampler thread: what a MethodTable (ClassID) is to the walk; for a box, its state machine's
  // name as the runtime's Type.Name gives it ("<Inner>d__6").
  bool classify(uintptr_t class_id, HeapType* type, std::string* name);

  // Instantiations of MoveNext compiled with the probe, and failures.
  uint64_t compiled() const { return compiled_.load(std::memory_order_relaxed); }
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  const std::string& refusal() const { return refusal_; }

 private:
  void run();
  bool prepare();
  clr::IMetaDataImport* import_of(clr::ModuleID module);
  std::string type_name(clr::IMetaDataImport* import, clr::mdTypeDef type, bool full);
  // The offset (from the object's start) of `field` declared by `level`, cached by `key`.
  uint16_t field_offset(clr::ClassID level, clr::IMetaDataImport* import, const char16_t* field);

  clr::ICorProfilerInfo12* info_;
  bool log_;
  std::atomic<bool> stopping_{false};
  std::thread worker_;
  std::atomic<clr::ModuleID> corelib_{0};
  std::atomic<clr::mdMethodDef> move_next_{0};
  // MoveNext(Thread)'s callers in the box (MoveNext(), ExecuteFromThreadPool): compiled again from
  // their own IL, since code compiled before an attach inlined MoveNext(Thread) unprobed.
  std::atomic<clr::mdMethodDef> callers_[4] = {};
  std::mutex mu_;  // the prepared IL, read by GetReJITParameters
  PreparedMethod prepared_;
  bool ready_ = false;
  std::string refusal_;
  std::atomic<uint64_t> compiled_{0};
  std::atomic<uint64_t> failed_{0};
  // Sampler thread only.
  std::unordered_map<clr::ModuleID, clr::IMetaDataImport*> imports_;
  std::unordered_map<std::u16string, uint16_t> offsets_;  // "Type.field" -> offset
};

}  // namespace clrscope
