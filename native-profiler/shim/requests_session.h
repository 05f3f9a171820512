#pragma once
// The DiagnosticSource bridge in the profiler's EventPipe session: HTTP requests (core/request_payloads.h).
#include "clr/corprof.h"

namespace clrscope {

struct Engine;

clr::COR_PRF_EVENTPIPE_PROVIDER_CONFIG requests_provider_config();

// Whether an event delivered to the session comes from Microsoft-Diagnostics-DiagnosticSource
// (its event ids overlap the runtime provider's); its handle is learned by name once.
bool is_requests_provider(Engine* engine, clr::EVENTPIPE_PROVIDER provider);

}  // namespace clrscope
