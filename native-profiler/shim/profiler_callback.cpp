#include "shim/profiler_callback.h"

#include <new>

#include "core/log.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/profiler_config.h"
#include "core/utf16.h"
#include "shim/engine.h"
#include "shim/guarded.h"

namespace clrscope {

using namespace clr;

namespace {

// The IIDs this object answers to: every callback version it implements.
bool is_callback_iid(const IID& riid) {
  static const GUID* const kIids[] = {&IID_IUnknown,              &IID_ICorProfilerCallback,
                                      &IID_ICorProfilerCallback2,  &IID_ICorProfilerCallback3,
                                      &IID_ICorProfilerCallback4,  &IID_ICorProfilerCallback5,
                                      &IID_ICorProfilerCallback6,  &IID_ICorProfilerCallback7,
                                      &IID_ICorProfilerCallback8,  &IID_ICorProfilerCallback9,
                                      &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11};
  for (const GUID* g : kIids) {
    if (*g == riid) return true;
  }
  return false;
}

}  // namespace

HRESULT ProfilerCallback::QueryInterface(const IID& riid, void** ppv) {
  if (ppv == nullptr) return E_POINTER;
  if (!is_callback_iid(riid)) {
    *ppv = nullptr;
    return E_NOINTERFACE;
  }
  *ppv = static_cast<ICorProfilerCallback11*>(this);
  AddRef();
  return S_OK;
}

ULONG ProfilerCallback::AddRef() { return refs_.fetch_add(1) + 1; }

ULONG ProfilerCallback::Release() {
  const ULONG left = refs_.fetch_sub(1) - 1;
  // The engine outlives this object on purpose (see engine_), so only the shell is freed.
  if (left == 0) delete this;
  return left;
}

HRESULT ProfilerCallback::Initialize(IUnknown* unknown) {
  return guarded("Initialize", [&]() -> HRESULT {
    log_open_from_env();
    engine_ = start_engine(unknown, read_profiler_config(), false);
    if (engine_ != nullptr) start_async_heap(engine_);
    return engine_ != nullptr ? S_OK : E_FAIL;
  }, kCostCallbacks, true);
}

HRESULT ProfilerCallback::InitializeForAttach(IUnknown* unknown, void* client_data, UINT client_data_size) {
  return guarded("InitializeForAttach", [&]() -> HRESULT {
    log_open_from_env();
    engine_ = start_engine(unknown, parse_client_data(static_cast<const char*>(client_data), client_data_size), true);
    return engine_ != nullptr ? S_OK : E_FAIL;
  }, kCostCallbacks, true);
}

HRESULT ProfilerCallback::ProfilerAttachComplete() {
  return guarded("ProfilerAttachComplete", [&]() -> HRESULT {
    // Only now may the threads that already existed be enumerated; new ones arrive through
    // ThreadCreated from here on.
    if (engine_ != nullptr) register_existing_threads(engine_);
    if (engine_ != nullptr) start_async_heap(engine_);
    return S_OK;
  }, kCostCallbacks, true);
}

HRESULT ProfilerCallback::ProfilerDetachSucceeded() {
  return guarded("ProfilerDetachSucceeded", [&]() -> HRESULT {
    Engine* e = engine_;
    engine_ = nullptr;
    if (e != nullptr) finish_detach(e);
    return S_OK;
  }, kCostCallbacks, true);
}

HRESULT ProfilerCallback::Shutdown() {
  return guarded("Shutdown", [&]() -> HRESULT {
    if (engine_ != nullptr && !engine_->detaching.load()) stop_engine_at_shutdown(engine_);
    return S_OK;
  }, kCostCallbacks, true);
}

HRESULT ProfilerCallback::ThreadCreated(ThreadID thread) {
  return guarded("ThreadCreated", [&]() -> HRESULT {
    // The profiler's own thread that starts and stops the requests bridge becomes a managed thread
    // at its first session command (shim/requests_bridge.h); it is the profiler, not the program.
    if (engine_ != nullptr && !is_own_thread(platform::current_tid())) engine_->registry.on_created(thread);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ThreadDestroyed(ThreadID thread) {
  return guarded("ThreadDestroyed", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->registry.on_destroyed(thread);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ThreadAssignedToOSThread(ThreadID thread, DWORD os_thread) {
  return guarded("ThreadAssignedToOSThread", [&]() -> HRESULT {
    if (engine_ != nullptr && !is_own_thread(os_thread)) engine_->registry.on_assigned_os_thread(thread, os_thread);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ThreadNameChanged(ThreadID thread, ULONG cch, WCHAR name[]) {
  return guarded("ThreadNameChanged", [&]() -> HRESULT {
    if (engine_ != nullptr) {
      engine_->registry.on_name_changed(thread, utf16_to_utf8(reinterpret_cast<const char16_t*>(name), cch));
    }
    return S_OK;
  });
}

}  // namespace clrscope
