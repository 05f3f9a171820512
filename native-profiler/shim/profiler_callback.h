#pragma once
// The object the runtime talks to. It sets the event mask, feeds thread lifecycle into the
// registry and owns the sampler; every callback returns an HRESULT and never throws.
#include <atomic>

#include "shim/callback_defaults.h"

namespace clrscope {

struct Engine;

class ProfilerCallback final : public CallbackDefaults {
 public:
  ProfilerCallback() = default;

  clr::HRESULT CLR_STDCALL QueryInterface(const clr::IID& riid, void** ppv) override;
  clr::ULONG CLR_STDCALL AddRef() override;
  clr::ULONG CLR_STDCALL Release() override;

  clr::HRESULT CLR_STDCALL Initialize(clr::IUnknown* info) override;
  clr::HRESULT CLR_STDCALL InitializeForAttach(clr::IUnknown* info, void* client_data, clr::UINT size) override;
  clr::HRESULT CLR_STDCALL ProfilerAttachComplete() override;
  clr::HRESULT CLR_STDCALL ProfilerDetachSucceeded() override;
  clr::HRESULT CLR_STDCALL Shutdown() override;
  clr::HRESULT CLR_STDCALL ThreadCreated(clr::ThreadID thread) override;
  clr::HRESULT CLR_STDCALL ThreadDestroyed(clr::ThreadID thread) override;
  clr::HRESULT CLR_STDCALL ThreadAssignedToOSThread(clr::ThreadID thread, clr::DWORD os_thread) override;
  clr::HRESULT CLR_STDCALL ThreadNameChanged(clr::ThreadID thread, clr::ULONG cch, clr::WCHAR name[]) override;

  // Runtime suspensions and GCs (core/suspension_tracker.h).
  clr::HRESULT CLR_STDCALL RuntimeSuspendStarted(clr::COR_PRF_SUSPEND_REASON reason) override;
  clr::HRESULT CLR_STDCALL RuntimeSuspendFinished() override;
  clr::HRESULT CLR_STDCALL RuntimeSuspendAborted() override;
  clr::HRESULT CLR_STDCALL RuntimeResumeFinished() override;
  clr::HRESULT CLR_STDCALL GarbageCollectionStarted(int generations, clr::BOOL collected[],
                                                    clr::COR_PRF_GC_REASON reason) override;
  clr::HRESULT CLR_STDCALL GarbageCollectionFinished() override;

  // Counters (core/runtime_counters.h).
  clr::HRESULT CLR_STDCALL ExceptionThrown(clr::ObjectID thrown) override;
  clr::HRESULT CLR_STDCALL ExceptionSearchFilterEnter(clr::FunctionID function) override;
  clr::HRESULT CLR_STDCALL ExceptionUnwindFinallyEnter(clr::FunctionID function) override;
  clr::HRESULT CLR_STDCALL JITCompilationStarted(clr::FunctionID function, clr::BOOL safe_to_block) override;
  clr::HRESULT CLR_STDCALL JITCompilationFinished(clr::FunctionID function, clr::HRESULT status,
                                                  clr::BOOL safe_to_block) override;
  clr::HRESULT CLR_STDCALL ClassLoadFinished(clr::ClassID cls, clr::HRESULT status) override;
  clr::HRESULT CLR_STDCALL AssemblyLoadFinished(clr::AssemblyID assembly, clr::HRESULT status) override;
  clr::HRESULT CLR_STDCALL AssemblyUnloadFinished(clr::AssemblyID assembly, clr::HRESULT status) override;
  clr::HRESULT CLR_STDCALL AppDomainCreationFinished(clr::AppDomainID domain, clr::HRESULT status) override;
  clr::HRESULT CLR_STDCALL AppDomainShutdownFinished(clr::AppDomainID domain, clr::HRESULT status) override;
  clr::HRESULT CLR_STDCALL ModuleLoadFinished(clr::ModuleID module, clr::HRESULT status) override;

  // Measuring methods exactly (shim/measure_controller.h).
  clr::HRESULT CLR_STDCALL ModuleUnloadStarted(clr::ModuleID module) override;
  clr::HRESULT CLR_STDCALL GetReJITParameters(clr::ModuleID module, clr::mdMethodDef method,
                                              clr::ICorProfilerFunctionControl* control) override;
  clr::HRESULT CLR_STDCALL ReJITCompilationFinished(clr::FunctionID function, clr::ReJITID rejit, clr::HRESULT status,
                                                    clr::BOOL safe_to_block) override;
  clr::HRESULT CLR_STDCALL ReJITError(clr::ModuleID module, clr::mdMethodDef method, clr::FunctionID function,
                                      clr::HRESULT status) override;

  // The runtime's own events from our in-process EventPipe session (contention, GC heap stats).
  clr::HRESULT CLR_STDCALL EventPipeEventDelivered(clr::EVENTPIPE_PROVIDER provider, clr::DWORD event_id,
                                                   clr::DWORD event_version, clr::ULONG metadata_size,
                                                   clr::LPCBYTE metadata, clr::ULONG data_size, clr::LPCBYTE data,
                                                   clr::LPCGUID activity, clr::LPCGUID related_activity,
                                                   clr::ThreadID thread, clr::ULONG frame_count,
                                                   clr::UINT_PTR frames[]) override;

 private:
  std::atomic<clr::ULONG> refs_{1};
  // Freed only by a detach (after the capture signal is gone); a profiler loaded at startup
  // keeps it to the end, since a signal may still arrive while the process exits.
  Engine* engine_ = nullptr;
};

}  // namespace clrscope
