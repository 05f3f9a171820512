#pragma once
// The TPL event source in the profiler's EventPipe session (async call stacks, experimental).
#include "clr/corprof.h"

namespace clrscope {

struct Engine;

// TplEventSource's entry for EventPipeStartSession (core/async_tracker.h has the keywords).
clr::COR_PRF_EVENTPIPE_PROVIDER_CONFIG tpl_provider_config();

// Whether an event delivered to the session comes from TplEventSource. Its event ids overlap the
// runtime provider's (10 is both TaskWaitBegin and AllocationTick), so every event is told apart
// by its provider; the two handles are learned by name once each, then compared.
bool is_tpl_provider(Engine* engine, clr::EVENTPIPE_PROVIDER provider);

}  // namespace clrscope
