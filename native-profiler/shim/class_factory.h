#pragma once
// The factory DllGetClassObject hands to the runtime; it builds the ProfilerCallback.
#include <atomic>

#include "clr/unknown.h"

namespace clrscope {

class ClassFactory final : public clr::IClassFactory {
 public:
  clr::HRESULT CLR_STDCALL QueryInterface(const clr::IID& riid, void** ppv) override;
  clr::ULONG CLR_STDCALL AddRef() override;
  clr::ULONG CLR_STDCALL Release() override;
  clr::HRESULT CLR_STDCALL CreateInstance(clr::IUnknown* outer, const clr::IID& riid, void** ppv) override;
  clr::HRESULT CLR_STDCALL LockServer(clr::BOOL lock) override;

 private:
  std::atomic<clr::ULONG> refs_{1};
};

}  // namespace clrscope
