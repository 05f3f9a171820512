#include "core/wire_writer.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "tests/fixture_bytes.h"
#include "tests/wire_reader.h"

namespace clrscope {
namespace {

template <typename Bytes>
void expect_bytes(const Bytes& out, const std::vector<uint8_t>& expected) {
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], expected[i]) << "first difference at byte " << i;
}

// The same records as structs/wire/fixtures/basic-v2.json, written by the C++ encoder; the TS
// encoder and decoder are tested against the very same bytes. The writer interns the stacks
// itself, so the STACK records come out where the fixture has them: before first use.
TEST(WireWriter, EncodesTheSharedV2FixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{4242, 3, 1000000000ull, 1700000000000000000ull, 10000000, 64, "10.0.12", "0.2.0"});
  w.thread(1, 4243, 0x7f0012345678ull, 1000000100ull, "worker-a");
  w.thread(2, 4244, 0x7f0012345700ull, 1000000200ull, "worker-b");
  const uint8_t mvid[16] = {0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0};
  w.module(1, wire::kModuleManaged, mvid, "/app/Demo.dll");
  w.module(2, wire::kModuleNative, nullptr, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  w.function(1, wire::kManaged, 1, 0x06000001, "Demo.Work.Hot", "");
  w.function(2, wire::kNative, 2, 0, "start_thread", "");
  w.function(3, wire::kSynthetic, 0, 0, "[frames elided]", "");
  w.function(4, wire::kManaged, 1, 0x06000002, "Demo.\xC3\x9Cn\xC3\xAF" "code+Nested<System.Int32>.M\xC3\xA9thode",
             "Program.cs");
  for (uint32_t i = 1; i <= 4; ++i) w.frame(i, i, wire::kOffsetNone, 0);
  w.frame(5, 1, wire::kOffsetIL, 0x1c);
  const uint32_t a[] = {1, 4, 2};
  const uint32_t b[] = {5, 4, 2};
  const uint32_t c[] = {1, 3, 2};
  w.sample(1010000000ull, 1, wire::kSampleCpu | wire::kSampleWall, 9876543, 10000000, a, 3);
  w.sample(1010000000ull, 2, wire::kSampleWall, 0, 10000000, b, 3);
  w.sample(1020000000ull, 1, wire::kSampleWall, 0, 10000000, a, 3);
  w.sample(1020000000ull, 1, wire::kSampleCpu | wire::kSampleElided, 10000000, 0, c, 3);
  w.sample(1030000500ull, 2, wire::kSampleWall | wire::kSampleIncomplete, 0, 20000000, nullptr, 0);
  w.sample(1030000500ull, 2, wire::kSampleCpu | wire::kSampleIncomplete, 5000, 0, nullptr, 0);
  w.string(1, "System.Byte[]");
  w.string(2, "System.InvalidOperationException");
  EventRecord alloc;
  alloc.kind = wire::kEventAllocation;
  alloc.mono = 1031000000ull;
  alloc.thread_id = 1;
  alloc.label_id = 1;
  alloc.value1 = 102400;
  alloc.value2 = 3;
  alloc.has_value2 = true;
  w.event(alloc, a, 3, true);
  EventRecord thrown;
  thrown.kind = wire::kEventException;
  thrown.mono = 1032000000ull;
  thrown.thread_id = 2;
  thrown.stack_flags = wire::kSampleIncomplete;
  thrown.label_id = 2;
  thrown.value1 = 1;
  w.event(thrown, nullptr, 0, true);
  EventRecord waited;
  waited.kind = wire::kEventContention;
  waited.mono = 1033000000ull;
  waited.thread_id = 1;
  waited.value1 = 250000;
  w.event(waited, nullptr, 0, false);
  w.reset_stacks();
  w.sample(1040000000ull, 1, wire::kSampleCpu, 10000000, 0, b, 3);
  w.stats(StatsRecord{1040000001ull, 7, 1, 2, 0, 5});
  const uint8_t unknown[] = {1, 2, 3};
  w.raw(0x42, unknown, sizeof unknown);
  w.thread(1, 4243, 0x7f0012345678ull, 1050000000ull, "");
  w.thread_end(1, 1060000000ull);
  w.thread_end(2, 1060000001ull);
  w.end(1070000000ull, wire::kEndDetach);

  const std::vector<uint8_t> expected = testing::read_hex_fixture("basic-v2.hex");
  ASSERT_GT(expected.size(), 500u) << "fixture not found or empty";
  expect_bytes(out, expected);
}

