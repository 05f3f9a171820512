#pragma once
// IUnknown and IClassFactory, the two COM interfaces the runtime needs before it reaches any
// profiling interface: DllGetClassObject hands out the factory, the factory builds the callback.
// Pure virtual, no destructors: a COM vtable holds exactly the declared methods, in order.
#include "clr/pal_types.h"

namespace clr {

struct IUnknown {
  virtual HRESULT CLR_STDCALL QueryInterface(REFIID riid, void** ppvObject) = 0;
  virtual ULONG CLR_STDCALL AddRef() = 0;
  virtual ULONG CLR_STDCALL Release() = 0;
};

struct IClassFactory : IUnknown {
  virtual HRESULT CLR_STDCALL CreateInstance(IUnknown* pUnkOuter, REFIID riid,
                                             void** ppvObject) = 0;
  virtual HRESULT CLR_STDCALL LockServer(BOOL fLock) = 0;
};

inline constexpr GUID IID_IUnknown = guid_from_string("00000000-0000-0000-C000-000000000046");
inline constexpr GUID IID_IClassFactory = guid_from_string("00000001-0000-0000-C000-000000000046");

}  // namespace clr
