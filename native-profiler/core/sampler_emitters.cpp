// The one place emitters are registered, in the order their records go out each tick (a tick's
// captures go out first, each to the emitter of its kind, as the drain takes them). A new kind
// of record is a file of its own (core/emitters.h) and one line here.
#include "core/emitters.h"
#include "core/sampler_rooms.h"

namespace clrscope {

void Sampler::register_emitters() {
  Rooms& r = *rooms_;
  if (r.registered) return;
  r.registered = true;
  std::unique_ptr<AsyncChains> chains;
  if (parts_.async != nullptr || parts_.heap != nullptr) {
    chains = std::make_unique<AsyncChains>(&r.stream, shared_, parts_.async, parts_.async == nullptr ? parts_.heap : nullptr,
                                           parts_.async_log);
  }
  r.drain.set_heap_chains(parts_.async == nullptr ? parts_.heap : nullptr);
  r.drain.set_requests(parts_.requests);
  r.drain.set_task_roots(parts_.async);
  r.async = chains.get();
  r.emitters.push_back(make_thread_sample_emitter(&r.stream, &r.book, r.async, parts_.requests));
  r.emitters.push_back(make_stacked_event_emitter(&r.stream, shared_, parts_.skipped_exceptions));
  if (parts_.suspensions != nullptr) r.emitters.push_back(make_suspension_emitter(&r.stream, parts_.suspensions));
  if (parts_.gc_events != nullptr) r.emitters.push_back(make_gc_event_emitter(&r.stream, parts_.gc_events));
  if (parts_.runtime_events != nullptr) {
    r.emitters.push_back(make_runtime_event_emitter(&r.stream, parts_.runtime_events));
  }
  if (parts_.requests != nullptr) r.emitters.push_back(make_request_emitter(&r.stream, parts_.requests));
  if (parts_.pool_gauges != nullptr) r.emitters.push_back(make_pool_gauge_emitter(&r.stream, parts_.pool_gauges));
  if (chains) r.emitters.push_back(std::move(chains));
  if (parts_.live != nullptr) r.emitters.push_back(make_live_set_emitter(&r.stream, parts_.live));
  if (parts_.counters != nullptr) r.emitters.push_back(make_counters_emitter(parts_.counters));
  r.emitters.push_back(make_stats_emitter(&r.stream, shared_));
}

}  // namespace clrscope
