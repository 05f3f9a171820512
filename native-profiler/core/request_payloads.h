#pragma once
// HTTP requests an ASP.NET Core program serves, from its own DiagnosticSource events bridged into
// the profiler's EventPipe session by the runtime's Microsoft-Diagnostics-DiagnosticSource
// EventSource. Why these and not the Microsoft.AspNetCore.Hosting EventSource's RequestStart/
// RequestStop: those carry the method and raw path only; the bridge's transforms fetch the method,
// the path, the status code, the route values and the Activity's trace and span ids, on .NET 8, 9
// and 10 alike, in the same session the profiler already runs (README, "Requests").
//
// The bridge's Activity1Start and Activity1Stop are written on the thread serving the request,
// with payload: SourceName (UTF-16, NUL-ended), EventName (same), then the transforms' results
// as a u16 count of {Key, Value} pairs of the same strings. Their EventPipe event ids are not
// the EventSource's (4, 5): the runtime numbers the bridge's self-described events as they are
// first written (157 and 158 on .NET 10 here), so an event is known by its payload's names.
#include <cstddef>
#include <cstdint>
#include <string>

namespace clrscope {
namespace request_events {

constexpr char16_t kProvider[] = u"Microsoft-Diagnostics-DiagnosticSource";
// Events (0x2) only: not the bridge's Messages (0x1) nor its shortcut keywords.
constexpr uint64_t kKeywords = 0x2;
constexpr uint32_t kInformational = 4;
// The first line makes ASP.NET Core's IsEnabled("...HttpRequestIn") true, so it starts the
// request's Activity; the other two fetch what a request record holds. The value is quoted:
// it holds ';' and '=' of its own.
extern const char16_t kFilter[];

}  // namespace request_events

// What one Activity1Start or Activity1Stop of the hosting's HttpRequestIn said.
struct RequestEvent {
  bool start = false;
  std::string method, path, trace_id, span_id, route_values;
  uint32_t status = 0;
};

// Reads a bridge event's payload; false when it is not HttpRequestIn's start or stop, or malformed.
bool parse_request_event(const uint8_t* data, size_t size, RequestEvent* out);

// The route pattern from a path and the route values ("[ms, 10]" entries, as the bridge's
// *Enumerate writes a RouteValueDictionary): each segment equal to a value becomes "{key}", so
// "/cpu/10" with ms=10 is "/cpu/{ms}". A path without values is its own pattern.
std::string route_pattern(const std::string& path, const std::string& route_values);

// A span id's 16 hex digits as a number (0: not 16 hex digits).
uint64_t span_key(const std::string& hex);

}  // namespace clrscope
