#include "core/wire_writer.h"

#include <gtest/gtest.h>

#include "tests/fixture_bytes.h"

namespace clrscope {
namespace {

// The same records as structs/wire/fixtures/basic.json, written by the C++ encoder; the TS
// decoder is tested against the very same bytes.
TEST(WireWriter, EncodesTheSharedFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{4242, 3, 1000000000ull, 1700000000000000000ull, 10000000, 64, "10.0.12", "0.1.0"});
  w.thread(1, 4243, 0x7f0012345678ull, 1000000100ull, "worker-a");
  w.function(1, wire::kManaged, "Demo.Work.Hot", "Demo.dll", "");
  w.function(2, wire::kNative, "start_thread", "libc.so.6", "");
  w.function(3, wire::kSynthetic, "[frames elided]", "", "");
  w.function(4, wire::kManaged, "Demo.\xC3\x9Cn\xC3\xAF" "code+Nested<System.Int32>.M\xC3\xA9thode", "Demo.dll", "Program.cs");
  const uint32_t a[] = {1, 4, 2};
  w.sample(1010000000ull, 1, wire::kSampleCpu | wire::kSampleWall, 9876543, 10000000, a, 3);
  w.sample(1020000000ull, 1, wire::kSampleWall | wire::kSampleIncomplete, 0, 20000000, nullptr, 0);
  const uint32_t b[] = {1, 3, 2};
  w.sample(1030000000ull, 1, wire::kSampleCpu | wire::kSampleElided, 10000000, 0, b, 3);
  w.stats(StatsRecord{1040000000ull, 3, 1, 2, 0, 5});
  const uint8_t unknown[] = {1, 2, 3};
  w.raw(0x42, unknown, sizeof unknown);
  w.thread(1, 4243, 0x7f0012345678ull, 1050000000ull, "");
  w.thread_end(1, 1060000000ull);
  w.end(1070000000ull, wire::kEndShutdown);

  const std::vector<uint8_t> expected = testing::read_hex_fixture("basic.hex");
  ASSERT_GT(expected.size(), 100u) << "fixture not found or empty";
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], expected[i]) << "first difference at byte " << i;
}

TEST(WireWriter, EncodesTheSuspensionFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{7, 3, 2000000000ull, 1700000000500000000ull, 10000000, 64, "10.0.12", "0.1.0"});
  w.suspension(SuspensionRecord{2100000000ull, 1234567, 45678, 1, 0, 0});
  w.suspension(SuspensionRecord{2200000000ull, 8765432, 12345, 1, 2, wire::kSuspensionInduced});
  w.suspension(SuspensionRecord{2300000000ull, 55000, 50000, 9, -1, 0});
  w.suspension(SuspensionRecord{2400000000ull, 0, 0, 1, -1, wire::kSuspensionAborted});
  w.end(2500000000ull, wire::kEndDetach);
  const std::vector<uint8_t> expected = testing::read_hex_fixture("suspensions.hex");
  ASSERT_GT(expected.size(), 50u) << "fixture not found or empty";
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], expected[i]) << "first difference at byte " << i;
}

TEST(WireWriter, SampleSizeMatchesWhatSampleWrites) {
  ByteBuffer out;
  WireWriter w(&out);
  const uint32_t frames[7] = {1, 2, 3, 4, 5, 6, 7};
  w.sample(1, 2, 3, 4, 5, frames, 7);
  EXPECT_EQ(out.size(), WireWriter::sample_size(7));
  // length field = bytes after itself
  EXPECT_EQ(out[0] | (out[1] << 8), static_cast<int>(out.size() - 4));
}

TEST(WireWriter, TruncatesLongStringsOnACharacterBoundary) {
  std::string s(wire::kMaxString - 1, 'a');
  s += "\xC3\xA9";  // a two-byte character straddling the limit
  EXPECT_EQ(utf8_prefix(s, wire::kMaxString), wire::kMaxString - 1);
  ByteBuffer out;
  WireWriter w(&out);
  w.function(1, wire::kManaged, s, "", "");
  const uint32_t len = out[10] | (out[11] << 8) | (out[12] << 16) | (static_cast<uint32_t>(out[13]) << 24);
  EXPECT_EQ(len, wire::kMaxString - 1);
}

}  // namespace
}  // namespace clrscope
