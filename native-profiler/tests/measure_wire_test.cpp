#include "core/measure_wire.h"

#include <gtest/gtest.h>

#include "tests/fixture_bytes.h"

namespace clrscope {
namespace measure_wire {
namespace {

// The entries of fixtures/measure.hex: u8 type, u32 body length, body.
std::vector<std::pair<uint8_t, Bytes>> fixture_entries() {
  const std::vector<uint8_t> all = testing::read_hex_fixture("measure.hex");
  std::vector<std::pair<uint8_t, Bytes>> out;
  size_t at = 0;
  while (at + 5 <= all.size()) {
    const uint32_t n = all[at + 1] | (all[at + 2] << 8) | (all[at + 3] << 16) | (static_cast<uint32_t>(all[at + 4]) << 24);
    out.emplace_back(all[at], Bytes(all.begin() + static_cast<std::ptrdiff_t>(at + 5),
                                    all.begin() + static_cast<std::ptrdiff_t>(at + 5 + n)));
    at += 5 + n;
  }
  EXPECT_EQ(at, all.size());
  return out;
}

TEST(MeasureWire, EncodesTheSharedFixtureByteForByte) {
  const auto entries = fixture_entries();
  ASSERT_EQ(entries.size(), 6u);
  Bytes body;
  control_ready_body(&body);
  EXPECT_EQ(entries[0].first, kControlReady);
  EXPECT_EQ(entries[0].second, body);
  method_body({1, 7, kActive, kGeneric, "Measure.Target.B", "Measure.dll", ""}, &body);
  EXPECT_EQ(entries[1].first, kMeasureMethod);
  EXPECT_EQ(entries[1].second, body);
  method_body({2, 7, kRefused, 0, "Measure.Target.Tail", "Measure.dll",
               "it makes an explicit tail call (tail. prefix), which cannot be made from inside a protected block"},
              &body);
  EXPECT_EQ(entries[2].second, body);
  method_body({3, 0, kPending, kAsyncSynchronousPart, "Measure.\xC3\x9Cn\xC3\xAF" "code.M\xC3\xA9thode", "Measure.dll",
               "async method: measures the synchronous part"},
              &body);
  EXPECT_EQ(entries[3].second, body);
  measure::Figures f;
  f.calls = 3000;
  f.exceptions = 100;
  f.total_ns = 45000000;
  f.max_ns = 900000;
  f.buckets = {{270, 2000}, {271, 900}, {300, 100}};
  f.threads = {{4243, 2000, 60, 30000000}, {4244, 1000, 40, 15000000}};
  figures_body(3000000000ull, 1, 0, f, &body);
  EXPECT_EQ(entries[4].first, kMeasureFigures);
  EXPECT_EQ(entries[4].second, body);
  reply_body(7, kReplyOk, 2, "2 methods match Measure.Target.*", &body);
  EXPECT_EQ(entries[5].first, kMeasureReply);
  EXPECT_EQ(entries[5].second, body);
}

void expect_fixture_commands(const std::vector<Command>& got) {
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].type, kCommandMeasure);
  EXPECT_EQ(got[0].request, 7u);
  EXPECT_EQ(got[0].pattern, "Measure.Target.*");
  EXPECT_EQ(got[1].pattern, "Measure.Target+Inner..ctor");
  EXPECT_EQ(got[1].request, 8u);
  EXPECT_EQ(got[2].type, kCommandRevert);
  EXPECT_EQ(got[2].request, 9u);
  EXPECT_EQ(got[2].measure_id, 2u);
  EXPECT_EQ(got[3].measure_id, 0u);
  EXPECT_EQ(got[4].type, 0x7E);
  EXPECT_EQ(got[4].request, 11u);
}

TEST(MeasureWire, ReadsTheSharedCommandFixtureInAnyChunks) {
  const std::vector<uint8_t> bytes = testing::read_hex_fixture("control.hex");
  ASSERT_GT(bytes.size(), 40u);
  {
    CommandReader reader;
    std::vector<Command> got;
    ASSERT_TRUE(reader.push(bytes.data(), bytes.size(), &got));
    expect_fixture_commands(got);
  }
  for (size_t chunk : {1u, 3u, 7u}) {
    CommandReader reader;
    std::vector<Command> got;
    for (size_t at = 0; at < bytes.size(); at += chunk) {
      ASSERT_TRUE(reader.push(bytes.data() + at, std::min(chunk, bytes.size() - at), &got));
    }
    expect_fixture_commands(got);
  }
}

TEST(MeasureWire, StopsReadingACorruptCommandStream) {
  CommandReader reader;
  std::vector<Command> got;
  const uint8_t zero_length[] = {0, 0, 0, 0, 1};
  EXPECT_FALSE(reader.push(zero_length, sizeof zero_length, &got));
  EXPECT_TRUE(reader.corrupt());
  const std::vector<uint8_t> good = testing::read_hex_fixture("control.hex");
  EXPECT_FALSE(reader.push(good.data(), good.size(), &got));
  EXPECT_TRUE(got.empty());
  CommandReader short_body;
  const uint8_t revert_without_id[] = {5, 0, 0, 0, kCommandRevert, 9, 0, 0, 0};
  EXPECT_FALSE(short_body.push(revert_without_id, sizeof revert_without_id, &got));
  CommandReader too_long;
  const uint8_t huge[] = {0x01, 0x00, 0x01, 0x00, 1};
  EXPECT_FALSE(too_long.push(huge, sizeof huge, &got));
}

}  // namespace
}  // namespace measure_wire
}  // namespace clrscope