// STATS with clrscope's own cost appended (PROTOCOL.md, STATS): signalLostMono then goes as 0.
TEST(WireWriter, EncodesTheStatsCostFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{7, 3, 1000000000ull, 1700000000000000000ull, 10000000, 64, "10.0.12", "0.4.0"});
  StatsRecord st{1500000000ull, 7, 1, 2, 0, 5};
  st.has_cost = true;
  st.process_cpu_ns = 2000000000ull;
  st.handler_ns = 11000000;
  st.callbacks_ns = 2000000;
  st.runtime_events_ns = 3000000;
  st.event_stacks_ns = 4000000;
  st.symbols_ns = 5000000;
  st.writer_ns = 6000000;
  st.sampler_ns = 7000000;
  w.stats(st);
  w.end(1600000000ull, wire::kEndShutdown);
  const std::vector<uint8_t> expected = testing::read_hex_fixture("stats-cost-v2.hex");
  ASSERT_GT(expected.size(), 150u) << "fixture not found or empty";
  expect_bytes(out, expected);
  const testing::ReadStream s = testing::read_stream(expected);
  EXPECT_EQ(s.stats_signal_lost_mono, 0u);
  const std::vector<uint64_t> cost = {2000000000ull, 11000000, 2000000, 3000000, 4000000, 5000000, 6000000, 7000000};
  EXPECT_EQ(s.stats_cost, cost);
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
  const std::vector<uint8_t> expected = testing::read_hex_fixture("suspensions-v2.hex");
  ASSERT_GT(expected.size(), 50u) << "fixture not found or empty";
  expect_bytes(out, expected);
}

// The v1 fixture is what profilers before wire v2 sent: the test reader (like the product's
// decoder) still reads it.
TEST(WireReader, ReadsTheV1Fixture) {
  const testing::ReadStream s = testing::read_stream(testing::read_hex_fixture("basic.hex"));
  EXPECT_EQ(s.version, 1);
  EXPECT_EQ(s.pid, 4242u);
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[0].frames, (std::vector<uint32_t>{1, 4, 2}));
  EXPECT_EQ(s.samples[0].cpu_ns, 9876543u);
  EXPECT_EQ(s.samples[1].flags, wire::kSampleWall | wire::kSampleIncomplete);
  EXPECT_TRUE(s.samples[1].frames.empty());
  EXPECT_EQ(s.functions.at(2).module, "libc.so.6");
  EXPECT_TRUE(s.stack_has(s.samples[2], "[frames elided]"));
  EXPECT_EQ(s.stats_samples, 3u);
  EXPECT_TRUE(s.ended);
}

TEST(WireReader, ReadsTheV2FixtureAsItsJsonSays) {
  const testing::ReadStream s = testing::read_stream(testing::read_hex_fixture("basic-v2.hex"));
  EXPECT_EQ(s.version, 2);
  ASSERT_EQ(s.samples.size(), 7u);
  const auto& s0 = s.samples[0];
  EXPECT_EQ(s0.mono, 1010000000u);
  EXPECT_EQ(s0.thread_id, 1u);
  EXPECT_EQ(s0.cpu_ns, 9876543u);
  EXPECT_EQ(s0.wall_ns, 10000000u);
  EXPECT_EQ(s0.frames, (std::vector<uint32_t>{1, 4, 2}));
  EXPECT_EQ(s.samples[1].frames, (std::vector<uint32_t>{5, 4, 2}));
  EXPECT_EQ(s.samples[2].wall_ns, 10000000u);
  EXPECT_EQ(s.samples[3].flags, wire::kSampleCpu | wire::kSampleElided);
  EXPECT_EQ(s.samples[4].wall_ns, 20000000u);
  EXPECT_EQ(s.samples[4].flags, wire::kSampleWall | wire::kSampleIncomplete);
  EXPECT_EQ(s.samples[5].cpu_ns, 5000u);
  EXPECT_EQ(s.samples[6].frames, (std::vector<uint32_t>{5, 4, 2}));
  EXPECT_EQ(s.samples[6].stack_id, 1u);
  EXPECT_EQ(s.stack_resets, 1u);
  EXPECT_EQ(s.stack_definitions, 5u);
  EXPECT_TRUE(s.stack_has(s.samples[1], "Demo.Work.Hot"));  // frame 5 is function 1 at an IL offset
  EXPECT_EQ(s.frames.at(5).offset_kind, wire::kOffsetIL);
  EXPECT_EQ(s.frames.at(5).offset, 0x1cu);
  EXPECT_EQ(s.functions.at(2).module, "libc.so.6");
  EXPECT_EQ(s.functions.at(4).token, 0x06000002u);
  EXPECT_EQ(s.modules.at(1).mvid[15], 0xf0);
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.events[0].value1, 102400u);
  EXPECT_EQ(s.events[0].value2, 3u);
  EXPECT_EQ(s.strings.at(s.events[1].label_id), "System.InvalidOperationException");
  EXPECT_TRUE(s.events[1].frames.empty());
  EXPECT_EQ(s.events[2].stack_id, 0u);
  EXPECT_EQ(s.events[2].mono, 1033000000u);
  EXPECT_EQ(s.end_reason, wire::kEndDetach);
}

