#include "shim/requests_session.h"

#include "core/async_tracker.h"
#include "core/box_stack.h"
#include "core/platform.h"
#include "core/request_payloads.h"
#include "core/request_tracker.h"
#include "shim/engine.h"
#include "shim/provider_name.h"

namespace clrscope {

using namespace clr;

COR_PRF_EVENTPIPE_PROVIDER_CONFIG requests_provider_config() {
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG c{};
  c.providerName = reinterpret_cast<const WCHAR*>(request_events::kProvider);
  c.keywords = request_events::kKeywords;
  c.loggingLevel = request_events::kInformational;
  c.filterData = reinterpret_cast<const WCHAR*>(request_events::kFilter);
  return c;
}

bool is_requests_provider(Engine* e, EVENTPIPE_PROVIDER provider) {
  if (provider == 0 || e->requests == nullptr) return false;
  if (provider == e->requests_provider.load(std::memory_order_relaxed)) return true;
  if (e->requests_provider.load(std::memory_order_relaxed) != 0) return false;  // known, and another one
  for (const auto& other : e->not_requests) {
    if (provider == other.load(std::memory_order_relaxed)) return false;
  }
  if (provider_named(e->info, provider, request_events::kProvider)) {
    e->requests_provider.store(provider, std::memory_order_relaxed);
    return true;
  }
  // The session's other providers (the runtime's, TplEventSource, System.Runtime), remembered so
  // their events cost no name lookup before the first request.
  for (auto& other : e->not_requests) {
    uintptr_t empty = 0;
    if (other.compare_exchange_strong(empty, provider, std::memory_order_relaxed)) break;
  }
  return false;
}

namespace {
// With TPL events the chain is of task ids, which never change. From the heap, objects move only
// while the runtime is suspended, and this thread may be in preemptive mode
// with a GC running (a QCall wrote the event): a walk no suspension overlapped is kept, as the
// signal handler keeps its own (core/sampling_shared.cpp).
uintptr_t chain_root_now(Engine* e) {
  if (e->async != nullptr) return task_chain_root(*e->async, e->async->running_box());
  if (e->heap_types == nullptr || box_probes_quiet()) return 0;
  const uint64_t epoch = e->shared.suspension_epoch.load(std::memory_order_acquire);
  if (e->shared.runtime_suspended.load(std::memory_order_acquire) != 0) return 0;
  const uintptr_t root = own_chain_root(*e->heap_types, platform::safe_load_word);
  std::atomic_thread_fence(std::memory_order_acquire);
  return e->shared.suspension_epoch.load(std::memory_order_relaxed) == epoch ? root : 0;
}
}  // namespace

void deliver_request_event(Engine* e, const uint8_t* data, size_t size) {
  RequestEvent event;
  if (!parse_request_event(data, size, &event)) return;
  // A stop's root matters only to a request begun without one (core/request_tracker.h).
  const uintptr_t root = event.start || e->requests->unrooted_open() ? chain_root_now(e) : 0;
  e->requests->on_request_event(event, platform::mono_now_ns(), platform::current_tid_remembered(), root);
}

}  // namespace clrscope
