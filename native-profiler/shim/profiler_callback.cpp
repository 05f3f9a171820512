#include "shim/profiler_callback.h"

#include <new>
#include <vector>

#include "core/log.h"
#include "core/platform.h"
#include "core/profiler_config.h"
#include "core/runtime_counters.h"
#include "core/runtime_event_payloads.h"
#include "core/sampler.h"
#include "core/suspension_tracker.h"
#include "core/utf16.h"
#include "shim/clr_frame_resolver.h"
#include "shim/clsid.h"

namespace clrscope {

using namespace clr;

struct Engine {
  ICorProfilerInfo12* info = nullptr;
  RuntimeCounters counters;
  SuspensionTracker suspensions{&counters};
  SamplingShared shared;
  ThreadRegistry registry;
  CountersBlock counters_block{&counters, &registry};
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

struct RuntimeVersion {
  USHORT major = 0, minor = 0, build = 0, qfe = 0;
  std::string text() const {
    return major == 0 ? std::string()
                      : std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
  }
};

RuntimeVersion runtime_version(ICorProfilerInfo12* info) {
  RuntimeVersion v;
  if (FAILED(info->GetRuntimeInformation(nullptr, nullptr, &v.major, &v.minor, &v.build, &v.qfe, 0, nullptr, nullptr))) {
    return RuntimeVersion{};
  }
  return v;
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

// Contention has no profiler callback and GC heap statistics (promoted bytes, pinned objects,
// handles) none either; the runtime's own events carry them. A profiler's EventPipe session
// delivers them synchronously to EventPipeEventDelivered, on the thread that raised them.
void start_runtime_events(ICorProfilerInfo12* info) {
  static const char16_t kProvider[] = u"Microsoft-Windows-DotNETRuntime";
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{};
  config.providerName = reinterpret_cast<const WCHAR*>(kProvider);
  config.keywords = runtime_events::kGcKeyword | runtime_events::kContentionKeyword;
  config.loggingLevel = runtime_events::kInformational;
  config.filterData = nullptr;
  EVENTPIPE_SESSION session = 0;
  const HRESULT hr = info->EventPipeStartSession(1, &config, 0, &session);
  if (FAILED(hr)) log_line("no runtime event session (0x%08x): contention and GC heap statistics stay zero", static_cast<unsigned>(hr));
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
    // Only notifications that cost nothing until they happen: no enter/leave hooks, no object
    // allocation callbacks, no moved-reference reports (BASIC_GC gives GC start/finish alone).
    const DWORD low = COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_EXCEPTIONS |
                      COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_MODULE_LOADS |
                      COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_APPDOMAIN_LOADS;
    const DWORD high = COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
    const HRESULT hr = info->SetEventMask2(low, high);
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
    const RuntimeVersion version = runtime_version(info);
    sc.runtime_version = version.text();
    sc.profiler_version = kProfilerVersion;
    e->sampler = new Sampler(sc, &e->shared, e->resolver, std::move(transport));
    e->sampler->attach_suspensions(&e->suspensions);
    if (e->counters_block.open(platform::process_id(), version.major, version.build)) {
      e->sampler->attach_counters(&e->counters_block);
    } else {
      log_line("could not create the counters block in shared memory; counters are off");
    }
    e->shared.active.store(true, std::memory_order_release);
    if (!e->sampler->start()) {
      log_line("could not start the sampler thread");
      e->shared.active.store(false);
      return E_FAIL;
    }
    engine_ = e;
    start_runtime_events(info);
    log_line("profiling pid %u every %llu us (cpu %d, wall %d), runtime %s", platform::process_id(),
             static_cast<unsigned long long>(config.interval_ns / 1000), config.cpu, config.wall,
             sc.runtime_version.c_str());
    return S_OK;
  });
}

HRESULT ProfilerCallback::Shutdown() {
  return guarded("Shutdown", [&]() -> HRESULT {
    if (engine_ != nullptr && engine_->sampler != nullptr) {
      // The sampler publishes the counters' final values as it ends; readers that mapped the
      // block keep reading them after the name is gone.
      if (engine_->sampler->stop(wire::kEndShutdown, 3000)) engine_->counters_block.close(true);
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

namespace clrscope {

using namespace clr;

namespace {
// The JIT reports start and finish on the same thread; the gap is the compile time.
thread_local uint64_t t_jit_started = 0;
}  // namespace

HRESULT ProfilerCallback::RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON reason) {
  if (engine_ != nullptr) engine_->suspensions.on_suspend_started(static_cast<uint8_t>(reason), platform::mono_now_ns());
  return S_OK;
}

HRESULT ProfilerCallback::RuntimeSuspendFinished() {
  if (engine_ != nullptr) engine_->suspensions.on_suspend_finished(platform::mono_now_ns());
  return S_OK;
}

HRESULT ProfilerCallback::RuntimeSuspendAborted() {
  if (engine_ != nullptr) engine_->suspensions.on_suspend_aborted(platform::mono_now_ns());
  return S_OK;
}

HRESULT ProfilerCallback::RuntimeResumeFinished() {
  if (engine_ != nullptr) engine_->suspensions.on_resume_finished(platform::mono_now_ns());
  return S_OK;
}

HRESULT ProfilerCallback::GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON reason) {
  if (engine_ == nullptr || collected == nullptr) return S_OK;
  // The large and pinned object heaps (3, 4) are only collected with gen 2.
  int highest = -1;
  for (int g = 0; g < generations && g < 3; ++g) {
    if (collected[g]) highest = g;
  }
  if (highest < 0 && generations > 3 && collected[3]) highest = 2;
  if (highest >= 0) engine_->suspensions.on_gc_started(highest, reason == COR_PRF_GC_INDUCED);
  return S_OK;
}

HRESULT ProfilerCallback::GarbageCollectionFinished() {
  if (engine_ == nullptr) return S_OK;
  return guarded("GarbageCollectionFinished", [&]() -> HRESULT {
    // Generation sizes as the GC leaves them. With regions there is one range per region, so
    // ask for the count first; the array lives only for this call.
    ULONG count = 0;
    if (FAILED(engine_->info->GetGenerationBounds(0, &count, nullptr)) || count == 0) return S_OK;
    std::vector<COR_PRF_GC_GENERATION_RANGE> ranges(count);
    if (FAILED(engine_->info->GetGenerationBounds(count, &count, ranges.data()))) return S_OK;
    uint64_t size[5] = {0, 0, 0, 0, 0};
    uint64_t reserved[5] = {0, 0, 0, 0, 0};
    for (ULONG i = 0; i < count && i < ranges.size(); ++i) {
      const uint32_t g = static_cast<uint32_t>(ranges[i].generation);
      if (g >= 5) continue;
      size[g] += ranges[i].rangeLength;
      reserved[g] += ranges[i].rangeLengthReserved;
    }
    for (int g = 0; g < 5; ++g) {
      engine_->counters.generation_size[g].store(size[g], std::memory_order_relaxed);
      engine_->counters.generation_reserved[g].store(reserved[g], std::memory_order_relaxed);
    }
    return S_OK;
  });
}

HRESULT ProfilerCallback::ExceptionThrown(ObjectID) {
  if (engine_ != nullptr) engine_->counters.add(engine_->counters.exceptions_thrown);
  return S_OK;
}

HRESULT ProfilerCallback::ExceptionSearchFilterEnter(FunctionID) {
  if (engine_ != nullptr) engine_->counters.add(engine_->counters.filters_executed);
  return S_OK;
}

HRESULT ProfilerCallback::ExceptionUnwindFinallyEnter(FunctionID) {
  if (engine_ != nullptr) engine_->counters.add(engine_->counters.finallys_executed);
  return S_OK;
}

HRESULT ProfilerCallback::JITCompilationStarted(FunctionID, BOOL) {
  t_jit_started = platform::mono_now_ns();
  return S_OK;
}

HRESULT ProfilerCallback::JITCompilationFinished(FunctionID function, HRESULT status, BOOL) {
  if (engine_ == nullptr) return S_OK;
  RuntimeCounters& c = engine_->counters;
  if (t_jit_started != 0) c.add(c.jit_ns, platform::mono_now_ns() - t_jit_started);
  t_jit_started = 0;
  if (FAILED(status)) {
    c.add(c.jit_failures);
    return S_OK;
  }
  c.add(c.methods_jitted);
  ClassID cls = 0;
  ModuleID module = 0;
  mdToken token = 0;
  LPCBYTE header = nullptr;
  ULONG size = 0;
  if (SUCCEEDED(engine_->info->GetFunctionInfo(function, &cls, &module, &token)) &&
      SUCCEEDED(engine_->info->GetILFunctionBody(module, token, &header, &size))) {
    c.add(c.il_bytes_jitted, size);
  }
  return S_OK;
}

HRESULT ProfilerCallback::ClassLoadFinished(ClassID, HRESULT status) {
  if (engine_ != nullptr) engine_->counters.add(SUCCEEDED(status) ? engine_->counters.classes_loaded : engine_->counters.class_load_failures);
  return S_OK;
}

HRESULT ProfilerCallback::AssemblyLoadFinished(AssemblyID, HRESULT status) {
  if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.assemblies_loaded);
  return S_OK;
}

HRESULT ProfilerCallback::AssemblyUnloadFinished(AssemblyID, HRESULT status) {
  if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.assemblies_unloaded);
  return S_OK;
}

HRESULT ProfilerCallback::AppDomainCreationFinished(AppDomainID, HRESULT status) {
  if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.appdomains_loaded);
  return S_OK;
}

HRESULT ProfilerCallback::AppDomainShutdownFinished(AppDomainID, HRESULT status) {
  if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.appdomains_unloaded);
  return S_OK;
}

HRESULT ProfilerCallback::EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD event_id, DWORD event_version, ULONG,
                                                  LPCBYTE, ULONG data_size, LPCBYTE data, LPCGUID, LPCGUID, ThreadID,
                                                  ULONG, UINT_PTR[]) {
  if (engine_ != nullptr) apply_runtime_event(event_id, event_version, data, data_size, &engine_->counters);
  return S_OK;
}

HRESULT ProfilerCallback::ModuleLoadFinished(ModuleID, HRESULT status) {
  if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.modules_loaded);
  return S_OK;
}

}  // namespace clrscope