// Async call stacks: TASK definitions go out ahead of the open SAMPLES record, the marks of the
// samples that ran a task follow it as TASK_SAMPLES, and a task defined again closes the record
// first (so its earlier samples keep the chain they had).
TEST(WireWriter, EncodesTheAsyncFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{4242, wire::kHelloCpu | wire::kHelloWall | wire::kHelloAsync, 1000000000ull, 1700000000000000000ull,
                      10000000, 64, "10.0.12", "0.3.0"});
  w.thread(1, 4243, 0x1000, 1000000100ull, "pool");
  w.function(1, wire::kManaged, 0, 0x06000003, "Demo.Program+<Inner>d__2.MoveNext", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  w.string(1, "<Inner>d__2");
  w.string(2, "<Middle>d__1");
  w.string(3, "<Outer>d__0");
  w.task(3, 0, 3, false);
  w.task(5, 3, 2, false);
  w.task(7, 5, 1, false);
  const uint32_t f[] = {1};
  w.sample(1010000000ull, 1, wire::kSampleCpu, 10000000, 0, f, 1, 7);
  w.sample(1020000000ull, 1, wire::kSampleCpu, 10000000, 0, f, 1, 0);
  w.sample(1030000000ull, 1, wire::kSampleCpu, 10000000, 0, f, 1, 7);
  w.task(7, 3, 1, true);
  w.sample(1040000000ull, 1, wire::kSampleCpu, 10000000, 0, f, 1, 7);
  w.end(1050000000ull, wire::kEndShutdown);
  const std::vector<uint8_t> expected = testing::read_hex_fixture("async-v2.hex");
  ASSERT_GT(expected.size(), 200u) << "fixture not found or empty";
  expect_bytes(out, expected);
}

TEST(WireReader, ReadsTheAsyncFixtureWithEachSamplesTask) {
  const testing::ReadStream s = testing::read_stream(testing::read_hex_fixture("async-v2.hex"));
  EXPECT_EQ(s.hello_flags & wire::kHelloAsync, wire::kHelloAsync);
  ASSERT_EQ(s.samples.size(), 4u);
  EXPECT_EQ(s.samples[0].task, 7u);
  EXPECT_EQ(s.samples[1].task, 0u);
  EXPECT_EQ(s.samples[2].task, 7u);
  EXPECT_EQ(s.samples[3].task, 7u);
  EXPECT_EQ(s.task_records, 4u);
  EXPECT_EQ(s.task_sample_records, 2u);
  EXPECT_EQ(s.tasks.at(7).awaiter, 3u);  // the latest definition
  EXPECT_EQ(s.strings.at(s.tasks.at(5).name_id), "<Middle>d__1");
}

