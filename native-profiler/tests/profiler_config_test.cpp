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

TEST(ProfilerConfig, TellsTheTwoSourcesOfAsyncStacksApart) {
  const std::string events = "socket=/s\nasync=1\n";
  const ProfilerConfig a = parse_client_data(events.data(), events.size());
  EXPECT_TRUE(a.async);
  EXPECT_FALSE(a.async_heap);
  const std::string heap = "socket=/s\nasync=heap\n";
  const ProfilerConfig b = parse_client_data(heap.data(), heap.size());
  EXPECT_FALSE(b.async);
  EXPECT_TRUE(b.async_heap);
  const std::string off = "socket=/s\n";
  const ProfilerConfig c = parse_client_data(off.data(), off.size());
  EXPECT_FALSE(c.async || c.async_heap);
}

TEST(ProfilerConfig, ReadsTheSecretFromTheEnvironmentAndTheClientData) {
  EXPECT_EQ(parse_profiler_config("tcp:127.0.0.1:5", "", "", "", "", "ab").secret, "ab");
  const std::string data = "socket=tcp:127.0.0.1:4000\nsecret=00ff\n";
  const ProfilerConfig c = parse_client_data(data.data(), data.size());
  EXPECT_EQ(c.socket_path, "tcp:127.0.0.1:4000");
  EXPECT_EQ(c.secret, "00ff");
}

TEST(Endpoint, TellsPathsFromLoopbackTcpAndRejectsAnyOtherTcp) {
  TcpEndpoint t{};
  EXPECT_EQ(parse_endpoint("/tmp/clrscope-x/sock", &t), EndpointKind::kPath);
  EXPECT_EQ(parse_endpoint("\\\\.\\pipe\\clrscope", &t), EndpointKind::kPath);
  ASSERT_EQ(parse_endpoint("tcp:127.0.0.1:40123", &t), EndpointKind::kTcp);
  EXPECT_EQ(t.address[0], 127);
  EXPECT_EQ(t.address[3], 1);
  EXPECT_EQ(t.port, 40123);
  EXPECT_EQ(parse_endpoint("tcp:127.1.2.3:1", &t), EndpointKind::kTcp);
  for (const char* bad : {"tcp:", "tcp:127.0.0.1", "tcp:127.0.0.1:", "tcp:127.0.0.1:0", "tcp:127.0.0.1:65536",
                          "tcp:10.0.0.1:80", "tcp:localhost:80", "tcp:127.0.0.256:80", "tcp:127.0.0.1:80x",
                          "tcp:127.0.0:80", "tcp:[::1]:80", "tcp:127.0.0.1:800000"}) {
    EXPECT_EQ(parse_endpoint(bad, &t), EndpointKind::kBadTcp) << bad;
  }
}

TEST(Endpoint, ParsesA64HexDigitSecret) {
  uint8_t out[kSecretBytes];
  const std::string hex = "00112233445566778899aabbccddeeffFFEEDDCCBBAA99887766554433221100";
  ASSERT_TRUE(parse_secret(hex, out));
  EXPECT_EQ(out[0], 0x00);
  EXPECT_EQ(out[1], 0x11);
  EXPECT_EQ(out[15], 0xff);
  EXPECT_EQ(out[16], 0xff);
  EXPECT_EQ(out[31], 0x00);
  EXPECT_FALSE(parse_secret(hex.substr(1), out));
  EXPECT_FALSE(parse_secret(hex + "0", out));
  EXPECT_FALSE(parse_secret(std::string(63, '0') + "g", out));
  EXPECT_FALSE(parse_secret("", out));
}

}  // namespace
}  // namespace clrscope
