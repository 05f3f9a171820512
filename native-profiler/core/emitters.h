#pragma once
// The emitters of core/emitter.h, each made by its own file; Sampler::register_emitters lists
// them in the order their records go out each tick.
#include <memory>

#include "core/emitter.h"

namespace clrscope {

class AsyncChains;
class CountersBlock;
class GcEventTracker;
class RuntimeEventTracker;
class RequestTracker;
struct RuntimeGauges;
class LiveHeap;
class SuspensionTracker;
class ThreadBook;
class TypeCounts;
struct SampleStream;
struct SamplingShared;

// CPU and wall samples of the program's threads (thread_sample_emitter.cpp); `chains` (may be
// null) names each sample's async task.
std::unique_ptr<Emitter> make_thread_sample_emitter(SampleStream* stream, ThreadBook* book, AsyncChains* chains,
                                                    RequestTracker* requests);
// Exceptions, lock waits and allocations with their stacks, and the exceptions counted past
// their stack budget (`skipped`, may be null) (stacked_event_emitter.cpp).
std::unique_ptr<Emitter> make_stacked_event_emitter(SampleStream* stream, SamplingShared* shared, TypeCounts* skipped);
// The runtime's suspensions and GC pauses (suspension_emitter.cpp).
std::unique_ptr<Emitter> make_suspension_emitter(SampleStream* stream, SuspensionTracker* suspensions);
// The runtime's own GC events (gc_event_emitter.cpp).
std::unique_ptr<Emitter> make_gc_event_emitter(SampleStream* stream, GcEventTracker* events);
// The runtime's other events: the thread pool's, threads' waits (runtime_event_emitter.cpp).
std::unique_ptr<Emitter> make_runtime_event_emitter(SampleStream* stream, RuntimeEventTracker* events);
// HTTP requests served (request_emitter.cpp).
std::unique_ptr<Emitter> make_request_emitter(SampleStream* stream, RequestTracker* requests);
// The thread pool's counters once a second (pool_gauge_emitter.cpp).
std::unique_ptr<Emitter> make_pool_gauge_emitter(SampleStream* stream, const RuntimeGauges* gauges);
// The sampled objects still alive after each GC (live_set_emitter.cpp).
std::unique_ptr<Emitter> make_live_set_emitter(SampleStream* stream, LiveHeap* live);
// The counters block in shared memory, refreshed each tick (counters_emitter.cpp).
std::unique_ptr<Emitter> make_counters_emitter(CountersBlock* block);
// STATS once a second and at the end (stats_emitter.cpp).
std::unique_ptr<Emitter> make_stats_emitter(SampleStream* stream, SamplingShared* shared);

}  // namespace clrscope