// Suspended operations (PROTOCOL.md, "Suspended operations"): the [async operations] thread's
// wall samples, each marked with an operation's task and how many operations are still suspended
// where it says (OPERATION_COUNTS, right behind TASK_SAMPLES); a sample whose operations all went
// on during the tick has no count.
void write_operations_fixture(WireWriter& w) {
  w.preamble();
  w.hello(HelloRecord{4242, wire::kHelloCpu | wire::kHelloWall | wire::kHelloAsync, 1000000000ull, 1700000000000000000ull,
                      10000000, 64, "10.0.12", "0.4.0"});
  w.thread(1, 0, 0, 1000000100ull, "[async operations]");
  w.function(1, wire::kSynthetic, 0, 0, "[suspended]", "");
  w.function(2, wire::kSynthetic, 0, 0, "[awaiting Task.Delay]", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  w.frame(2, 2, wire::kOffsetNone, 0);
  w.string(1, "<Service>d__1");
  w.string(2, "<Handler>d__0");
  w.task(3, 0, 2, false);
  w.task(5, 3, 1, false);
  w.task(9, 0, 2, false);
  const uint32_t delay[] = {2, 1};
  const uint32_t bare[] = {1};
  w.sample(1010000000ull, 1, wire::kSampleWall, 0, 30000000, delay, 2, 5, 3);
  w.sample(1010000000ull, 1, wire::kSampleWall, 0, 7000000, bare, 1, 9, 0);
  w.close_batch();
  w.sample(1020000000ull, 1, wire::kSampleWall, 0, 20000000, delay, 2, 5, 2);
  w.end(1030000000ull, wire::kEndShutdown);
}

TEST(WireWriter, EncodesTheOperationsFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  write_operations_fixture(w);
  const std::vector<uint8_t> expected = testing::read_hex_fixture("operations-v2.hex");
  if (std::getenv("CLRSCOPE_DUMP_FIXTURE") != nullptr) {
    for (size_t i = 0; i < out.size(); ++i) std::printf("%02x%s", out[i], i % 16 == 15 ? "\n" : " ");
    std::printf("\n");
  }
  ASSERT_GT(expected.size(), 150u) << "fixture not found or empty";
  expect_bytes(out, expected);
}

TEST(WireReader, ReadsTheOperationsFixtureWithEachSamplesCount) {
  const testing::ReadStream s = testing::read_stream(testing::read_hex_fixture("operations-v2.hex"));
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[0].task, 5u);
  EXPECT_EQ(s.samples[0].operations, 3u);
  EXPECT_EQ(s.samples[1].task, 9u);
  EXPECT_EQ(s.samples[1].operations, 0u);
  EXPECT_EQ(s.samples[2].operations, 2u);
  EXPECT_EQ(s.thread_names.at(1), "[async operations]");
}

// A stream with async stacks on, one thread and frame 1 ("Burn"), for the request marks' tests.
void begin_burn_stream(WireWriter& w) {
  w.preamble();
  w.hello(HelloRecord{4242, wire::kHelloCpu | wire::kHelloAsync, 1000000000ull, 1700000000000000000ull, 10000000, 64,
                      "10.0.12", "0.4.0"});
  w.thread(1, 0, 0, 1000000100ull, "worker");
  w.function(1, wire::kSynthetic, 0, 0, "Burn", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
}

// Which request a sample was taken in (REQUEST_SAMPLES) goes right behind its SAMPLES record,
// after the TASK_SAMPLES of the same samples, and only for the samples that have one.
TEST(WireWriter, MarksSamplesWithTheirRequestBehindTheirTasks) {
  ByteBuffer out;
  WireWriter w(&out);
  begin_burn_stream(w);
  w.string(1, "<Handler>d__0");
  w.task(3, 0, 1, false);
  const uint32_t burn[] = {1};
  w.sample(1010000000ull, 1, wire::kSampleCpu, 10000000, 0, burn, 1, 3, 0, 7);
  w.sample(1020000000ull, 1, wire::kSampleCpu, 10000000, 0, burn, 1, 0, 0, 0);
  w.sample(1030000000ull, 1, wire::kSampleCpu, 10000000, 0, burn, 1, 0, 0, 8);
  w.close_batch();
  w.end(1040000000ull, wire::kEndShutdown);
  const testing::ReadStream s = testing::read_stream(std::vector<uint8_t>(out.begin(), out.end()));
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[0].task, 3u);
  EXPECT_EQ(s.samples[0].request, 7u);
  EXPECT_EQ(s.samples[1].request, 0u);
  EXPECT_EQ(s.samples[2].request, 8u);
}

