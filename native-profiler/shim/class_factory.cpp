#include "shim/class_factory.h"

#include <new>

#include "shim/profiler_callback.h"

namespace clrscope {

using namespace clr;

HRESULT ClassFactory::QueryInterface(const IID& riid, void** ppv) {
  if (ppv == nullptr) return E_POINTER;
  if (riid == IID_IUnknown || riid == IID_IClassFactory) {
    *ppv = static_cast<IClassFactory*>(this);
    AddRef();
    return S_OK;
  }
  *ppv = nullptr;
  return E_NOINTERFACE;
}

ULONG ClassFactory::AddRef() { return refs_.fetch_add(1) + 1; }

ULONG ClassFactory::Release() {
  const ULONG left = refs_.fetch_sub(1) - 1;
  if (left == 0) delete this;
  return left;
}

HRESULT ClassFactory::CreateInstance(IUnknown* outer, const IID& riid, void** ppv) {
  if (ppv == nullptr) return E_POINTER;
  *ppv = nullptr;
  if (outer != nullptr) return CLASS_E_NOAGGREGATION;
  auto* callback = new (std::nothrow) ProfilerCallback;
  if (callback == nullptr) return E_OUTOFMEMORY;
  const HRESULT hr = callback->QueryInterface(riid, ppv);
  callback->Release();
  return hr;
}

HRESULT ClassFactory::LockServer(BOOL) { return S_OK; }

}  // namespace clrscope
