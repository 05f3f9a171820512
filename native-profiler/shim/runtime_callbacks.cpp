// The runtime notifications that feed the counters block and the GC pause tracker. Each one is
// a few atomic increments: they run on the runtime's own threads, some while it is suspended.
#include <atomic>
#include <vector>

#include "core/box_stack.h"
#include "core/event_capture.h"
#include "core/event_counters.h"
#include "core/gc_event_payloads.h"
#include "core/threadpool_event_payloads.h"
#include "core/wait_event_payloads.h"
#include "core/platform.h"
#include "core/r2r_unwind.h"
#include "core/wire_writer.h"
#include "core/runtime_event_payloads.h"
#include "core/utf16.h"
#include "shim/async_session.h"
#include "shim/counters_session.h"
#include "shim/requests_session.h"
#include "shim/engine.h"
#include "shim/guarded.h"
#include "shim/profiler_callback.h"
#include "shim/provider_name.h"

namespace clrscope {

using namespace clr;

namespace {
// The JIT reports start and finish on the same thread; the gap is the compile time.
thread_local uint64_t t_jit_started = 0;
// The owner of the lock this thread waits for, as its ContentionStart named it (the stream's
// thread id; 0: unknown), for the ContentionStop that ends the wait on the same thread.
thread_local uint32_t t_lock_owner = 0;

// A loaded module's precompiled code is unwound with its own tables (core/r2r_unwind.h) from
// its first call on: published here, on the loading thread, before any of it runs.
void publish_precompiled_unwind(ICorProfilerInfo12* info, ModuleID module) {
  constexpr ULONG kChars = 1024;
  LPCBYTE base = nullptr;
  WCHAR path[kChars];
  ULONG len = 0;
  AssemblyID assembly = 0;
  DWORD flags = 0;
  if (FAILED(info->GetModuleInfo2(module, &base, kChars, &len, path, &assembly, &flags)) || base == nullptr || len == 0 ||
      len >= kChars) {
    return;
  }
  // A flat layout is the file as it is, never run; dynamic and resource modules have no code.
  if ((flags & (COR_PRF_MODULE_FLAT_LAYOUT | COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_RESOURCE)) != 0) return;
  const std::string file = utf16_to_utf8(reinterpret_cast<const char16_t*>(path), len);
  platform::add_r2r_image(reinterpret_cast<uintptr_t>(base), file.c_str());
}

// ContentionStart v2 names the owner by OS thread id for a Monitor (runtime_event_payloads.h);
// it is kept only when it is a thread the registry knows.
void note_lock_owner(Engine* engine, uint32_t event_id, uint32_t version, const uint8_t* data, size_t size) {
  uint64_t owner = 0;
  if (!contention_owner(event_id, version, data, size, sizeof(void*), &owner)) return;
  uint32_t index = 0, wire_id = 0;
  t_lock_owner = owner != 0 && owner <= 0xFFFFFFFFull &&
                         engine->registry.slot_of_tid(static_cast<uint32_t>(owner), &index, &wire_id)
                     ? wire_id
                     : 0;
}
// Whether the event comes from the runtime's own provider: the GC events' ids are small numbers
// other providers use too (an EventSource's first event is id 1). The runtime's handle is looked
// up by name once and kept.
std::atomic<EVENTPIPE_PROVIDER> g_runtime_provider{0};

bool is_runtime_provider(Engine* engine, EVENTPIPE_PROVIDER provider) {
  if (provider == 0) return false;
  const EVENTPIPE_PROVIDER known = g_runtime_provider.load(std::memory_order_relaxed);
  if (known != 0) return provider == known;
  static constexpr char16_t kRuntime[] = u"Microsoft-Windows-DotNETRuntime";
  const bool same = provider_named(engine->info, provider, kRuntime);
  if (same) g_runtime_provider.store(provider, std::memory_order_relaxed);
  return same;
}
}  // namespace

HRESULT ProfilerCallback::RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON reason) {
  return guarded("RuntimeSuspendStarted", [&]() -> HRESULT {
    if (engine_ == nullptr) return S_OK;
    // The thread suspending is, for a workstation GC, the one whose allocation triggered it, and
    // the GC's work runs on it: its chain, read now while nothing moves, serves the samples the
    // GC takes (core/box_stack.h).
    if (engine_->heap_types != nullptr && !box_probes_quiet()) keep_own_chain(*engine_->heap_types, platform::safe_load_word);
    // Before anything moves: heap walks of async stacks in flight from now on are thrown away.
    note_runtime_suspension(engine_->shared, true);
    engine_->suspensions.on_suspend_started(static_cast<uint8_t>(reason), platform::mono_now_ns());
    return S_OK;
  });
}

