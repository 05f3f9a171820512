#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "core/platform.h"

namespace clrscope {
namespace {

uint32_t asked_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

TEST(RememberedTid, IsEachThreadsOwn) {
  const uint32_t main_tid = platform::current_tid_remembered();
  EXPECT_EQ(main_tid, asked_tid());
  EXPECT_EQ(platform::current_tid_remembered(), main_tid);
  uint32_t other = 0, other_asked = 0;
  std::thread t([&] {
    other = platform::current_tid_remembered();
    other = platform::current_tid_remembered();  // the remembered one this time
    other_asked = asked_tid();
  });
  t.join();
  EXPECT_EQ(other, other_asked);
  EXPECT_NE(other, main_tid);
}

// The child of a fork inherits the forking thread's thread-locals: the remembered tid must be
// asked again there, or the child's events would be put on its parent's thread.
TEST(RememberedTid, IsAskedAgainAfterAFork) {
  const uint32_t parent = platform::current_tid_remembered();
  ASSERT_EQ(parent, asked_tid());
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    const uint32_t seen = platform::current_tid_remembered();
    _exit(seen == asked_tid() && seen != parent ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(platform::current_tid_remembered(), parent);
}

}  // namespace
}  // namespace clrscope
