#pragma once
// System.Runtime's EventCounters in the profiler's EventPipe session (core/event_counters.h says
// why they are the source of the figures the profiling API lacks).
#include "clr/corprof.h"

namespace clrscope {

struct Engine;

// System.Runtime's entry for EventPipeStartSession: its counters every second.
clr::COR_PRF_EVENTPIPE_PROVIDER_CONFIG counters_provider_config();

// Whether an event delivered to the session comes from System.Runtime. Learned by name once per
// provider handle, then compared: the session's providers' event ids overlap.
bool is_counters_provider(Engine* engine, clr::EVENTPIPE_PROVIDER provider);

}  // namespace clrscope
