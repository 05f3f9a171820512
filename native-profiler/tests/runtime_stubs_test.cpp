#include "core/runtime_stubs.h"

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

}  // namespace
}  // namespace clrscope
