// Thread stack bounds on Linux.
#include <pthread.h>

#include <cstdio>
#include <cstring>

#include "core/platform.h"

namespace clrscope::platform {

bool current_thread_stack(uintptr_t* lo, uintptr_t* hi) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  void* addr = nullptr;
  size_t size = 0;
  const bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size != 0;
  pthread_attr_destroy(&attr);
  if (!ok) return false;
  *lo = reinterpret_cast<uintptr_t>(addr);
  *hi = *lo + size;
  return true;
}

bool stack_bounds_containing(uintptr_t sp, uintptr_t* lo, uintptr_t* hi) {
  // A thread's stack is one private read-write mapping; the one holding sp bounds every
  // frame record the walker may read.
  FILE* f = std::fopen("/proc/self/maps", "re");
  if (f == nullptr) return false;
  char line[512];
  bool found = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long a = 0, b = 0;
    char perms[8] = {0};
    if (std::sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3) continue;
    if (sp >= a && sp < b) {
      found = perms[0] == 'r' && perms[1] == 'w';
      *lo = a;
      *hi = b;
      break;
    }
  }
  std::fclose(f);
  return found;
}

}  // namespace clrscope::platform
