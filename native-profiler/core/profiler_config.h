#pragma once
// Settings the workstation passes to the profiler through the environment of the target.
#include <cstdint>
#include <string>

namespace clrscope {

struct ProfilerConfig {
  std::string socket_path;          // CLRSCOPE_SOCKET: where the stream goes (required)
  uint64_t interval_ns = 10000000;  // CLRSCOPE_INTERVAL_US: sampling period, 1 ms .. 1 s
  bool cpu = true;                  // CLRSCOPE_CPU=0 turns CPU sampling off
  bool wall = true;                 // CLRSCOPE_WALL=0 turns wall sampling off
  uint32_t wall_threads_per_tick = 64;  // CLRSCOPE_WALL_THREADS
};

// Reads the variables; out-of-range values fall back to defaults (and are logged).
ProfilerConfig read_profiler_config();
// The same settings as the attach command's client data (an attached profiler cannot see the
// environment the workstation would have set): UTF-8 lines "socket=...", "interval_us=...",
// "cpu=0|1", "wall=0|1", "wall_threads=N". Unknown keys are ignored.
ProfilerConfig parse_client_data(const char* data, size_t size);
// The same from explicit values, for tests.
ProfilerConfig parse_profiler_config(const std::string& socket, const std::string& interval_us,
                                     const std::string& cpu, const std::string& wall,
                                     const std::string& wall_threads);

}  // namespace clrscope
