// clrscope's own descriptors on Linux: moved above the numbers programs reuse first, and known by
// their device and inode (core/own_descriptor.h).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/own_descriptor.h"

namespace clrscope::platform {

int move_descriptor_high(int fd) {
  if (fd < 0 || fd >= kHighDescriptorFloor) return fd;
  // The .NET runtime raises the soft limit to the hard one at startup, so there is usually room
  // far above; below the floor plus some headroom the descriptor stays where it is, rather than
  // take a number the program may still need under a small limit.
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return fd;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < static_cast<rlim_t>(kHighDescriptorFloor) + 64) return fd;
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, kHighDescriptorFloor);
  if (high < 0) return fd;
  // The low number goes only while it still names what was just duplicated: a program thread
  // may have closed it and opened a file of its own there in the meantime.
  DescriptorIdentity low, moved;
  if (descriptor_identity(fd, &low) && descriptor_identity(high, &moved) && low.device == moved.device &&
      low.inode == moved.inode) {
    ::close(fd);
  }
  return high;
}

bool descriptor_identity(int fd, DescriptorIdentity* out) {
  // One fstat: about a third of a microsecond (own_descriptor_test prints it). A socket's inode
  // is allocated from the kernel's 32-bit counter of anonymous inodes and is unique among live
  // files, so device and inode tell the socket clrscope opened from any socket, pipe or file
  // that took its number; address, domain or peer would each cost another system call.
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  out->device = static_cast<uint64_t>(st.st_dev);
  out->inode = static_cast<uint64_t>(st.st_ino);
  out->type = static_cast<uint32_t>(st.st_mode & S_IFMT);
  return true;
}

void close_descriptor(int fd) { ::close(fd); }

int open_append(const char* path) { return ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666); }

std::FILE* append_stream(int fd) { return fdopen(fd, "a"); }

}  // namespace clrscope::platform
