#pragma once
// Settings the workstation passes to the profiler through the environment of the target.
#include <cstdint>
#include <string>

namespace clrscope {

struct ProfilerConfig {
  std::string socket_path;          // CLRSCOPE_SOCKET: where the stream goes (required); see transport.h
  std::string secret;               // CLRSCOPE_SECRET: 64 hex digits, required with a tcp: endpoint
  uint64_t interval_ns = 10000000;  // CLRSCOPE_INTERVAL_US: sampling period, 1 ms .. 1 s
  bool cpu = true;                  // CLRSCOPE_CPU=0 turns CPU sampling off
  bool wall = true;                 // CLRSCOPE_WALL=0 turns wall sampling off
  uint32_t wall_threads_per_tick = 64;  // CLRSCOPE_WALL_THREADS
  // Event samples with stacks (README, "Allocations, locks and exceptions"): CLRSCOPE_EXCEPTIONS,
  // CLRSCOPE_LOCKS =0 turn each off, CLRSCOPE_ALLOC=1 turns allocations on; attach client data
  // "exceptions=0", "alloc=1" etc.
  bool exceptions = true;
  bool locks = true;
  // Off by default: on an allocation-bound program the runtime's own sampling path costs more
  // than the overhead goal (README, "Allocations, locks and exceptions").
  bool alloc = false;
  uint32_t exception_stacks_per_s = 1000;
  // An exception's message read from the thrown object (shim/exception_messages.h), with its
  // stack: CLRSCOPE_EXCEPTION_MESSAGES=0 or client data "exception_messages=0" leaves it out.
  bool exception_messages = true;
  // Async call stacks (experimental, core/async_tracker.h): CLRSCOPE_ASYNC=1, client data "async=1".
  bool async = false;
  // Async call stacks read from the heap at sample time (shim/async_heap.h): CLRSCOPE_ASYNC=heap,
  // client data "async=heap". Exclusive with `async`.
  bool async_heap = false;  // CLRSCOPE_EXCEPTION_STACKS: beyond it counted by type only
  // HTTP requests (core/request_payloads.h): CLRSCOPE_REQUESTS=1, client data "requests=1". Off by
  // default: the DiagnosticSource bridge it turns on makes every program's DiagnosticListeners
  // report to it, which a program that serves no requests should not pay for.
  bool requests = false;
  // The rate budget of requests the bridge may see a second (core/request_duty.h):
  // CLRSCOPE_REQUESTS_RATE=N or "all", client data "requests_rate=". kRequestsBudgetDefault: the
  // default for the CPUs the process may run on; 0 ("all"): every request, whatever it costs.
  static constexpr uint32_t kRequestsBudgetDefault = 0xFFFFFFFFu;
  uint32_t requests_rate = kRequestsBudgetDefault;
  // clrscope asked the runtime for its perf map (core/runtime_stubs.h): in the launch
  // environment (CLRSCOPE_PERF_MAP=1, beside DOTNET_PerfMapEnabled) or with the diagnostics
  // command before an attach (client data "perf_map=1"). The profiler reads it and removes it.
  bool perf_map = false;
  // The live counters are being watched (`clrscope counters`, the workstation): CLRSCOPE_RUNTIME_COUNTERS=1,
  // client data "runtime_counters=1". Brings System.Runtime's counters into the runtime event
  // session and the JIT and class-load callbacks that count for the counters block; a recording
  // leaves both out, since on a JIT-heavy program the callbacks alone cost 2-3% of its CPU.
  bool runtime_counters = false;
};

// Reads the variables; out-of-range values fall back to defaults (and are logged).
ProfilerConfig read_profiler_config();
// The same settings as the attach command's client data (an attached profiler cannot see the
// environment the workstation would have set): UTF-8 lines "socket=...", "secret=...",
// "interval_us=...", "cpu=0|1", "wall=0|1", "wall_threads=N". Unknown keys are ignored.
ProfilerConfig parse_client_data(const char* data, size_t size);
// The same from explicit values, for tests.
ProfilerConfig parse_profiler_config(const std::string& socket, const std::string& interval_us,
                                     const std::string& cpu, const std::string& wall,
                                     const std::string& wall_threads, const std::string& secret = "");

// The event switches (exceptions, locks, alloc: "0"/"1", empty for the default) and the
// exceptions' stack budget per second.
void apply_event_switches(ProfilerConfig* c, const std::string& exceptions, const std::string& locks,
                          const std::string& alloc, const std::string& exception_stacks);

// A loopback TCP endpoint, "tcp:127.x.y.z:PORT" (the collector listens on loopback only, so
// nothing else is accepted: the stream carries no encryption).
struct TcpEndpoint {
  uint8_t address[4];  // IPv4, network order
  uint16_t port;       // host order
};
enum class EndpointKind { kPath, kTcp, kBadTcp };
// kPath for anything not starting with "tcp:" (a Unix socket or a named pipe), kTcp with *out
// filled, kBadTcp for a tcp: endpoint that is not a loopback IPv4 address and a port 1..65535.
EndpointKind parse_endpoint(const std::string& endpoint, TcpEndpoint* out);

constexpr size_t kSecretBytes = 32;
// 64 hex digits (either case) to the 32 bytes the profiler sends first on a TCP connection.
bool parse_secret(const std::string& hex, uint8_t out[kSecretBytes]);

}  // namespace clrscope
