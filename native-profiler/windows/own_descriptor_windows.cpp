// clrscope's own descriptors on Windows: the C runtime's descriptors for the log file. Windows
// programs do not close every handle they did not open the way Unix daemons close descriptors,
// and the stream's socket or pipe is a handle no C runtime number names, so a descriptor is taken
// as still clrscope's while it is open; it stays where it was opened.
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>

#include <cstdio>

#include "core/own_descriptor.h"

namespace clrscope::platform {

int move_descriptor_high(int fd) { return fd; }

bool descriptor_identity(int fd, DescriptorIdentity* out) {
  if (_get_osfhandle(fd) == -1) return false;
  *out = DescriptorIdentity{};
  return true;
}

void close_descriptor(int fd) { _close(fd); }

int open_append(const char* path) {
  return _open(path, _O_WRONLY | _O_CREAT | _O_APPEND | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
}

std::FILE* append_stream(int fd) { return _fdopen(fd, "a"); }

}  // namespace clrscope::platform
