#include "core/profiler_config.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

TEST(ProfilerConfig, DefaultsWhenUnset) {
  const ProfilerConfig c = parse_profiler_config("", "", "", "", "");
  EXPECT_EQ(c.interval_ns, 10000000u);
  EXPECT_TRUE(c.cpu);
  EXPECT_TRUE(c.wall);
  EXPECT_EQ(c.wall_threads_per_tick, 64u);
}

TEST(ProfilerConfig, ReadsValuesInRange) {
  const ProfilerConfig c = parse_profiler_config("/tmp/x/sock", "1000", "1", "0", "8");
  EXPECT_EQ(c.socket_path, "/tmp/x/sock");
  EXPECT_EQ(c.interval_ns, 1000000u);
  EXPECT_TRUE(c.cpu);
  EXPECT_FALSE(c.wall);
  EXPECT_EQ(c.wall_threads_per_tick, 8u);
}

TEST(ProfilerConfig, FallsBackOnOutOfRangeOrGarbage) {
  EXPECT_EQ(parse_profiler_config("", "999", "", "", "").interval_ns, 10000000u);
  EXPECT_EQ(parse_profiler_config("", "1000001", "", "", "").interval_ns, 10000000u);
  EXPECT_EQ(parse_profiler_config("", "10ms", "", "", "").interval_ns, 10000000u);
  EXPECT_EQ(parse_profiler_config("", "", "", "", "0").wall_threads_per_tick, 64u);
  EXPECT_TRUE(parse_profiler_config("", "", "maybe", "", "").cpu);
}

TEST(ProfilerConfig, ReadsTheAttachClientData) {
  const std::string data = "socket=/tmp/clrscope-x/sock\ninterval_us=2000\ncpu=1\nwall=0\nwall_threads=16\nfuture=1\n";
  const ProfilerConfig c = parse_client_data(data.data(), data.size());
  EXPECT_EQ(c.socket_path, "/tmp/clrscope-x/sock");
  EXPECT_EQ(c.interval_ns, 2000000u);
  EXPECT_TRUE(c.cpu);
  EXPECT_FALSE(c.wall);
  EXPECT_EQ(c.wall_threads_per_tick, 16u);
  EXPECT_EQ(parse_client_data(nullptr, 0).socket_path, "");
  const std::string no_newline = "socket=/s";
  EXPECT_EQ(parse_client_data(no_newline.data(), no_newline.size()).socket_path, "/s");
}

}  // namespace
}  // namespace clrscope