// A request begun outside any async chain names, when it ends, samples sent before in any SAMPLES
// record (REQUEST_BACKFILL), counting back from the latest.
TEST(WireWriter, BackfillsARequestsEarlierSamplesByHowFarBackTheyAre) {
  ByteBuffer out;
  WireWriter w(&out);
  begin_burn_stream(w);
  const uint32_t burn[] = {1};
  for (uint64_t i = 0; i < 4; ++i) w.sample(1010000000ull + i, 1, wire::kSampleCpu, 10000000, 0, burn, 1);
  EXPECT_EQ(w.samples_written(), 4u);
  const uint64_t owned[] = {2, 4};
  w.request_backfill(5, owned, 2);  // closes the open SAMPLES record first
  w.sample(1020000000ull, 1, wire::kSampleCpu, 10000000, 0, burn, 1, 0, 0, 6);
  w.close_batch();
  w.end(1040000000ull, wire::kEndShutdown);
  const std::vector<uint8_t> bytes(out.begin(), out.end());
  // The record's bytes, as request-backfill.test.ts has the TypeScript writer make them.
  const uint8_t record[] = {7, 0, 0, 0, wire::kRequestBackfill, 5, 0, 0, 0, 3, 1};
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), std::begin(record), std::end(record)), bytes.end());
  const testing::ReadStream s = testing::read_stream(bytes);
  ASSERT_EQ(s.samples.size(), 5u);
  EXPECT_EQ(s.samples[0].request, 0u);
  EXPECT_EQ(s.samples[1].request, 5u);
  EXPECT_EQ(s.samples[2].request, 0u);
  EXPECT_EQ(s.samples[3].request, 5u);
  EXPECT_EQ(s.samples[4].request, 6u);
}

// Exception messages: a message's STRING goes out ahead of the open EVENTS record, and which
// event has which message follows that record as EVENT_MESSAGES (structs/wire/fixtures).
void write_event_messages_fixture(WireWriter& w) {
  w.preamble();
  w.hello(HelloRecord{4242, wire::kHelloCpu | wire::kHelloWall, 1000000000ull, 1700000000000000000ull, 10000000, 64,
                      "10.0.12", "0.3.0"});
  w.thread(1, 4243, 0x1000, 1000000100ull, "throw-mix");
  w.function(1, wire::kManaged, 0, 0x06000004, "Demo.ThrowMix.Argument", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  w.string(1, "System.ArgumentException");
  w.string(2, "clrscope test");
  const uint32_t f[] = {1};
  EventRecord e;
  e.kind = wire::kEventException;
  e.mono = 1010000000ull;
  e.thread_id = 1;
  e.label_id = 1;
  e.value1 = 1;
  e.message_id = 2;
  w.event(e, f, 1, true);
  e.mono = 1020000000ull;
  e.message_id = 0;  // no message (a null _message)
  w.event(e, f, 1, true);
  w.string(3, "key \xC3\xA9 7");
  e.mono = 1030000000ull;
  e.message_id = 3;
  w.event(e, f, 1, true);
  EventRecord counted;  // over the stack budget: counted by type, no stack, no message
  counted.kind = wire::kEventException;
  counted.mono = 1040000000ull;
  counted.label_id = 1;
  counted.value1 = 5;
  w.event(counted, nullptr, 0, false);
  w.end(1050000000ull, wire::kEndShutdown);
}

TEST(WireWriter, EncodesTheEventMessagesFixtureByteForByte) {
  ByteBuffer out;
  WireWriter w(&out);
  write_event_messages_fixture(w);
  const std::vector<uint8_t> expected = testing::read_hex_fixture("event-messages-v2.hex");
  ASSERT_GT(expected.size(), 100u) << "fixture not found or empty";
  expect_bytes(out, expected);
}

TEST(WireReader, ReadsTheEventMessagesFixtureWithEachEventsMessage) {
  const testing::ReadStream s = testing::read_stream(testing::read_hex_fixture("event-messages-v2.hex"));
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_EQ(s.strings.at(s.events[0].message_id), "clrscope test");
  EXPECT_EQ(s.events[1].message_id, 0u);
  EXPECT_EQ(s.strings.at(s.events[2].message_id), "key \xC3\xA9 7");
  EXPECT_EQ(s.events[3].message_id, 0u);
  EXPECT_EQ(s.events[3].value1, 5u);
  EXPECT_EQ(s.event_message_records, 1u);
}

// Messages index the events of their own EVENTS record, which the writer may close at any event
// (16 KiB, another record, a send): every message must still land on its event.
TEST(WireWriter, EventMessagesFollowTheirRecordAcrossBatchBoundaries) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{1, 3, 1, 1, 10000000, 64, "10.0.12", "0.3.0"});
  w.thread(1, 2, 0x1000, 1, "t");
  w.function(1, wire::kManaged, 0, 0x06000001, "M", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  w.string(1, "System.Exception");
  w.string(2, "even");
  const uint32_t f[] = {1};
  for (uint32_t i = 0; i < 5000; ++i) {
    EventRecord e;
    e.kind = wire::kEventException;
    e.mono = 1000 + i;
    e.thread_id = 1;
    e.label_id = 1;
    e.value1 = 1;
    e.message_id = i % 2 == 0 ? 2 : 0;
    w.event(e, f, 1, true);
    if (i % 777 == 0) w.close_batch();
  }
  w.end(100000, wire::kEndShutdown);
  const testing::ReadStream s = testing::read_stream(std::vector<uint8_t>(out.begin(), out.end()));
  ASSERT_EQ(s.events.size(), 5000u);
  for (size_t i = 0; i < s.events.size(); ++i) ASSERT_EQ(s.events[i].message_id, i % 2 == 0 ? 2u : 0u) << "event " << i;
  EXPECT_GT(s.event_message_records, 2u);
}

