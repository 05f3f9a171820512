// The counters block's shared memory on Linux: a POSIX shared memory object, mode 0600.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/platform.h"

namespace clrscope::platform {
namespace {
void shm_name(uint32_t pid, char* out, size_t n) { std::snprintf(out, n, "/clrscope-%u", pid); }

// A process that died without shutting down (killed, crashed) leaves its block behind. Each new
// one sweeps those of this user whose process is gone, so /dev/shm does not fill with them.
void remove_stale_blocks() {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return;
  const uid_t me = getuid();
  while (dirent* entry = readdir(dir)) {
    unsigned pid = 0;
    char tail = 0;
    if (std::sscanf(entry->d_name, "clrscope-%u%c", &pid, &tail) != 1 || pid == 0) continue;
    struct stat st;
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != me) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    char name[64];
    shm_name(pid, name, sizeof name);
    shm_unlink(name);
  }
  closedir(dir);
}
}  // namespace

bool create_shared_memory(uint32_t pid, size_t size, SharedMemory* out) {
  remove_stale_blocks();
  char name[64];
  shm_name(pid, name, sizeof name);
  // A leftover of an earlier process with the same pid is ours to replace.
  shm_unlink(name);
  const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) return false;
  // The umask can only narrow 0600; set it outright so the mode never depends on it.
  fchmod(fd, S_IRUSR | S_IWUSR);
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    shm_unlink(name);
    return false;
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(name);
    return false;
  }
  out->address = p;
  out->size = size;
  out->handle = pid;
  return true;
}

void release_shared_memory(SharedMemory* memory, bool remove) {
  if (memory->address != nullptr) munmap(memory->address, memory->size);
  if (remove && memory->handle != 0) {
    char name[64];
    shm_name(static_cast<uint32_t>(memory->handle), name, sizeof name);
    shm_unlink(name);
  }
  *memory = SharedMemory{};
}

}  // namespace clrscope::platform
