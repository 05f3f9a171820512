// Clocks, ids and the environment on Linux.
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
uint32_t process_id() { return static_cast<uint32_t>(getpid()); }
uint64_t current_thread_cpu_ns() { return read_clock(CLOCK_THREAD_CPUTIME_ID); }

// The thread CPU clocks count nanoseconds of run time as the scheduler accounts it.
uint64_t thread_cpu_clock_step_ns() { return 1; }

bool thread_cpu_ns(uint32_t tid, uint64_t* out) {
  // The kernel's clock id for "CPU time of thread tid, scheduler precision" (see FACTS.md).
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
