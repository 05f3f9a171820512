#pragma once
// Descriptors clrscope keeps open in the program (the stream's socket, the log file) share the
// program's descriptor table, and the program may close any of them: a daemon or a process
// supervisor closes every descriptor it did not open, then opens its own, which reuse the
// lowest free numbers. A profiler that went on using the number would write its stream into the
// program's socket and read the program's bytes as commands. So each such descriptor is kept with
// what it is (device, inode, type), captured when clrscope opened it, and is used only while the
// number still names that same file; once it does not, it is lost for good and never touched
// again, not even to close it.
//
// What is left: the check and the call that follows it are two system calls. A program thread
// that closes the number and opens another file there in between (about a microsecond) still
// receives that one call's bytes. Checking right before every call keeps that window to one
// call; moving the descriptor high (from 800 up) makes it need a program that closes it and then
// opens hundreds of files within that microsecond, since new descriptors take the lowest free
// number. A private duplicate would not help: the program closes every number, duplicates
// included, and a check of the duplicate says nothing of the number the call uses. Nothing short
// of a reference the program cannot close (an io_uring's registered file, which many sandboxes
// forbid) ends the race.
#include <cstdint>
#include <cstdio>

namespace clrscope {

// What a descriptor refers to. Two descriptors with equal identities refer to the same open
// file or socket while it exists: a socket's inode is its own, unique among live sockets.
struct DescriptorIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint32_t type = 0;  // the file type bits of st_mode
};

// kClosed: nothing is open at the number; kReplaced: something else is.
enum class DescriptorState : uint8_t { kOwned = 0, kClosed = 1, kReplaced = 2 };

// The state of a descriptor whose identity was `kept`, given whether its number is open now and
// what it refers to.
DescriptorState judge_descriptor(const DescriptorIdentity& kept, bool open_now, const DescriptorIdentity& now);

class OwnDescriptor {
 public:
  OwnDescriptor() = default;
  // Takes `fd`, just opened by clrscope: moves it out of the low numbers programs reuse first
  // (platform::move_descriptor_high) and records what it is. A descriptor that cannot be
  // identified is taken as lost from the start.
  explicit OwnDescriptor(int fd);
  OwnDescriptor(const OwnDescriptor&) = delete;
  OwnDescriptor& operator=(const OwnDescriptor&) = delete;

  int fd() const { return fd_; }
  // Checks, now, that the number still names the file clrscope opened; false from the first time
  // it does not. Call right before every use.
  bool owned();
  // Without a check: what the last check found.
  DescriptorState state() const { return state_; }
  // Closes the descriptor if it is still clrscope's; a lost one is left alone (it is the program's).
  void close();

 private:
  int fd_ = -1;
  DescriptorIdentity identity_;
  DescriptorState state_ = DescriptorState::kClosed;
};

namespace platform {
// The lowest number from which clrscope's descriptors are moved up (when the soft limit on open
// descriptors leaves room above it).
constexpr int kHighDescriptorFloor = 800;
// Moves `fd` to a free number at or above kHighDescriptorFloor (close-on-exec), closing the
// original; returns the new number, or `fd` itself when there is no room up there.
int move_descriptor_high(int fd);
// What `fd` refers to now; false when nothing is open at that number.
bool descriptor_identity(int fd, DescriptorIdentity* out);
void close_descriptor(int fd);
// A descriptor appending to `path` (created, mode 0666 less the umask, if missing), not
// inherited by child processes; -1 when it cannot be opened.
int open_append(const char* path);
// A stdio stream over `fd` (appending); nullptr on failure.
std::FILE* append_stream(int fd);
}  // namespace platform

}  // namespace clrscope
