#include "shim/engine.h"

#include <string>

#include "core/log.h"
#include "core/platform.h"
#include "core/runtime_event_payloads.h"
#include "core/runtime_stubs.h"
#include "core/threadpool_event_payloads.h"
#include "core/thread_names.h"
#include "core/transport.h"
#include "core/box_stack.h"
#include "shim/async_session.h"
#include "shim/clsid.h"
#include "shim/counters_session.h"
#include "shim/requests_session.h"
#include "shim/wait_session.h"
#include "shim/live_handles.h"

namespace clrscope {

using namespace clr;

namespace {

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

// Contention has no profiler callback and GC heap statistics (promoted bytes, pinned objects,
// handles) none either; the runtime's own events carry them. A profiler's EventPipe session
// delivers them synchronously to EventPipeEventDelivered, on the thread that raised them.
//
// Allocations: .NET 10's AllocationSampled has a keyword of its own at Informational; before it,
// AllocationTick needs the GC keyword at Verbose, which also brings the GC's other verbose
// events (more of them with server GC), so only when allocations are asked for.
EVENTPIPE_SESSION start_runtime_events(ICorProfilerInfo12* info, bool alloc, bool alloc_sampled, bool async,
                                       bool counters, bool requests) {
  static const char16_t kProvider[] = u"Microsoft-Windows-DotNETRuntime";
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG configs[4] = {};
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG& config = configs[0];
  config.providerName = reinterpret_cast<const WCHAR*>(kProvider);
  // With requests, the thread pool's own story too (core/threadpool_event_payloads.h): a server's
  // slow endpoints and a starved pool are one question.
  config.keywords = runtime_events::kGcKeyword | runtime_events::kContentionKeyword |
                    (alloc && alloc_sampled ? runtime_events::kAllocationSamplingKeyword : 0) |
                    (requests ? threadpool_events::kThreadingKeyword : 0);
  config.loggingLevel = alloc && !alloc_sampled ? runtime_events::kVerbose : runtime_events::kInformational;
  config.filterData = nullptr;
  EVENTPIPE_SESSION session = 0;
  ULONG count = 1;
  if (async) configs[count++] = tpl_provider_config();
  // System.Runtime's counters (core/event_counters.h); a runtime that refuses them still gets
  // the rest of the session. Only when the counters are watched (ProfilerConfig::runtime_counters)
  // or requests recorded (the pool's queue and completed items, which no cheap event gives):
  // turning them on starts the runtime's counter thread (".NET Counter Poller") and its
  // EventSource set-up, whose CPU, allocations and lock waits would otherwise show in every
  // recording's own figures.
  counters = counters || requests;
  if (counters) configs[count] = counters_provider_config();
  HRESULT hr = info->EventPipeStartSession(counters ? count + 1 : count, configs, 0, &session);
  if (FAILED(hr) && counters) {
    log_line("no System.Runtime counters in the runtime event session (0x%08x)", static_cast<unsigned>(hr));
    hr = info->EventPipeStartSession(count, configs, 0, &session);
  }
  if (FAILED(hr)) {
    log_line("no runtime event session (0x%08x): contention and GC heap statistics stay zero", static_cast<unsigned>(hr));
    return 0;
  }
  return session;
}

// COR_PRF_ENABLE_REJIT is not among them: the measuring controller adds it only when a method
// is first measured, because from then on the runtime refuses to let the profiler detach
// (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT), and an attached profiler that never measured
// must stay detachable.
//
// Only notifications that cost nothing until they happen — no enter/leave hooks, no object
// allocation callbacks, no moved-reference reports (BASIC_GC gives GC start/finish alone) —
// and every one of them allowed after an attach, so both ways of loading behave the same.
constexpr DWORD kEventsLow = COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_EXCEPTIONS |
                             COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                             COR_PRF_MONITOR_APPDOMAIN_LOADS;
constexpr DWORD kEventsHigh = COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
// Only for the counters block's JIT and loader figures, so only while the counters are watched:
// a JIT-heavy startup (PowerShell) calls them tens of thousands of times, 2-3% of its CPU.
constexpr DWORD kCountingEvents = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CLASS_LOADS;
static_assert(((kEventsLow | kCountingEvents) & ~static_cast<DWORD>(COR_PRF_ALLOWABLE_AFTER_ATTACH)) == 0,
              "attach-safe low flags");
static_assert((kEventsHigh & ~static_cast<DWORD>(COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH)) == 0, "attach-safe high flags");

}  // namespace

Engine* start_engine(IUnknown* unknown, const ProfilerConfig& config, bool attached) {
  if (config.socket_path.empty()) {
    log_line(attached ? "the attach request carried no socket; staying inactive"
                      : "CLRSCOPE_SOCKET is not set; staying inactive");
    return nullptr;
  }
  void* raw = nullptr;
  if (unknown == nullptr || FAILED(unknown->QueryInterface(IID_ICorProfilerInfo12, &raw)) || raw == nullptr) {
    log_line("the runtime offers no ICorProfilerInfo12 (older than .NET 5?); staying inactive");
    return nullptr;
  }
  auto* info = static_cast<ICorProfilerInfo12*>(raw);
  TcpEndpoint tcp{};
  const EndpointKind kind = parse_endpoint(config.socket_path, &tcp);
  uint8_t secret[kSecretBytes] = {};
  if (kind == EndpointKind::kBadTcp) {
    log_line("%s is not a loopback TCP endpoint (tcp:127.x.y.z:PORT); staying inactive", config.socket_path.c_str());
    info->Release();
    return nullptr;
  }
  // The secret itself is never logged: the log may be read by other users.
  if (kind == EndpointKind::kTcp && !parse_secret(config.secret, secret)) {
    log_line(attached ? "a tcp: endpoint needs secret=<64 hex digits> in the attach request; staying inactive"
                      : "a tcp: endpoint needs CLRSCOPE_SECRET (64 hex digits); staying inactive");
    info->Release();
    return nullptr;
  }
  std::unique_ptr<Transport> transport = connect_transport(config.socket_path, secret);
  if (!transport) {
    log_line("nobody listens on %s; staying inactive", config.socket_path.c_str());
    info->Release();
    return nullptr;
  }
  const HRESULT hr = info->SetEventMask2(kEventsLow | (config.runtime_counters ? kCountingEvents : 0), kEventsHigh);
  if (FAILED(hr)) {
    log_line("SetEventMask2 failed: 0x%08x", static_cast<unsigned>(hr));
    info->Release();
    return nullptr;
  }
  const platform::CaptureInstall installed = platform::install_capture();
  if (installed != platform::CaptureInstall::kOk) {
    log_line(installed == platform::CaptureInstall::kSignalTaken
                 ? "every candidate signal already has a handler; sampling is off"
                 : "installing the capture signal handler failed; sampling is off");
    info->Release();
    return nullptr;
  }

  Engine* e = new Engine;
  e->info = info;
  e->attached = attached;
  e->shared.registry = &e->registry;
  e->shared.ring = &e->ring;
  set_sampling_shared(&e->shared);
  e->registry.configure_cpu_timers(config.cpu, config.interval_ns);
  e->resolver = new ClrFrameResolver(info);
  // At a launch the environment says where the map is; after an attach the runtime writes it
  // where its own environment says, once clrscope's diagnostics command turned it on.
  const std::string perf_map = runtime_perf_map_path(attached && config.perf_map);
  e->resolver->read_stub_names(perf_map, config.perf_map);
  if (!perf_map.empty()) log_line("runtime stubs named from %s%s", perf_map.c_str(), config.perf_map ? " (removed once open)" : "");
  const RuntimeVersion version = runtime_version(info);
  SamplerConfig sc;
  sc.interval_ns = config.interval_ns;
  sc.cpu = config.cpu;
  sc.wall = config.wall;
  sc.wall_threads_per_tick = config.wall_threads_per_tick;
  sc.attached = attached;
  sc.runtime_version = version.text();
  sc.profiler_version = kProfilerVersion;
  e->sampler = new Sampler(sc, &e->shared, e->resolver, std::move(transport));
  e->sampler->attach_suspensions(&e->suspensions);
  e->sampler->attach_gc_events(&e->gc_events);
  e->exceptions = config.exceptions;
  e->locks = config.locks;
  e->alloc = config.alloc;
  e->alloc_sampled = version.major >= 10;
  e->alloc_capture = platform::env("CLRSCOPE_ALLOC_CAPTURE") != "0";
  e->exception_budget.set_rate(config.exception_stacks_per_s);
  if (e->exceptions && config.exception_messages) e->messages = new ExceptionMessages(info);
  platform::is_own_code(0);  // finds our code's range now, not on the first event's thread
  if (e->exceptions || e->locks || e->alloc) e->shared.event_ring = &e->event_ring;
  if (e->alloc) {
    e->alloc_ring = new CaptureRing(512);
    if (e->alloc_ring->size() != 0) e->shared.alloc_ring = e->alloc_ring;
  }
  const bool live_heap = e->alloc && e->alloc_capture && platform::env("CLRSCOPE_LIVE_HEAP") != "0";
  if (live_heap || e->exceptions) {
    void* raw13 = nullptr;
    if (SUCCEEDED(info->QueryInterface(IID_ICorProfilerInfo13, &raw13)) && raw13 != nullptr) {
      e->info13 = static_cast<ICorProfilerInfo13*>(raw13);
    } else {
      log_line("the runtime offers no ICorProfilerInfo13 (older than .NET 7): no live heap, rethrows not told apart");
    }
  }
  if (live_heap && e->info13 != nullptr) {
    e->live = new LiveHeap(live_handle_ops(e->info13));
    e->sampler->attach_live_heap(e->live);
  }
  if (e->exceptions && e->info13 != nullptr) e->exception_ids = new ExceptionIdentity(live_handle_ops(e->info13));
  e->sampler->attach_skipped_exceptions(&e->skipped_exceptions);
  e->measure = new MeasureController(info, probe_mode_from(platform::env("CLRSCOPE_PROBE_CALL")));
  // At launch, methods to measure from the first call (README, "clrscope measure").
  if (!attached) e->measure->add_startup_patterns(platform::env("CLRSCOPE_MEASURE"));
  e->sampler->attach_tick_hook(e->measure);
  if (e->counters_block.open(platform::process_id(), version.major, version.build)) {
    e->sampler->attach_counters(&e->counters_block);
  } else {
    log_line("could not create the counters block in shared memory; counters are off");
  }
  if (config.async_heap) {
    const bool log_async = platform::env("CLRSCOPE_ASYNC_LOG") == "1";
    e->heap_types = new HeapTypeSet();
    e->async_heap = new AsyncHeap(info, log_async);
    AsyncHeap* heap = e->async_heap;
    e->heap_chains = new HeapChains(e->heap_types, [heap](uintptr_t mt, HeapType* type, std::string* name) {
      return heap->classify(mt, type, name);
    });
    set_box_registry(&e->registry);
    e->shared.heap_types = e->heap_types;
    e->sampler->attach_heap_chains(e->heap_chains, log_async);
  }
  if (attached) e->sampler->on_quiet([e] { begin_detach(e); });
  e->shared.active.store(true, std::memory_order_release);
  // CLRSCOPE_RUNTIME_EVENTS=0 leaves the runtime's event session out. Under Wine 8 a Windows
  // CoreCLR with an in-process EventPipe session open dies in the finalizer of its dynamic
  // methods (DynamicResolver+DestroyScout.Finalize, "Internal CLR error 0x80131506"), whatever
  // the session's keywords; the Wine tests set it (README, "What is verified where").
  if (platform::env("CLRSCOPE_RUNTIME_EVENTS") == "0") {
    log_line("CLRSCOPE_RUNTIME_EVENTS=0: no runtime event session; contention and GC heap statistics stay zero");
  } else {
    if (config.async) {
      e->async = new AsyncTracker(&e->registry);
      const bool log_async = platform::env("CLRSCOPE_ASYNC_LOG") == "1";
      e->async->set_log_payloads(log_async);
      e->sampler->attach_async(e->async, log_async);
    }
    if (config.requests) {
      e->requests = new RequestTracker();
      e->sampler->attach_requests(e->requests);
      e->sampler->attach_runtime_events(&e->runtime_events);
      e->sampler->attach_pool_gauges(&e->counters.gauges);
    }
    e->event_session = start_runtime_events(info, e->alloc, e->alloc_sampled, e->async != nullptr, config.runtime_counters,
                                            e->requests != nullptr);
    // A blocked pool thread's waits as the runtime reports them (report --blocking), .NET 9 on.
    if (e->requests != nullptr && e->event_session != 0 && version.major >= 9) e->wait_session = start_wait_events(info);
    if (e->requests != nullptr && e->event_session != 0) {
      const uint32_t budget = config.requests_rate == ProfilerConfig::kRequestsBudgetDefault
                                  ? default_request_budget(platform::usable_cpus())
                                  : config.requests_rate;
      e->requests_bridge = new RequestBridge(info, e->requests, budget);
      e->requests_bridge->start();
    }
  }
  // After an attach the modules loaded before it were never announced: their precompiled code's
  // unwind tables are read now rather than at the sampler's first tick.
  if (attached) platform::refresh_r2r_images();
  if (!e->sampler->start()) {
    log_line("could not start the sampler thread");
    e->shared.active.store(false);
    return nullptr;
  }
  log_line("%s pid %u every %llu us (cpu %d, wall %d; exceptions %d, locks %d, allocations %d by %s), runtime %s",
           attached ? "attached to" : "profiling", platform::process_id(),
           static_cast<unsigned long long>(config.interval_ns / 1000), config.cpu, config.wall, config.exceptions,
           config.locks, config.alloc, e->alloc_sampled ? "AllocationSampled" : "AllocationTick",
           sc.runtime_version.c_str());
  return e;
}

void start_async_heap(Engine* e) {
  if (e->async_heap != nullptr) e->async_heap->start();
}

void register_existing_threads(Engine* e) {
  ICorProfilerThreadEnum* threads = nullptr;
  if (FAILED(e->info->EnumThreads(&threads)) || threads == nullptr) return;
  const std::string process_name = platform::os_thread_name(platform::process_id());
  ThreadID batch[64];
  ULONG fetched = 0;
  uint32_t count = 0;
  while (SUCCEEDED(threads->Next(64, batch, &fetched)) && fetched > 0) {
    for (ULONG i = 0; i < fetched; ++i) {
      DWORD tid = 0;
      if (FAILED(e->info->GetThreadInfo(batch[i], &tid)) || tid == 0) continue;
      // The stack bounds of a thread we are not running on are learned from its first capture.
      e->registry.on_assigned_os_thread(batch[i], tid);
      // Names set before the attach were never reported to us; the runtime gave them to the OS
      // too (Thread.Name, and its own threads' names), where they can still be read, cut to 15
      // bytes: the runtime's own get their whole names back, others are marked as cut.
      const std::string name = name_from_os(platform::os_thread_name(tid), tid == platform::process_id(), process_name);
      if (!name.empty()) e->registry.on_name_changed(batch[i], name);
      ++count;
    }
  }
  threads->Release();
  log_line("attached: %u threads were already running", count);
}

namespace {

// What the heap walks of async stacks did (CLRSCOPE_ASYNC=heap), at the stream's end.
void log_async_heap(Engine* e) {
  if (e->async_heap == nullptr) return;
  {
    const SamplingShared& sh = e->shared;
    log_line("async heap: MoveNext compiled with the probe %llu times (%llu compile errors); %llu MoveNext entries counted, %llu "
             "deeper than %u",
             static_cast<unsigned long long>(e->async_heap->compiled()), static_cast<unsigned long long>(e->async_heap->failed()),
             static_cast<unsigned long long>(box_enters()), static_cast<unsigned long long>(box_overflows()), BoxStack::kDepth);
    log_line("async heap: %llu walks (%llu to the root, %llu cut at a type not classified yet, %llu rejected by a read, %llu "
             "cut by depth) in %llu ns, %llu of them in native code; %llu thrown away (the runtime suspended), %llu of those "
             "given the chain kept for the box's run, %llu too deep",
             static_cast<unsigned long long>(sh.heap_walks.load()), static_cast<unsigned long long>(sh.heap_ends[0].load()),
             static_cast<unsigned long long>(sh.heap_ends[1].load()), static_cast<unsigned long long>(sh.heap_ends[2].load()),
             static_cast<unsigned long long>(sh.heap_ends[3].load()), static_cast<unsigned long long>(sh.heap_walk_ns.load()),
             static_cast<unsigned long long>(sh.heap_native.load()), static_cast<unsigned long long>(sh.heap_suspended.load()),
             static_cast<unsigned long long>(sh.heap_kept_used.load()), static_cast<unsigned long long>(sh.heap_too_deep.load()));
    log_line("async heap: %llu CPU samples taken while a box ran, %llu of them given a chain",
             static_cast<unsigned long long>(sh.heap_cpu_boxed.load()), static_cast<unsigned long long>(sh.heap_cpu_chained.load()));
    log_line("async heap: %u types classified (%llu by the runtime, %llu unknown to it, %llu queued and dropped); %u chain nodes "
             "(%llu refused at the bound)",
             e->heap_types->size(), static_cast<unsigned long long>(e->heap_chains->classified()),
             static_cast<unsigned long long>(e->heap_chains->unclassifiable()),
             static_cast<unsigned long long>(e->heap_types->unknown_dropped()), e->heap_chains->nodes(),
             static_cast<unsigned long long>(e->heap_chains->nodes_refused()));
  }
  log_line("async heap: runtime suspensions under way at the end: %u", e->shared.runtime_suspended.load());
}

}  // namespace

void stop_engine_at_shutdown(Engine* e) {
  // First, so the stream's last window is the one the thread left.
  if (e->requests_bridge != nullptr) e->requests_bridge->stop(false);
  // The sampler publishes the counters' final values as it ends; readers that mapped the block
  // keep reading them after the name is gone.
  if (e->sampler->stop(wire::kEndShutdown, 3000)) e->counters_block.close(true);
  if (e->async != nullptr) {
    log_line("async: %llu TPL events delivered, %llu read; %llu names not kept (table full), %llu nesting overflows",
             static_cast<unsigned long long>(e->async->delivered()), static_cast<unsigned long long>(e->async->events()),
             static_cast<unsigned long long>(e->async->names_dropped()),
             static_cast<unsigned long long>(e->async->depth_overflows()));
    log_line("async: %llu tasks kept now, %llu not kept (table of %u full), %llu let go after they ended",
             static_cast<unsigned long long>(e->async->tasks_live()), static_cast<unsigned long long>(e->async->tasks_dropped()),
             TaskTable::kCapacity, static_cast<unsigned long long>(e->async->tasks_removed()));
    log_line("async: %llu operations tracked, %llu not (table of %u full), %u alive at the end; %llu combinators given branches; "
             "%llu suspended-time samples sent",
             static_cast<unsigned long long>(e->async->ops_tracked()), static_cast<unsigned long long>(e->async->ops_dropped()),
             AsyncTracker::kOpSlots, e->async->live_ops(), static_cast<unsigned long long>(e->async->fan_ins()),
             static_cast<unsigned long long>(e->sampler->suspended_samples()));
  }
  log_async_heap(e);
  if (e->exception_ids != nullptr) {
    const ExceptionIdentityCounts c = e->exception_ids->counts();
    log_line("exceptions: %llu distinct, %llu rethrows; %llu given up while alive (table of %u), %llu without a handle",
             static_cast<unsigned long long>(c.exceptions), static_cast<unsigned long long>(c.rethrows),
             static_cast<unsigned long long>(c.evicted), ExceptionIdentity::kCapacity,
             static_cast<unsigned long long>(c.refused));
  }
  log_line("stream ended at shutdown");
}

void begin_detach(Engine* e) {
  if (e->detaching.exchange(true)) return;
  // Nothing of ours may run after the unload: no timer, no queued signal, no handler, no event
  // session delivering to us, no shared memory left behind.
  e->registry.disarm_all();
  const platform::CaptureRemoval removal = platform::uninstall_capture();
  if (removal == platform::CaptureRemoval::kHandlerBusy) {
    // A thread stopped inside our signal handler (a debugger, SIGSTOP) would resume into
    // unloaded code: stay loaded, silent, until it has left.
    log_line("a thread is stopped inside clrscope's signal handler; the detach waits until it leaves");
    while (!platform::capture_handlers_idle()) platform::sleep_until_mono_ns(platform::mono_now_ns() + 100000000ull);
  }
  if (e->requests_bridge != nullptr) e->requests_bridge->stop(true);
  if (e->event_session != 0) e->info->EventPipeStopSession(e->event_session);
  e->event_session = 0;
  if (e->wait_session != 0) e->info->EventPipeStopSession(e->wait_session);
  e->wait_session = 0;
  // No allocation event arrives any more: the program's handle table gets its slots back.
  if (e->live != nullptr) e->live->release_all();
  if (e->exception_ids != nullptr) e->exception_ids->release_all();
  e->counters_block.close(true);
  log_async_heap(e);
  // The wrapped MoveNexts stay (ReJIT cannot be undone) and keep calling the probes: from now on
  // they return at once.
  if (e->async_heap != nullptr) quiet_box_probes();
  if (e->measure->rejit_enabled() || e->async_heap != nullptr) {
    // The runtime would refuse (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT); the measured
    // methods are being reverted on the measuring thread, which stays for that.
    log_line("the workstation went away; %s, so the runtime keeps clrscope loaded: staying quiet",
             e->async_heap != nullptr ? "async stacks from the heap rewrote MoveNext (its probes are quiet now)" : "methods were measured");
    return;
  }
  if (removal == platform::CaptureRemoval::kTakenOver) {
    e->measure->stop();
    log_line("the workstation went away; another library took clrscope's signal over and may pass signals on to "
             "clrscope's handler, so clrscope stays loaded: staying quiet");
    return;
  }
  if (removal == platform::CaptureRemoval::kFaultHandlerTakenOver) {
    e->measure->stop();
    log_line("the workstation went away; another library installed a fault handler over clrscope's and may pass "
             "faults on to it, so clrscope stays loaded: staying quiet");
    return;
  }
  e->measure->stop();
  const HRESULT hr = e->info->RequestProfilerDetach(500);
  log_line("the workstation went away: %s", SUCCEEDED(hr) ? "detaching" : "detach refused, staying quiet");
}

void finish_detach(Engine* e) {
  // The sampler thread asked for the detach as its last act; make sure it has left our code,
  // then give back everything the attach took, so that attaching again and again costs the
  // program nothing.
  e->sampler->join();
  delete e->sampler;
  e->sampler = nullptr;
  delete e->measure;
  e->measure = nullptr;
  delete e->requests_bridge;
  e->requests_bridge = nullptr;
  delete e->resolver;
  e->resolver = nullptr;
  delete e->live;
  e->live = nullptr;
  delete e->messages;
  e->messages = nullptr;
  delete e->exception_ids;
  e->exception_ids = nullptr;
  e->shared.alloc_ring = nullptr;
  delete e->alloc_ring;
  e->alloc_ring = nullptr;
  if (e->info13 != nullptr) e->info13->Release();
  e->info13 = nullptr;
  set_sampling_shared(nullptr);
  platform::release_r2r_images();
  platform::release_modules();
  ICorProfilerInfo12* info = e->info;
  delete e;
  info->Release();
  platform::release_free_memory();
  log_line("detached; the program carries on without clrscope");
  log_close();
}

}  // namespace clrscope
