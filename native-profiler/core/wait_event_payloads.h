#pragma once
// A thread's blocking waits as the runtime itself reports them (.NET 9 and later): provider
// Microsoft-Windows-DotNETRuntime, keyword WaitHandle 0x40000000000 at Verbose, WaitHandleWaitStart
// (301) when a thread starts a wait that blocks (Monitor.Wait, and so Task.Wait and .Result;
// WaitHandle.WaitOne and the like) and WaitHandleWaitStop (302) when it wakes, both on the waiting
// thread. The runtime tries a wait that does not block first, so these come only for waits that
// did. They travel as RUNTIME_EVENT records (structs/wire/PROTOCOL.md). Pure byte decoding.
#include <cstddef>
#include <cstdint>

#include "core/wire_writer.h"

namespace clrscope {

namespace wait_events {
constexpr uint64_t kWaitHandleKeyword = 0x40000000000ull;
constexpr uint32_t kWaitStart = 301;
constexpr uint32_t kWaitStop = 302;
}  // namespace wait_events

inline bool is_wait_event(uint32_t id) { return id == wait_events::kWaitStart || id == wait_events::kWaitStop; }

// Fills out's event, version and a..d (not mono or tid); false for other events and payloads too
// short. Start: a WaitSource (0 Unknown, 1 MonitorWait), b AssociatedObjectID (an address of
// `pointer_size` bytes, the object waited on). Stop: nothing.
bool wait_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                   size_t pointer_size, RuntimeEventRecord* out);

}  // namespace clrscope
