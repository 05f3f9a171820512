#pragma once
// The DiagnosticSource bridge's provider configuration and its events: HTTP requests
// (core/request_payloads.h). Its session is shim/requests_bridge.h's.
#include <cstddef>
#include <cstdint>

#include "clr/corprof.h"

namespace clrscope {

struct Engine;

clr::COR_PRF_EVENTPIPE_PROVIDER_CONFIG requests_provider_config();

// Whether an event delivered to the session comes from Microsoft-Diagnostics-DiagnosticSource
// (its event ids overlap the runtime provider's); its handle is learned by name once.
bool is_requests_provider(Engine* engine, clr::EVENTPIPE_PROVIDER provider);

// A bridge event, on the thread that raised it: a request's start also says the root of the
// async chain the thread runs (with async stacks read from the heap), for following the request
// through its awaits (core/request_tracker.h).
void deliver_request_event(Engine* engine, const uint8_t* data, size_t size);

}  // namespace clrscope
