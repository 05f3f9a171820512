// The two functions the runtime looks up in a profiler library.
#include <new>

#include "shim/class_factory.h"
#include "shim/clsid.h"

using namespace clr;  // the HRESULT names (macros on Windows, constants in clr:: elsewhere)

#if defined(_WIN32)
#define CLRSCOPE_EXPORT extern "C" __declspec(dllexport)
#else
#define CLRSCOPE_EXPORT extern "C" __attribute__((visibility("default")))
#endif

CLRSCOPE_EXPORT clr::HRESULT CLR_STDCALL DllGetClassObject(const clr::CLSID& rclsid, const clr::IID& riid,
                                                          void** ppv) {
  if (ppv == nullptr) return E_POINTER;
  *ppv = nullptr;
  if (!(rclsid == clrscope::kProfilerClsid)) return CLASS_E_CLASSNOTAVAILABLE;
  auto* factory = new (std::nothrow) clrscope::ClassFactory;
  if (factory == nullptr) return E_OUTOFMEMORY;
  const clr::HRESULT hr = factory->QueryInterface(riid, ppv);
  factory->Release();
  return hr;
}

// Never: a signal handler of ours may still be installed, and its code must stay mapped.
CLRSCOPE_EXPORT clr::HRESULT CLR_STDCALL DllCanUnloadNow() { return S_FALSE; }
