#pragma once
// Async call stacks read from the heap (approach B of native-profiler/ASYNC-STACKS-STUDY.md):
// the runtime's side. Finds CoreLib's `AsyncTaskMethodBuilder<TResult>.AsyncStateMachineBox<T>
// .MoveNext(Thread)` and the pooled ValueTask box's `PoolingAsyncValueTaskMethodBuilder<TResult>
// .StateMachineBox<T>.MoveNext()`, has ReJIT wrap both with the box probe (core/il_box_probe.h,
// core/box_stack.h) and counts the instantiations the runtime compiles with it; classifies, for
// the sampler thread, the MethodTables the handlers' walks meet (core/heap_chains.h).
//
// Threads: a worker thread of ours finds CoreLib and requests the ReJIT (it suspends the runtime:
// never on a runtime thread or the sampler's); GetReJITParameters on whichever runtime thread
// compiles an instantiation; classify() on the sampler thread.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <map>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

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
  // The box's MoveNext (with `params` parameters) and its callers in the box; false when absent.
  bool box_methods(clr::IMetaDataImport* import, const char16_t* outer, const char16_t* box, uint32_t params,
                   clr::mdMethodDef* move_next, std::vector<clr::mdMethodDef>* callers);
  // The offset of `field` declared by `level` (from a reference type's start, its MethodTable
  // pointer included; from a value type's first byte), cached by both.
  bool field_offset(clr::ClassID level, clr::IMetaDataImport* import, const char16_t* field, uint16_t* out);
  // Where a pooled box keeps the object its awaiter left: `_valueTaskSource._continuationState`
  // (the awaiting box itself, or a delegate to it). `level` is the box's base, over TResult.
  uint16_t pooled_awaiter_offset(clr::ClassID level, clr::IMetaDataImport* import);

  clr::ICorProfilerInfo12* info_;
  bool log_;
  std::atomic<bool> stopping_{false};
  std::thread worker_;
  std::atomic<clr::ModuleID> corelib_{0};
  // [0] the task box's MoveNext(Thread), [1] the pooled box's MoveNext() (0: not in this CoreLib).
  static constexpr int kBoxKinds = 2;
  std::atomic<clr::mdMethodDef> move_next_[kBoxKinds] = {};
  // Their callers in the boxes (MoveNext(), ExecuteFromThreadPool, IThreadPoolWorkItem.Execute):
  // compiled again from their own IL, since code compiled before an attach inlined MoveNext unprobed.
  static constexpr int kCallers = 8;
  std::atomic<clr::mdMethodDef> callers_[kCallers] = {};
  std::mutex mu_;  // the prepared IL, read by GetReJITParameters
  PreparedMethod prepared_[kBoxKinds];
  bool ready_ = false;
  std::string refusal_;
  std::atomic<uint64_t> compiled_{0};
  std::atomic<uint64_t> failed_{0};
  // Sampler thread only.
  std::unordered_map<clr::ModuleID, clr::IMetaDataImport*> imports_;
  std::map<std::pair<clr::ClassID, std::u16string>, uint16_t> offsets_;
};

}  // namespace clrscope
