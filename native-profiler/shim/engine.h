#pragma once
// Everything the profiler runs once it is loaded: the thread registry, the capture ring, the
// sampler, the counters block, the GC pause tracker. Built by Initialize or
// InitializeForAttach, never freed while the library stays loaded (a signal may arrive at any
// time, even during exit); an attached profiler takes it apart to detach.
#include <atomic>

#include "clr/corprof.h"
#include "core/async_tracker.h"
#include "core/heap_chains.h"
#include "core/capture_ring.h"
#include "core/counters_block.h"
#include "core/event_capture.h"
#include "core/gc_event_tracker.h"
#include "core/exception_identity.h"
#include "core/live_heap.h"
#include "core/profiler_config.h"
#include "core/request_tracker.h"
#include "core/runtime_event_tracker.h"
#include "core/runtime_counters.h"
#include "core/sampler.h"
#include "core/sampling_shared.h"
#include "core/suspension_tracker.h"
#include "core/thread_registry.h"
#include "shim/clr_frame_resolver.h"
#include "shim/exception_messages.h"
#include "shim/async_heap.h"
#include "shim/measure_controller.h"
#include "shim/requests_bridge.h"

namespace clrscope {

struct Engine {
  clr::ICorProfilerInfo12* info = nullptr;
  bool attached = false;
  RuntimeCounters counters;
  SuspensionTracker suspensions{&counters};
  // The runtime's own GC events, for the GC table (core/gc_event_tracker.h).
  GcEventTracker gc_events;
  // The runtime's other events (the pool's, threads' waits), with config.requests
  // (core/runtime_event_tracker.h).
  RuntimeEventTracker runtime_events;
  // HTTP requests (core/request_tracker.h), with config.requests; null otherwise.
  RequestTracker* requests = nullptr;
  // The bridge's own session and the thread that turns it off and on past the rate budget.
  RequestBridge* requests_bridge = nullptr;
  std::atomic<uintptr_t> requests_provider{0};
  std::atomic<uintptr_t> not_requests[3]{};
  SamplingShared shared;
  ThreadRegistry registry;
  CountersBlock counters_block{&counters, &registry};
  CaptureRing ring{512};
  // Event samples (README, "Allocations, locks and exceptions"): what is on, and where the
  // callbacks put what they capture.
  bool exceptions = false;
  bool locks = false;
  bool alloc = false;
  bool alloc_sampled = false;  // .NET 10's AllocationSampled (else AllocationTick)
  // CLRSCOPE_ALLOC_CAPTURE=0: the runtime is asked for allocation events but they are dropped
  // as they arrive, so a benchmark can tell the runtime's share of the cost from clrscope's.
  bool alloc_capture = true;
  CaptureRing event_ring{512, true};
  // With allocations on: their own ring (SamplingShared::alloc_ring says why).
  CaptureRing* alloc_ring = nullptr;
  // The live heap (README, "Live heap"): weak handles to sampled allocations, with alloc on and
  // ICorProfilerInfo13 there (.NET 7+); CLRSCOPE_LIVE_HEAP=0 leaves it off.
  LiveHeap* live = nullptr;
  clr::ICorProfilerInfo13* info13 = nullptr;
  RateBudget exception_budget;
  TypeCounts skipped_exceptions;
  // Which exceptions are rethrows of which (null: exceptions off, or no ICorProfilerInfo13).
  ExceptionIdentity* exception_ids = nullptr;
  // Exceptions' messages (null: CLRSCOPE_EXCEPTION_MESSAGES=0, or exceptions off).
  ExceptionMessages* messages = nullptr;
  ClrFrameResolver* resolver = nullptr;
  Sampler* sampler = nullptr;
  MeasureController* measure = nullptr;
  clr::EVENTPIPE_SESSION event_session = 0;
  // WaitHandleWait's own session (shim/wait_session.h): with config.requests on .NET 9+.
  clr::EVENTPIPE_SESSION wait_session = 0;
  // Async call stacks (experimental, CLRSCOPE_ASYNC=1): the TPL events' reader, and which of the
  // session's providers is TplEventSource (its event ids overlap the runtime's).
  AsyncTracker* async = nullptr;
  // Async call stacks read from the heap instead (CLRSCOPE_ASYNC=heap, shim/async_heap.h): the
  // MoveNext probe's ReJIT and the types' classifier, the types handlers may walk, the chains.
  AsyncHeap* async_heap = nullptr;
  HeapTypeSet* heap_types = nullptr;
  HeapChains* heap_chains = nullptr;
  std::atomic<uintptr_t> tpl_provider{0};
  std::atomic<uintptr_t> runtime_provider{0};
  // System.Runtime's counters in the same session (shim/counters_session.h), and the handles of
  // the session's other providers once learned.
  std::atomic<uintptr_t> counters_provider{0};
  std::atomic<uintptr_t> other_providers[3]{};
  std::atomic<bool> detaching{false};
};

// Sets the event mask, connects the stream and starts sampling; nullptr (with a log line)
// when the profiler must stay inactive, in which case the caller returns a failure HRESULT.
Engine* start_engine(clr::IUnknown* info_unknown, const ProfilerConfig& config, bool attached);

// Async stacks read from the heap: asks for the MoveNext probe's ReJIT, once the callbacks that
// hand the runtime its IL can reach the engine (after Initialize, or once an attach completed).
void start_async_heap(Engine* engine);

// After an attach: the threads that existed before it, which the runtime never announces.
void register_existing_threads(Engine* engine);

// Ends the stream at runtime shutdown and removes the counters block.
void stop_engine_at_shutdown(Engine* engine);

// The last act of an attached profiler whose reader went away (runs on the sampler thread):
// stops everything that could run our code later, then asks the runtime to detach.
void begin_detach(Engine* engine);

// ProfilerDetachSucceeded: the runtime is about to unload us; the sampler thread must be gone.
void finish_detach(Engine* engine);

}  // namespace clrscope