// Marks index the samples of their own SAMPLES record, which the writer may close at any sample
// (16 KiB, another record, a send): every mark must still land on its sample.
TEST(WireWriter, TaskMarksFollowTheirRecordAcrossBatchBoundaries) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{1, 3, 1, 1, 1, 1, "", ""});
  w.thread(1, 1, 1, 1, "t");
  w.function(1, wire::kSynthetic, 0, 0, "f", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  w.task(11, 0, 0, false);
  w.task(12, 11, 0, false);
  const uint32_t f[] = {1};
  const uint32_t total = 20000;
  for (uint32_t i = 0; i < total; ++i) {
    w.sample(100 + i * 1000003ull, 1, wire::kSampleCpu | wire::kSampleWall, 1000 + i, 77 * i, f, 1, i % 3 == 0 ? 0 : 11 + i % 2);
    if (i % 4999 == 0) w.close_batch();
    if (i % 7001 == 0) w.stats(StatsRecord{i, i, 0, 0, 0, 0});
  }
  w.end(1ull << 40, wire::kEndShutdown);
  const testing::ReadStream s = testing::read_stream(out);
  ASSERT_EQ(s.samples.size(), total);
  EXPECT_GT(s.samples_records, 3u);
  for (uint32_t i = 0; i < total; ++i) ASSERT_EQ(s.samples[i].task, i % 3 == 0 ? 0u : 11 + i % 2) << "sample " << i;
}

TEST(WireWriter, SampleSizeBoundsWhatASampleAdds) {
  ByteBuffer out;
  WireWriter w(&out);
  uint32_t frames[40];
  uint64_t mono = 1;
  for (uint32_t i = 0; i < 200; ++i) {
    const uint16_t n = static_cast<uint16_t>(i % 40);
    for (uint16_t k = 0; k < n; ++k) frames[k] = 0xFFFFFFF0u - k * 7919u - i;  // largest varints
    const size_t before = out.size();
    mono += (i % 3 == 0) ? 0 : 0x7FFFFFFFFFFFull;
    w.sample(mono, 0xFFFFFFF0u - i * 3, wire::kSampleCpu | wire::kSampleWall, ~0ull >> 1, ~0ull >> 2, frames, n);
    EXPECT_LE(out.size() - before, WireWriter::sample_size(n)) << "sample " << i;
  }
}

TEST(WireWriter, ClosesTheSamplesRecordBeforeAnyOtherRecordAndOnRequest) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{1, 3, 1, 1, 1, 1, "", ""});
  w.thread(1, 1, 1, 1, "t");
  w.function(1, wire::kSynthetic, 0, 0, "f", "");
  w.frame(1, 1, wire::kOffsetNone, 0);
  const uint32_t f[] = {1};
  for (int i = 0; i < 10; ++i) w.sample(100 + i, 1, wire::kSampleCpu, 10, 0, f, 1);
  w.close_batch();
  const size_t closed = out.size();
  w.close_batch();  // nothing open: no change
  EXPECT_EQ(out.size(), closed);
  testing::ReadStream s = testing::read_stream(out);
  EXPECT_EQ(s.samples.size(), 10u);
  EXPECT_EQ(s.samples_records, 1u);
  // After a close, the next sample opens a new record and keeps the stream's delta state.
  w.sample(200, 1, wire::kSampleCpu, 10, 0, f, 1);
  w.end(300, wire::kEndShutdown);
  s = testing::read_stream(out);
  ASSERT_EQ(s.samples.size(), 11u);
  EXPECT_EQ(s.samples_records, 2u);
  EXPECT_EQ(s.samples[10].mono, 200u);
  EXPECT_EQ(out.size() - closed, 5u + 4u + 5u + 9u);  // SAMPLES: head, mono delta 2 bytes, cpu; END
}

