#include "core/profiler_config.h"

#include <cstdlib>

#include "core/log.h"
#include "core/platform.h"

namespace clrscope {
namespace {

bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_switch(const std::string& s, bool fallback) {
  if (s == "0" || s == "false" || s == "off") return false;
  if (s == "1" || s == "true" || s == "on") return true;
  return fallback;
}

// "all", or a rate of 1..1,000,000 requests a second; anything else keeps the default (logged).
uint32_t parse_requests_rate(const std::string& s) {
  if (s.empty()) return ProfilerConfig::kRequestsBudgetDefault;
  if (s == "all") return 0;
  uint64_t v = 0;
  if (parse_u64(s, &v) && v >= 1 && v <= 1000000) return static_cast<uint32_t>(v);
  log_line("requests rate %s is neither \"all\" nor 1..1000000; using the default budget", s.c_str());
  return ProfilerConfig::kRequestsBudgetDefault;
}

}  // namespace

ProfilerConfig parse_profiler_config(const std::string& socket, const std::string& interval_us,
                                     const std::string& cpu, const std::string& wall,
                                     const std::string& wall_threads, const std::string& secret) {
  ProfilerConfig c;
  c.socket_path = socket;
  c.secret = secret;
  uint64_t v = 0;
  if (parse_u64(interval_us, &v)) {
    if (v >= 1000 && v <= 1000000) {
      c.interval_ns = v * 1000;
    } else {
      log_line("CLRSCOPE_INTERVAL_US=%s is outside 1000..1000000; using 10000", interval_us.c_str());
    }
  }
  c.cpu = parse_switch(cpu, true);
  c.wall = parse_switch(wall, true);
  if (parse_u64(wall_threads, &v) && v >= 1 && v <= 4096) c.wall_threads_per_tick = static_cast<uint32_t>(v);
  return c;
}

ProfilerConfig parse_client_data(const char* data, size_t size) {
  std::string socket, interval, cpu, wall, threads, secret, exceptions, locks, alloc, exception_stacks, async, messages, perf_map,
      runtime_counters, requests, requests_rate;
  const std::string text(data == nullptr ? "" : std::string(data, size));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    if (key == "socket") socket = value;
    else if (key == "interval_us") interval = value;
    else if (key == "cpu") cpu = value;
    else if (key == "wall") wall = value;
    else if (key == "wall_threads") threads = value;
    else if (key == "secret") secret = value;
    else if (key == "exceptions") exceptions = value;
    else if (key == "locks") locks = value;
    else if (key == "alloc") alloc = value;
    else if (key == "exception_stacks") exception_stacks = value;
    else if (key == "async") async = value;
    else if (key == "exception_messages") messages = value;
    else if (key == "perf_map") perf_map = value;
    else if (key == "runtime_counters") runtime_counters = value;
    else if (key == "requests") requests = value;
    else if (key == "requests_rate") requests_rate = value;
  }
  ProfilerConfig c = parse_profiler_config(socket, interval, cpu, wall, threads, secret);
  apply_event_switches(&c, exceptions, locks, alloc, exception_stacks);
  c.async_heap = async == "heap";
  c.async = !c.async_heap && parse_switch(async, false);
  c.exception_messages = parse_switch(messages, true);
  c.perf_map = parse_switch(perf_map, false);
  c.runtime_counters = parse_switch(runtime_counters, false);
  c.requests = parse_switch(requests, false);
  c.requests_rate = parse_requests_rate(requests_rate);
  return c;
}

ProfilerConfig read_profiler_config() {
  ProfilerConfig c = parse_profiler_config(platform::env("CLRSCOPE_SOCKET"), platform::env("CLRSCOPE_INTERVAL_US"),
                                           platform::env("CLRSCOPE_CPU"), platform::env("CLRSCOPE_WALL"),
                                           platform::env("CLRSCOPE_WALL_THREADS"), platform::env("CLRSCOPE_SECRET"));
  apply_event_switches(&c, platform::env("CLRSCOPE_EXCEPTIONS"), platform::env("CLRSCOPE_LOCKS"),
                       platform::env("CLRSCOPE_ALLOC"), platform::env("CLRSCOPE_EXCEPTION_STACKS"));
  const std::string async = platform::env("CLRSCOPE_ASYNC");
  c.async_heap = async == "heap";
  c.async = !c.async_heap && parse_switch(async, false);
  c.exception_messages = parse_switch(platform::env("CLRSCOPE_EXCEPTION_MESSAGES"), true);
  c.perf_map = parse_switch(platform::env("CLRSCOPE_PERF_MAP"), false);
  c.runtime_counters = parse_switch(platform::env("CLRSCOPE_RUNTIME_COUNTERS"), false);
  c.requests = parse_switch(platform::env("CLRSCOPE_REQUESTS"), false);
  c.requests_rate = parse_requests_rate(platform::env("CLRSCOPE_REQUESTS_RATE"));
  return c;
}

void apply_event_switches(ProfilerConfig* c, const std::string& exceptions, const std::string& locks,
                          const std::string& alloc, const std::string& exception_stacks) {
  c->exceptions = parse_switch(exceptions, true);
  c->locks = parse_switch(locks, true);
  c->alloc = parse_switch(alloc, false);
  uint64_t v = 0;
  if (parse_u64(exception_stacks, &v) && v <= 1000000) c->exception_stacks_per_s = static_cast<uint32_t>(v);
}

EndpointKind parse_endpoint(const std::string& endpoint, TcpEndpoint* out) {
  if (endpoint.compare(0, 4, "tcp:") != 0) return EndpointKind::kPath;
  // Four dotted decimal bytes, a colon, a decimal port: no names (no resolver calls in a
  // profiler), no IPv6 (loopback IPv4 is what the collector listens on).
  const std::string rest = endpoint.substr(4);
  uint32_t parts[5] = {0, 0, 0, 0, 0};
  size_t part = 0, digits = 0;
  for (const char ch : rest) {
    if (ch >= '0' && ch <= '9') {
      if (++digits > 5) return EndpointKind::kBadTcp;
      parts[part] = parts[part] * 10 + static_cast<uint32_t>(ch - '0');
    } else if ((ch == '.' && part < 3) || (ch == ':' && part == 3)) {
      if (digits == 0) return EndpointKind::kBadTcp;
      ++part;
      digits = 0;
    } else {
      return EndpointKind::kBadTcp;
    }
  }
  if (part != 4 || digits == 0) return EndpointKind::kBadTcp;
  for (size_t i = 0; i < 4; ++i) {
    if (parts[i] > 255) return EndpointKind::kBadTcp;
  }
  if (parts[0] != 127 || parts[4] == 0 || parts[4] > 65535) return EndpointKind::kBadTcp;
  for (size_t i = 0; i < 4; ++i) out->address[i] = static_cast<uint8_t>(parts[i]);
  out->port = static_cast<uint16_t>(parts[4]);
  return EndpointKind::kTcp;
}

bool parse_secret(const std::string& hex, uint8_t out[kSecretBytes]) {
  if (hex.size() != 2 * kSecretBytes) return false;
  auto nibble = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < kSecretBytes; ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace clrscope
