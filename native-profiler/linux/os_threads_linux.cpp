// The threads of this process as Linux lists them, and what the scheduler says about one.
#include <dirent.h>
#include <sched.h>
#include <sys/mman.h>
#include <malloc.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/page_memory.h"
#include "core/platform.h"
#include "core/thread_registry.h"

namespace clrscope::platform {
namespace {

// Reads a small /proc file whole into buf (NUL-terminated); false when it cannot.
bool read_small(const char* path, char* buf, size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t got = 0;
  while (got + 1 < size) {
    const ssize_t n = read(fd, buf + got, size - 1 - got);
    if (n < 0) {
      close(fd);
      return false;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  buf[got] = '\0';
  return got > 0;
}

uint64_t field_after(const char* text, const char* key) {
  const char* at = std::strstr(text, key);
  if (at == nullptr) return UINT64_MAX;
  return std::strtoull(at + std::strlen(key), nullptr, 10);
}

}  // namespace

bool thread_wait_state(uint32_t tid, bool* waiting, uint64_t* switches) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/status", tid);
  char text[4096];
  if (!read_small(path, text, sizeof text)) return false;
  const char* state = std::strstr(text, "\nState:");
  const uint64_t voluntary = field_after(text, "\nvoluntary_ctxt_switches:");
  const uint64_t involuntary = field_after(text, "\nnonvoluntary_ctxt_switches:");
  if (state == nullptr || voluntary == UINT64_MAX || involuntary == UINT64_MAX) return false;
  state += 7;
  while (*state == ' ' || *state == '\t') ++state;
  // S sleeping, D uninterruptible wait, T/t stopped: all off the CPU and not about to run.
  *waiting = *state == 'S' || *state == 'D' || *state == 'T' || *state == 't';
  *switches = voluntary + involuntary;
  return true;
}

uint32_t os_thread_count() {
  // Field 20 of /proc/self/stat, after the command name in parentheses (which may hold spaces).
  FILE* f = std::fopen("/proc/self/stat", "re");
  if (f == nullptr) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return 0;
  unsigned long threads = 0;
  // After ')': state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads(20).
  if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %lu", &threads) != 1) {
    return 0;
  }
  return static_cast<uint32_t>(threads);
}

std::string os_thread_name(uint32_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return std::string();
  char buf[64] = {0};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string name(buf, n);
  while (!name.empty() && (name.back() == '\n' || name.back() == '\0')) name.pop_back();
  return name;
}

bool list_os_threads(std::vector<OsThread>* out) {
  out->clear();
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return false;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const uint32_t tid = static_cast<uint32_t>(std::strtoul(e->d_name, nullptr, 10));
    if (tid != 0) out->push_back(OsThread{tid, std::string()});
  }
  closedir(dir);
  for (OsThread& t : *out) t.name = os_thread_name(t.tid);
  return true;
}

void release_free_memory() { malloc_trim(0); }

void* page_alloc(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void page_free(void* p, size_t bytes) {
  if (p != nullptr) munmap(p, bytes);
}

uint32_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<uint32_t>(n) : 1;
}

}  // namespace clrscope::platform