HRESULT ProfilerCallback::RuntimeSuspendFinished() {
  return guarded("RuntimeSuspendFinished", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->suspensions.on_suspend_finished(platform::mono_now_ns());
    return S_OK;
  });
}

HRESULT ProfilerCallback::RuntimeSuspendAborted() {
  return guarded("RuntimeSuspendAborted", [&]() -> HRESULT {
    if (engine_ == nullptr) return S_OK;
    engine_->suspensions.on_suspend_aborted(platform::mono_now_ns());
    note_runtime_suspension(engine_->shared, false);
    return S_OK;
  });
}

HRESULT ProfilerCallback::RuntimeResumeFinished() {
  return guarded("RuntimeResumeFinished", [&]() -> HRESULT {
    if (engine_ == nullptr) return S_OK;
    engine_->suspensions.on_resume_finished(platform::mono_now_ns());
    note_runtime_suspension(engine_->shared, false);
    // The thread that suspended for a GC no longer collects once the program runs again. A
    // background GC's GarbageCollectionFinished comes later on the BGC thread, so without this
    // the triggering thread would keep its [GC] frame until its next GC.
    engine_->registry.set_collecting(platform::current_tid(), false);
    return S_OK;
  });
}

HRESULT ProfilerCallback::GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON reason) {
  return guarded("GarbageCollectionStarted", [&]() -> HRESULT {
    if (engine_ == nullptr) return S_OK;
    // This thread performs the collection until GarbageCollectionFinished: its samples get a
    // [GC] frame (core/gc_frame.h). With server GC the heaps' own threads may report start and
    // finish on different ones of them; those are collector threads, marked by name anyway.
    engine_->registry.set_collecting(platform::current_tid(), true);
    if (collected == nullptr) return S_OK;
    // The large and pinned object heaps (3, 4) are only collected with gen 2.
    int highest = -1;
    for (int g = 0; g < generations && g < 3; ++g) {
      if (collected[g]) highest = g;
    }
    if (highest < 0 && generations > 3 && collected[3]) highest = 2;
    if (highest >= 0) engine_->suspensions.on_gc_started(highest, reason == COR_PRF_GC_INDUCED);
    return S_OK;
  });
}

