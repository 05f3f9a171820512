// The profiler's per-sample cost in the target for encoding and sending, for
// scripts/bench/encode-cost.mjs: WireWriter::sample() as the sampler calls it (frame ids, flags,
// times, values), and every tick (64 samples) the bytes written to a Unix socket that another
// thread drains, as the outbox sends them; timed by the sampling thread's CPU clock, which
// counts the kernel's work in write() too. The same file is compiled against this tree's
// wire_writer.cpp and against an older one (without close_batch(): CLRSCOPE_V1_WRITER).
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <thread>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/wire_writer.h"

namespace {

uint64_t cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint32_t rng = 0x2545f491u;
uint32_t next() {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t samples = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 2000000;
  const uint32_t stacks = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 5000;
  const uint32_t depth = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 25;
  const uint32_t threads = 64;
  // Stacks sharing trunks, as real ones do: 40 trunks of 8 frames, the rest varies.
  std::vector<std::vector<uint32_t>> trunks(40, std::vector<uint32_t>(8));
  for (auto& t : trunks)
    for (auto& f : t) f = 1 + next() % 2000;
  std::vector<std::vector<uint32_t>> all(stacks);
  for (auto& s : all) {
    s.resize(depth);
    const auto& trunk = trunks[next() % trunks.size()];
    for (uint32_t i = 0; i < depth; ++i) s[depth - 1 - i] = i < trunk.size() ? trunk[i] : 1 + next() % 2000;
  }
  std::vector<uint32_t> pick(samples);
  for (auto& p : pick) {
    const double r = (next() >> 8) / 16777216.0;
    p = static_cast<uint32_t>(r * r * r * stacks);  // a few hot stacks take most samples
  }
  const bool send = argc > 4 && std::atoi(argv[4]) != 0;
  int fds[2] = {-1, -1};
  std::thread drain;
  if (send) {
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 1;
    drain = std::thread([fd = fds[1]] {
      static char sink[1 << 16];
      while (read(fd, sink, sizeof sink) > 0) {
      }
    });
  }
  std::vector<uint8_t> out;
  out.reserve(16u << 20);
  clrscope::WireWriter w(&out);
  w.preamble();
  uint64_t mono = 1000000000ull;
  // Warm-up: every stack once (the v2 writer defines them here), then the timed steady state.
  for (uint32_t s = 0; s < stacks; ++s) w.sample(mono, 1 + s % threads, 2, 0, 10000000, all[s].data(), static_cast<uint16_t>(depth));
  out.clear();
  uint64_t bytes = 0;
  const uint64_t t0 = cpu_ns();
  for (uint32_t i = 0; i < samples; ++i) {
    const uint32_t thread = 1 + i % threads;
    if (i % threads == 0) {
      mono += 10000000;  // a tick: the threads' wall samples at one time
      if (send) {
#ifndef CLRSCOPE_V1_WRITER
        w.close_batch();
#endif
        for (size_t at = 0; at < out.size();) {
          const ssize_t n = write(fds[0], out.data() + at, out.size() - at);
          if (n <= 0) return 1;
          at += static_cast<size_t>(n);
        }
        bytes += out.size();
        out.clear();
      }
    }
    const uint8_t flags = (i % 5 == 0) ? 3 : 2;
    w.sample(mono + (i % 7) * 1000, thread, flags, flags & 1 ? 9000000 + next() % 2000000 : 0, 10000000 + next() % 5000, all[pick[i]].data(),
             static_cast<uint16_t>(depth));
    if (out.size() > (8u << 20)) {
      bytes += out.size();
      out.clear();  // what the outbox does once the bytes are sent
    }
  }
  const uint64_t ns = cpu_ns() - t0;
  bytes += out.size();
  if (send) {
    close(fds[0]);
    drain.join();
    close(fds[1]);
  }
  std::printf("{\"samples\":%u,\"stacks\":%u,\"depth\":%u,\"send\":%d,\"cpuNs\":%llu,\"nsPerSample\":%.1f,\"bytesPerSample\":%.2f}\n", samples, stacks, depth, send ? 1 : 0,
              static_cast<unsigned long long>(ns), static_cast<double>(ns) / samples, static_cast<double>(bytes) / samples);
  return 0;
}
