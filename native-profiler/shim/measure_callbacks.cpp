// The runtime's ReJIT notifications and module unloads, handed to the measuring controller.
#include "shim/engine.h"
#include "shim/guarded.h"
#include "shim/profiler_callback.h"

namespace clrscope {

using namespace clr;

HRESULT ProfilerCallback::ModuleUnloadStarted(ModuleID module) {
  return guarded("ModuleUnloadStarted", [&]() -> HRESULT {
    if (engine_ != nullptr && engine_->measure != nullptr) engine_->measure->on_module_unloading(module);
    return S_OK;
  });
}

HRESULT ProfilerCallback::GetReJITParameters(ModuleID module, mdMethodDef method, ICorProfilerFunctionControl* control) {
  return guarded("GetReJITParameters", [&]() -> HRESULT {
    if (engine_ == nullptr || control == nullptr) return S_OK;
    if (engine_->async_heap != nullptr && engine_->async_heap->owns(module, method)) return engine_->async_heap->get_rejit_parameters(method, control);
    if (engine_->measure == nullptr) return S_OK;
    return engine_->measure->get_rejit_parameters(module, method, control);
  });
}

HRESULT ProfilerCallback::ReJITCompilationFinished(FunctionID function, ReJITID, HRESULT status, BOOL) {
  return guarded("ReJITCompilationFinished", [&]() -> HRESULT {
    if (engine_ != nullptr && engine_->async_heap != nullptr) {
      ClassID cls = 0;
      ModuleID module = 0;
      mdToken token = 0;
      if (SUCCEEDED(engine_->info->GetFunctionInfo(function, &cls, &module, &token)) && engine_->async_heap->owns(module, token)) {
        engine_->async_heap->on_rejit_finished(function, token, status);
        return S_OK;
      }
    }
    if (engine_ != nullptr && engine_->measure != nullptr) engine_->measure->on_rejit_finished(function, status);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ReJITError(ModuleID module, mdMethodDef method, FunctionID, HRESULT status) {
  return guarded("ReJITError", [&]() -> HRESULT {
    if (engine_ != nullptr && engine_->async_heap != nullptr && engine_->async_heap->owns(module, method)) {
      engine_->async_heap->on_rejit_error(status);
      return S_OK;
    }
    if (engine_ != nullptr && engine_->measure != nullptr) engine_->measure->on_rejit_error(module, method, status);
    return S_OK;
  });
}

}  // namespace clrscope
