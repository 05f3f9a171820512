// Clocks, ids and the environment on Linux.
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "core/platform.h"

namespace clrscope::platform {
namespace {
uint64_t read_clock(clockid_t id) {
  timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

uint64_t mono_now_ns() { return read_clock(CLOCK_MONOTONIC); }
uint64_t unix_now_ns() { return read_clock(CLOCK_REALTIME); }
uint32_t current_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

namespace {
// A fork's child starts with the forking thread's thread-locals but another tid: each fork
// moves this on, and a remembered tid from before it is asked again.
std::atomic<uint32_t> g_forks{0};
struct RememberedTid {
  uint32_t tid = 0;
  uint32_t forks = 0;
};
thread_local RememberedTid t_tid;
}  // namespace

uint32_t current_tid_remembered() {
  static const bool registered = pthread_atfork(nullptr, nullptr, [] { g_forks.fetch_add(1, std::memory_order_relaxed); }) == 0;
  const uint32_t forks = g_forks.load(std::memory_order_relaxed);
  if (registered && t_tid.tid != 0 && t_tid.forks == forks) return t_tid.tid;
  t_tid = RememberedTid{current_tid(), forks};
  return t_tid.tid;
}
uint32_t process_id() { return static_cast<uint32_t>(getpid()); }
uint64_t current_thread_cpu_ns() { return read_clock(CLOCK_THREAD_CPUTIME_ID); }
uint64_t process_cpu_ns() { return read_clock(CLOCK_PROCESS_CPUTIME_ID); }

bool thread_cpu_ns(uint32_t tid, uint64_t* out) {
  // The kernel's clock id for "CPU time of thread tid, scheduler precision": ~tid << 3, per-thread
  // bit 4, CPUCLOCK_SCHED 2 (MAKE_THREAD_CPUCLOCK in the kernel's include/linux/posix-timers.h).
  const clockid_t id = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);
  timespec ts;
  if (clock_gettime(id, &ts) != 0) return false;
  *out = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return true;
}

void name_current_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

void sleep_until_mono_ns(uint64_t deadline) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(deadline / 1000000000ull);
  ts.tv_nsec = static_cast<long>(deadline % 1000000000ull);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

std::string file_name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace clrscope::platform
