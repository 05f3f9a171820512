#include "shim/profiler_callback.h"

#include <new>

#include "core/log.h"
#include "core/platform.h"
#include "core/profiler_config.h"
#include "core/sampler.h"
#include "core/utf16.h"
#include "shim/clr_frame_resolver.h"
#include "shim/clsid.h"

namespace clrscope {

using namespace clr;

struct Engine {
  ICorProfilerInfo12* info = nullptr;
  SamplingShared shared;
  ThreadRegistry registry;
  CaptureRing ring{512};
  ClrFrameResolver* resolver = nullptr;
  Sampler* sampler = nullptr;
};

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

std::string runtime_version(ICorProfilerInfo12* info) {
  USHORT major = 0, minor = 0, build = 0, qfe = 0;
  if (FAILED(info->GetRuntimeInformation(nullptr, nullptr, &major, &minor, &build, &qfe, 0, nullptr, nullptr))) {
    return std::string();
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
}

// Wraps a callback body: nothing may propagate across the COM boundary.
template <typename Fn>
HRESULT guarded(const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    log_line("%s: out of memory", what);
    return E_OUTOFMEMORY;
  } catch (...) {
    log_line("%s: unexpected exception", what);
    return E_FAIL;
  }
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
    const ProfilerConfig config = read_profiler_config();
    if (config.socket_path.empty()) {
      log_line("CLRSCOPE_SOCKET is not set; staying inactive");
      return E_FAIL;
    }
    void* raw = nullptr;
    if (unknown == nullptr || FAILED(unknown->QueryInterface(IID_ICorProfilerInfo12, &raw)) || raw == nullptr) {
      log_line("the runtime offers no ICorProfilerInfo12 (older than .NET 5?); staying inactive");
      return E_FAIL;
    }
    auto* info = static_cast<ICorProfilerInfo12*>(raw);
    std::unique_ptr<Transport> transport = connect_transport(config.socket_path);
    if (!transport) {
      log_line("nobody listens on %s; staying inactive", config.socket_path.c_str());
      info->Release();
      return E_FAIL;
    }
    const DWORD low = COR_PRF_MONITOR_THREADS;
    const HRESULT hr = info->SetEventMask2(low, 0);
    if (FAILED(hr)) {
      log_line("SetEventMask2 failed: 0x%08x", static_cast<unsigned>(hr));
      info->Release();
      return hr;
    }
    const platform::CaptureInstall installed = platform::install_capture();
    if (installed != platform::CaptureInstall::kOk) {
      log_line(installed == platform::CaptureInstall::kSignalTaken
                   ? "every candidate signal already has a handler; sampling is off"
                   : "installing the capture signal handler failed; sampling is off");
      info->Release();
      return E_FAIL;
    }

    Engine* e = new Engine;
    e->info = info;
    e->shared.registry = &e->registry;
    e->shared.ring = &e->ring;
    set_sampling_shared(&e->shared);
    e->registry.configure_cpu_timers(config.cpu, config.interval_ns);
    e->resolver = new ClrFrameResolver(info);
    SamplerConfig sc;
    sc.interval_ns = config.interval_ns;
    sc.cpu = config.cpu;
    sc.wall = config.wall;
    sc.wall_threads_per_tick = config.wall_threads_per_tick;
    sc.runtime_version = runtime_version(info);
    sc.profiler_version = kProfilerVersion;
    e->sampler = new Sampler(sc, &e->shared, e->resolver, std::move(transport));
    e->shared.active.store(true, std::memory_order_release);
    if (!e->sampler->start()) {
      log_line("could not start the sampler thread");
      e->shared.active.store(false);
      return E_FAIL;
    }
    engine_ = e;
    log_line("profiling pid %u every %llu us (cpu %d, wall %d), runtime %s", platform::process_id(),
             static_cast<unsigned long long>(config.interval_ns / 1000), config.cpu, config.wall,
             sc.runtime_version.c_str());
    return S_OK;
  });
}

HRESULT ProfilerCallback::Shutdown() {
  return guarded("Shutdown", [&]() -> HRESULT {
    if (engine_ != nullptr && engine_->sampler != nullptr) {
      engine_->sampler->stop(wire::kEndShutdown, 3000);
      log_line("stream ended at shutdown");
    }
    return S_OK;
  });
}

HRESULT ProfilerCallback::ThreadCreated(ThreadID thread) {
  return guarded("ThreadCreated", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->registry.on_created(thread);
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
    if (engine_ != nullptr) engine_->registry.on_assigned_os_thread(thread, os_thread);
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
