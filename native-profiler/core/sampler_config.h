#pragma once
// How the sampler samples, as the engine configured it. The rooms of the sampler read the
// Sampler's own copy, which turns wall sampling off when captures have to stop.
#include <cstddef>
#include <cstdint>
#include <string>

namespace clrscope {

struct SamplerConfig {
  uint64_t interval_ns = 10000000;
  bool cpu = true;
  bool wall = true;
  uint32_t wall_threads_per_tick = 64;
  // A wall request not answered within this time is abandoned (thread stopped, signal masked).
  uint64_t watchdog_ns = 250000000;
  size_t outbox_bytes = 8u << 20;
  bool attached = false;
  std::string runtime_version;
  std::string profiler_version;
};

}  // namespace clrscope
