#pragma once
// The runtime's WaitHandleWait events (core/wait_event_payloads.h) in an EventPipe session of their
// own: they are Verbose, and asking the main runtime session for Verbose would bring every
// verbose event of its other keywords too (the GC's AllocationTick and GCJoin among them).
// EventPipe filters each session by its own provider configuration, so this one gets the waits
// and nothing else.
#include "clr/corprof.h"

namespace clrscope {

// 0 when the runtime refused it (logged); a runtime older than .NET 9 never raises the events.
clr::EVENTPIPE_SESSION start_wait_events(clr::ICorProfilerInfo12* info);

}  // namespace clrscope