TEST(WireWriter, ResetsTheStackTableWhenFullAndTheReaderFollows) {
  ByteBuffer out;
  WireWriter w(&out);
  w.preamble();
  w.hello(HelloRecord{1, 3, 1, 1, 1, 1, "", ""});
  w.thread(1, 1, 1, 1, "t");
  for (uint32_t i = 1; i <= 3; ++i) {
    w.function(i, wire::kSynthetic, 0, 0, "f" + std::to_string(i), "");
    w.frame(i, i, wire::kOffsetNone, 0);
  }
  // More distinct stacks than the table holds: each one frames [1..3 pattern] of its own length
  // mix, so ids cannot be reused without a reset.
  const uint32_t total = StackTable::kMaxStacks + 100;
  std::vector<uint32_t> frames;
  for (uint32_t i = 0; i < total; ++i) {
    frames.clear();
    uint32_t v = i;
    do {
      frames.push_back(1 + v % 3);
      v /= 3;
    } while (v != 0);
    w.sample(1000 + i, 1, wire::kSampleCpu, 1, 0, frames.data(), static_cast<uint16_t>(frames.size()));
  }
  w.end(1u << 30, wire::kEndShutdown);
  const testing::ReadStream s = testing::read_stream(out);
  EXPECT_EQ(s.stack_resets, 1u);
  ASSERT_EQ(s.samples.size(), total);
  for (uint32_t i = 0; i < total; i += 997) {
    uint32_t v = i;
    std::vector<uint32_t> expected;
    do {
      expected.push_back(1 + v % 3);
      v /= 3;
    } while (v != 0);
    ASSERT_EQ(s.samples[i].frames, expected) << "sample " << i;
  }
  EXPECT_LE(w.stacks().allocated_bytes(), StackTable::kMaxBytes);
}

TEST(WireWriter, TruncatesLongStringsOnACharacterBoundary) {
  std::string s(wire::kMaxString - 1, 'a');
  s += "\xC3\xA9";  // a two-byte character straddling the limit
  EXPECT_EQ(utf8_prefix(s, wire::kMaxString), wire::kMaxString - 1);
  ByteBuffer out;
  WireWriter w(&out);
  w.function(1, wire::kManaged, 0, 0, s, "");
  // length, type, id, kind, module id, token, then the name's length
  const uint32_t len = out[18] | (out[19] << 8) | (out[20] << 16) | (static_cast<uint32_t>(out[21]) << 24);
  EXPECT_EQ(len, wire::kMaxString - 1);
}

// END of a lost connection, byte for byte (the same bytes as structs/wire/encoder.test.ts): the
// descriptor and how it was lost appended after the reason; any other END keeps its 9 bytes.
TEST(WireWriter, AppendsTheLostDescriptorToEnd) {
  ByteBuffer out;
  WireWriter w(&out);
  w.end(1000, wire::kEndConnectionLost, 803, 2);
  const std::vector<uint8_t> expected = {0x0f, 0x00, 0x00, 0x00, 0x7f, 0xe8, 0x03, 0x00, 0x00, 0x00, 0x00,
                                         0x00, 0x00, 0x04, 0x23, 0x03, 0x00, 0x00, 0x02};
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), expected);
  ByteBuffer plain;
  WireWriter p(&plain);
  p.end(1000, wire::kEndShutdown);
  EXPECT_EQ(plain.size(), 14u);
}

// POOL_GAUGE byte for byte (the same bytes as structs/wire/timeline/timeline-kinds.test.ts).
TEST(WireWriter, EncodesThePoolGauge) {
  ByteBuffer out;
  WireWriter w(&out);
  w.pool_gauge(0x0102030405ull, 12, 300, 70000);
  const std::vector<uint8_t> expected = {25,   0, 0, 0, 0x19, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 12, 0, 0, 0,
                                         0x2c, 1, 0, 0, 0x70, 0x11, 0x01, 0,    0,    0,    0, 0};
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), expected);
}

}  // namespace
}  // namespace clrscope
