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
  clr::HRESULT CLR_STDCALL Shutdown() override;
  clr::HRESULT CLR_STDCALL ThreadCreated(clr::ThreadID thread) override;
  clr::HRESULT CLR_STDCALL ThreadDestroyed(clr::ThreadID thread) override;
  clr::HRESULT CLR_STDCALL ThreadAssignedToOSThread(clr::ThreadID thread, clr::DWORD os_thread) override;
  clr::HRESULT CLR_STDCALL ThreadNameChanged(clr::ThreadID thread, clr::ULONG cch, clr::WCHAR name[]) override;

 private:
  std::atomic<clr::ULONG> refs_{1};
  Engine* engine_ = nullptr;  // never freed: a signal may still arrive while the process exits
};

}  // namespace clrscope
