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

}  // namespace

ProfilerConfig parse_profiler_config(const std::string& socket, const std::string& interval_us,
                                     const std::string& cpu, const std::string& wall,
                                     const std::string& wall_threads) {
  ProfilerConfig c;
  c.socket_path = socket;
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
  std::string socket, interval, cpu, wall, threads;
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
  }
  return parse_profiler_config(socket, interval, cpu, wall, threads);
}

ProfilerConfig read_profiler_config() {
  return parse_profiler_config(platform::env("CLRSCOPE_SOCKET"), platform::env("CLRSCOPE_INTERVAL_US"),
                               platform::env("CLRSCOPE_CPU"), platform::env("CLRSCOPE_WALL"),
                               platform::env("CLRSCOPE_WALL_THREADS"));
}

}  // namespace clrscope
