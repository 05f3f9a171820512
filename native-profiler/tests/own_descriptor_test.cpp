// clrscope's own descriptors (core/own_descriptor.h): kept above the low numbers, and used only
// while their number still names what clrscope opened.
#include "core/own_descriptor.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/log.h"

namespace clrscope {
namespace {

TEST(JudgeDescriptor, SameDeviceInodeAndTypeIsOwned) {
  const DescriptorIdentity kept{7, 4242, 0140000};
  EXPECT_EQ(judge_descriptor(kept, true, kept), DescriptorState::kOwned);
  EXPECT_EQ(judge_descriptor(kept, false, DescriptorIdentity{}), DescriptorState::kClosed);
  EXPECT_EQ(judge_descriptor(kept, true, DescriptorIdentity{7, 4243, 0140000}), DescriptorState::kReplaced);
  EXPECT_EQ(judge_descriptor(kept, true, DescriptorIdentity{8, 4242, 0140000}), DescriptorState::kReplaced);
  EXPECT_EQ(judge_descriptor(kept, true, DescriptorIdentity{7, 4242, 0010000}), DescriptorState::kReplaced);
}

int low_socket() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  close(pair[1]);
  return pair[0];
}

TEST(OwnDescriptor, MovesAboveTheLowNumbersWhenTheLimitAllows) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const int fd = low_socket();
  ASSERT_GE(fd, 0);
  ASSERT_LT(fd, platform::kHighDescriptorFloor);
  OwnDescriptor own(fd);
  if (limit.rlim_cur < static_cast<rlim_t>(platform::kHighDescriptorFloor) + 64) {
    EXPECT_EQ(own.fd(), fd) << "no room above the floor: it stays where it was";
  } else {
    EXPECT_GE(own.fd(), platform::kHighDescriptorFloor);
    EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "the low number was given back";
    EXPECT_EQ(fcntl(own.fd(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  }
  EXPECT_TRUE(own.owned());
  own.close();
}

TEST(OwnDescriptor, StaysWhereItIsUnderASmallLimit) {
  // A child: lowering the soft limit in this process would hold for every later test.
  EXPECT_EXIT(
      {
        rlimit limit{};
        getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = 256;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) std::_Exit(1);
        const int fd = low_socket();
        OwnDescriptor own(fd);
        std::_Exit(own.fd() == fd && own.owned() ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(OwnDescriptor, NoticesAClosedNumber) {
  OwnDescriptor own(low_socket());
  const int fd = own.fd();
  ASSERT_TRUE(own.owned());
  close(fd);
  EXPECT_FALSE(own.owned());
  EXPECT_EQ(own.state(), DescriptorState::kClosed);
}

TEST(OwnDescriptor, NoticesANumberTakenBySomethingElseAndLeavesItAlone) {
  OwnDescriptor own(low_socket());
  const int fd = own.fd();
  // The program's own socket at the number, as a daemon's close-all and socketpair() leave it.
  const int theirs = low_socket();
  ASSERT_EQ(dup2(theirs, fd), fd);
  close(theirs);
  EXPECT_FALSE(own.owned());
  EXPECT_EQ(own.state(), DescriptorState::kReplaced);
  own.close();
  EXPECT_NE(fcntl(fd, F_GETFD), -1) << "the program's descriptor was closed";
  close(fd);
}

TEST(OwnDescriptor, ALostDescriptorStaysLostWhenTheNumberComesBack) {
  OwnDescriptor own(low_socket());
  const int fd = own.fd();
  const int theirs = low_socket();
  ASSERT_EQ(dup2(theirs, fd), fd);
  EXPECT_FALSE(own.owned());
  close(fd);
  EXPECT_FALSE(own.owned());
  close(theirs);
}

// The log file: above the low numbers too, and once the program put a pipe of its own at its
// number, no line goes there and log_close() leaves it open. In a child: the log is process-wide.
int log_keeps_out_of_a_taken_number() {
  char path[] = "/tmp/clrscope-log-test-XXXXXX";
  const int made = mkstemp(path);
  if (made < 0) return 1;
  close(made);
  setenv("CLRSCOPE_LOG", path, 1);
  log_open_from_env();
  log_line("first");
  int fd = -1;
  char link[256];
  for (int n = platform::kHighDescriptorFloor; n < platform::kHighDescriptorFloor + 64 && fd < 0; ++n) {
    const std::string at = "/proc/self/fd/" + std::to_string(n);
    const ssize_t len = readlink(at.c_str(), link, sizeof link - 1);
    if (len > 0 && std::string(link, static_cast<size_t>(len)) == path) fd = n;
  }
  if (fd < 0) return 2;  // not moved high
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0 || dup2(pipe_fds[1], fd) != fd) return 3;
  log_line("second");
  char buf[64];
  if (read(pipe_fds[0], buf, sizeof buf) != -1) return 4;  // a line reached the program's pipe
  log_close();
  if (fcntl(fd, F_GETFD) == -1) return 5;  // the program's pipe was closed
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 6;
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  unlink(path);
  const std::string text(buf, n);
  if (text.find("first") == std::string::npos) return 7;
  if (text.find("second") != std::string::npos) return 8;
  return 0;
}

TEST(OwnDescriptor, TheLogWritesNothingIntoATakenNumber) {
  EXPECT_EXIT(std::_Exit(log_keeps_out_of_a_taken_number()), ::testing::ExitedWithCode(0), "");
}

// What a check costs: it runs before every send and read on the stream (a few per sampler tick).
TEST(OwnDescriptor, ACheckCostsOneFstat) {
  OwnDescriptor own(low_socket());
  constexpr int kChecks = 200000;
  int owned = 0;
  const auto began = std::chrono::steady_clock::now();
  for (int i = 0; i < kChecks; ++i) owned += own.owned() ? 1 : 0;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began).count();
  EXPECT_EQ(owned, kChecks);
  std::printf("[ own-descriptor ] %.0f ns per check (%d checks)\n", static_cast<double>(ns) / kChecks, kChecks);
  // Generous: a loaded 2-core machine, sanitizers; the point is a system call, not a scan.
  EXPECT_LT(ns / kChecks, 20000);
  own.close();
}

}  // namespace
}  // namespace clrscope