HRESULT ProfilerCallback::GarbageCollectionFinished() {
  if (engine_ == nullptr) return S_OK;
  return guarded("GarbageCollectionFinished", [&]() -> HRESULT {
    engine_->registry.set_collecting(platform::current_tid(), false);
    // Thrown exceptions the GC moved are found at their new addresses by their next rethrow.
    if (engine_->exception_ids != nullptr) engine_->exception_ids->after_gc();
    // Which sampled objects this GC left alive, while the runtime is still suspended: a
    // background GC finishes with the program running (its objects move on), so its sweep waits
    // for the next GC.
    if (engine_->live != nullptr && engine_->shared.active.load(std::memory_order_relaxed) &&
        engine_->suspensions.suspended()) {
      engine_->live->sweep(platform::mono_now_ns());
    }
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

HRESULT ProfilerCallback::ExceptionThrown(ObjectID thrown) {
  return guarded("ExceptionThrown", [&]() -> HRESULT {
    // First: a processor fault's exception comes here with the capture signal still blocked by
    // clrscope's fault entry (the runtime's handler does not return from it).
    platform::reopen_capture_signal_after_fault();
    if (engine_ == nullptr) return S_OK;
    engine_->counters.add(engine_->counters.exceptions_thrown);
    if (!engine_->exceptions || !engine_->shared.active.load(std::memory_order_relaxed)) return S_OK;
    // On the throwing thread, before any handler runs: its stack is the throwing stack.
    ClassID type = 0;
    if (FAILED(engine_->info->GetClassFromObject(thrown, &type))) type = 0;
    // Every throw is looked up (a rethrow of an exception sent with a stack is known for one),
    // but only those sent with a stack are tracked: the handle is most of the cost.
    const bool stacked = engine_->exception_budget.take(platform::mono_now_ns());
    ExceptionIdentity::Seen seen;
    if (engine_->exception_ids != nullptr) seen = engine_->exception_ids->on_thrown(static_cast<uint64_t>(thrown), stacked);
    if (stacked) {
      EventInfo e;
      e.kind = wire::kEventException;
      e.type_id = type;
      e.value1 = 1;
      if (seen.id != 0) {
        e.value2 = ExceptionIdentity::wire_value(seen);
        e.has_value2 = true;
      }
      // Read only for exceptions that get a stack: the rest are counted by type, nothing more.
      if (engine_->messages != nullptr) engine_->messages->read(thrown, type, &e.text, &e.text_len);
      if (record_event(engine_->shared, e)) return S_OK;
    }
    engine_->skipped_exceptions.add(type, 1);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ExceptionSearchFilterEnter(FunctionID) {
  return guarded("ExceptionSearchFilterEnter", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->counters.add(engine_->counters.filters_executed);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ExceptionUnwindFinallyEnter(FunctionID) {
  return guarded("ExceptionUnwindFinallyEnter", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->counters.add(engine_->counters.finallys_executed);
    return S_OK;
  });
}

HRESULT ProfilerCallback::JITCompilationStarted(FunctionID, BOOL) {
  return guarded("JITCompilationStarted", [&]() -> HRESULT {
    t_jit_started = platform::mono_now_ns();
    return S_OK;
  });
}

HRESULT ProfilerCallback::JITCompilationFinished(FunctionID function, HRESULT status, BOOL) {
  return guarded("JITCompilationFinished", [&]() -> HRESULT {
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
  });
}

HRESULT ProfilerCallback::ClassLoadFinished(ClassID, HRESULT status) {
  return guarded("ClassLoadFinished", [&]() -> HRESULT {
    if (engine_ != nullptr) engine_->counters.add(SUCCEEDED(status) ? engine_->counters.classes_loaded : engine_->counters.class_load_failures);
    return S_OK;
  });
}

HRESULT ProfilerCallback::AssemblyLoadFinished(AssemblyID, HRESULT status) {
  return guarded("AssemblyLoadFinished", [&]() -> HRESULT {
    if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.assemblies_loaded);
    return S_OK;
  });
}

HRESULT ProfilerCallback::AssemblyUnloadFinished(AssemblyID, HRESULT status) {
  return guarded("AssemblyUnloadFinished", [&]() -> HRESULT {
    if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.assemblies_unloaded);
    return S_OK;
  });
}

HRESULT ProfilerCallback::AppDomainCreationFinished(AppDomainID, HRESULT status) {
  return guarded("AppDomainCreationFinished", [&]() -> HRESULT {
    if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.appdomains_loaded);
    return S_OK;
  });
}

HRESULT ProfilerCallback::AppDomainShutdownFinished(AppDomainID, HRESULT status) {
  return guarded("AppDomainShutdownFinished", [&]() -> HRESULT {
    if (engine_ != nullptr && SUCCEEDED(status)) engine_->counters.add(engine_->counters.appdomains_unloaded);
    return S_OK;
  });
}

HRESULT ProfilerCallback::EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD event_version,
                                                  ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data,
                                                  LPCGUID, LPCGUID, ThreadID, ULONG, UINT_PTR[]) {
  return guarded("EventPipeEventDelivered", [&]() -> HRESULT {
    if (engine_ == nullptr) return S_OK;
    // HTTP requests, on the thread serving them.
    if (engine_->requests != nullptr && is_requests_provider(engine_, provider)) {
      if (engine_->shared.active.load(std::memory_order_relaxed)) {
        deliver_request_event(engine_, data, data_size);
      }
      return S_OK;
    }
    // System.Runtime's counters, once a second on the runtime's counter thread.
    if (is_counters_provider(engine_, provider)) {
      EventCounterReading reading;
      if (read_event_counter(metadata, metadata_size, data, data_size, &reading)) {
        apply_event_counter(reading, &engine_->counters.gauges);
      }
      return S_OK;
    }
    if (engine_->async != nullptr && is_tpl_provider(engine_, provider)) {
      engine_->async->on_event(event_id, data, data_size);
      return S_OK;
    }
    apply_runtime_event(event_id, event_version, data, data_size, &engine_->counters);
    if (!engine_->shared.active.load(std::memory_order_relaxed)) return S_OK;
    // A GC, thread-pool or wait event: its time and thread are now and here, for a profiler's session
    // delivers it synchronously on the thread that raised it.
    if (is_gc_table_event(event_id) && is_runtime_provider(engine_, provider)) {
      engine_->gc_events.on_runtime_event(event_id, event_version, data, data_size, platform::mono_now_ns(),
                                          platform::current_tid_remembered());
    } else if (engine_->requests != nullptr && (is_threadpool_event(event_id) || is_wait_event(event_id)) &&
               is_runtime_provider(engine_, provider)) {
      engine_->runtime_events.on_runtime_event(event_id, event_version, data, data_size, platform::mono_now_ns(),
                                               platform::current_tid_remembered());
      return S_OK;
    }
    if (engine_->locks && event_id == runtime_events::kContentionStart) {
      note_lock_owner(engine_, event_id, event_version, data, data_size);
      return S_OK;
    }
    // A profiler's session delivers on the thread that raised the event: the waiting thread
    // as it gets its lock, the allocating thread at its allocation.
    EventInfo e;
    if (!event_sample_from_runtime_event(event_id, event_version, data, data_size, sizeof(void*), &e)) return S_OK;
    if (e.kind == wire::kEventContention) {
      if (!engine_->locks) return S_OK;
      e.value2 = t_lock_owner;
      e.has_value2 = t_lock_owner != 0;
      t_lock_owner = 0;
      record_event(engine_->shared, e);
      return S_OK;
    }
    if (!engine_->alloc || !engine_->alloc_capture) return S_OK;
    if (engine_->live != nullptr && e.object != 0) e.live_token = engine_->live->track(e.object, e.type_id);
    if (!record_event(engine_->shared, e) && e.live_token != 0) engine_->live->untrack(e.live_token);
    return S_OK;
  }, kCostRuntimeEvents);
}

HRESULT ProfilerCallback::ModuleLoadFinished(ModuleID module, HRESULT status) {
  return guarded("ModuleLoadFinished", [&]() -> HRESULT {
    // Its precompiled code, if any, is unwound with its own tables (core/r2r_unwind.h).
    note_managed_module_change();
    if (engine_ != nullptr && SUCCEEDED(status)) {
      publish_precompiled_unwind(engine_->info, module);
      engine_->counters.add(engine_->counters.modules_loaded);
      if (engine_->measure != nullptr) engine_->measure->on_module_loaded(module);
    }
    return S_OK;
  });
}

}  // namespace clrscope
