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

}  // namespace
}  // namespace clrscope
