#include "core/runtime_stubs.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace clrscope {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

void append(const std::string& path, const char* text) {
  FILE* f = std::fopen(path.c_str(), "ae");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(text, 1, std::strlen(text), f), std::strlen(text));
  ASSERT_EQ(std::fclose(f), 0);
}

class OwnedPerfMap : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/clrscope-stubs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    map_ = dir_ + "/perf-" + std::to_string(getpid()) + ".map";
    info_ = dir_ + "/perfinfo-" + std::to_string(getpid()) + ".map";
  }
  void TearDown() override {
    unlink(map_.c_str());
    unlink(info_.c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_, map_, info_;
};

// After an attach, the runtime has written both files before the profiler loads. A recording
// whose samples never land in a stub never asks the map for a name: the files must go anyway.
TEST_F(OwnedPerfMap, RemovesTheMapAndThePerfInfoFileAtOnceAndStillReadsTheMap) {
  append(map_, "0x1000 10 stub ReportStubBlock<VSD_ResolveStub>\n");
  append(info_, "ImageLoad;/x/System.Private.CoreLib.dll;{guid};0x7f0000000000;\n");
  RuntimeStubNames names;
  names.configure(map_, true);
  EXPECT_FALSE(exists(map_));
  EXPECT_FALSE(exists(info_));
  // The runtime keeps writing to the file it opened; the profiler keeps reading its own descriptor.
  std::string line;
  EXPECT_TRUE(names.map_name(0x1004, &line));
  EXPECT_EQ(line, "stub ReportStubBlock<VSD_ResolveStub>");
}

TEST_F(OwnedPerfMap, LeavesTheProgramsOwnMapWhereItIs) {
  append(map_, "0x1000 10 stub ReportStubBlock<VSD_ResolveStub>\n");
  append(info_, "ImageLoad;/x/System.Private.CoreLib.dll;{guid};0x7f0000000000;\n");
  RuntimeStubNames names;
  names.configure(map_, false);
  std::string line;
  EXPECT_TRUE(names.map_name(0x1004, &line));
  EXPECT_TRUE(exists(map_));
  EXPECT_TRUE(exists(info_));
}

// The descriptor in this process whose link names `path` (deleted or not); -1 when none.
int descriptor_of(const std::string& path) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* e = readdir(dir)) {
    char link[4096];
    const std::string at = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = readlink(at.c_str(), link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = '\0';
    if (std::string(link).rfind(path, 0) == 0) found = std::atoi(e->d_name);
  }
  closedir(dir);
  return found;
}

// A daemon closes every descriptor it did not open and opens its own, which take the freed
// numbers: the map's number may come to name the program's pipe or socket, whose bytes are not
// clrscope's to read.
TEST_F(OwnedPerfMap, NeverReadsADescriptorTheProgramReusedForItsOwnPipe) {
  append(map_, "0x1000 10 stub ReportStubBlock<VSD_ResolveStub>\n");
  RuntimeStubNames names;
  names.configure(map_, true);
  const int fd = descriptor_of(map_);
  ASSERT_GE(fd, 0);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const char program_bytes[] = "0x2000 10 stub ReportStubBlock<VSD_DispatchStub>\n";
  ASSERT_EQ(write(pipe_fds[1], program_bytes, sizeof program_bytes - 1), static_cast<ssize_t>(sizeof program_bytes - 1));
  // The program's pipe now sits at the map's number.
  ASSERT_EQ(dup2(pipe_fds[0], fd), fd);
  close(pipe_fds[0]);
  std::string line;
  EXPECT_FALSE(names.map_name(0x2004, &line));
  // The bytes are all still there for the program.
  fcntl(fd, F_SETFL, O_NONBLOCK);
  char buf[256];
  EXPECT_EQ(read(fd, buf, sizeof buf), static_cast<ssize_t>(sizeof program_bytes - 1));
  close(fd);
  close(pipe_fds[1]);
}

}  // namespace
}  // namespace clrscope
