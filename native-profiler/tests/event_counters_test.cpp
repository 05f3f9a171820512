#include "core/event_counters.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/counters_block.h"
#include "core/runtime_event_payloads.h"

namespace clrscope {
namespace {

struct Bytes {
  std::vector<uint8_t> b;
  template <typename T>
  Bytes& put(T v) {
    uint8_t raw[sizeof v];
    std::memcpy(raw, &v, sizeof v);
    b.insert(b.end(), raw, raw + sizeof v);
    return *this;
  }
  Bytes& str(const std::string& s) {
    for (char c : s) put<uint16_t>(static_cast<uint16_t>(c));
    return put<uint16_t>(0);
  }
};

constexpr int32_t kObject = 1, kInt32 = 9, kSingle = 13, kDouble = 14, kString = 18;

// The metadata .NET 10 gives an EventCounters event: header, then one unnamed object holding
// the object "Payload" with the counter's fields (`fields`: type and name in payload order).
std::vector<uint8_t> metadata(const std::vector<std::pair<int32_t, std::string>>& fields) {
  Bytes m;
  m.put<uint32_t>(0).str("EventCounters").put<uint64_t>(0).put<uint32_t>(0).put<uint32_t>(0);
  m.put<int32_t>(1).put<int32_t>(kObject);
  m.put<int32_t>(1).put<int32_t>(kObject);
  m.put<int32_t>(static_cast<int32_t>(fields.size()));
  for (const auto& [type, name] : fields) m.put<int32_t>(type).str(name);
  m.str("Payload").str("");
  return m.b;
}

const std::vector<std::pair<int32_t, std::string>> kMeanLayout = {
    {kString, "Name"}, {kString, "DisplayName"}, {kDouble, "Mean"}, {kDouble, "StandardDeviation"},
    {kInt32, "Count"}, {kDouble, "Min"}, {kDouble, "Max"}, {kSingle, "IntervalSec"}, {kString, "Series"},
    {kString, "CounterType"}, {kString, "Metadata"}, {kString, "DisplayUnits"}};
const std::vector<std::pair<int32_t, std::string>> kSumLayout = {
    {kString, "Name"}, {kString, "DisplayName"}, {kString, "DisplayRateTimeScale"}, {kDouble, "Increment"},
    {kSingle, "IntervalSec"}, {kString, "Metadata"}, {kString, "Series"}, {kString, "CounterType"},
    {kString, "DisplayUnits"}};

std::vector<uint8_t> mean_payload(const std::string& name, double mean, float interval) {
  Bytes d;
  d.str(name).str("Display").put(mean).put(0.0).put<int32_t>(1).put(mean).put(mean).put(interval);
  d.str("Interval=1000").str("Mean").str("").str("MB");
  return d.b;
}

std::vector<uint8_t> sum_payload(const std::string& name, double increment, float interval) {
  Bytes d;
  d.str(name).str("Display").str("00:00:01").put(increment).put(interval).str("").str("Interval=1000").str("Sum").str("B");
  return d.b;
}

TEST(EventCounters, ReadsMeanAndIncrementingCounters) {
  const std::vector<uint8_t> mm = metadata(kMeanLayout), sm = metadata(kSumLayout);
  const std::vector<uint8_t> md = mean_payload("threadpool-queue-length", 42.5, 1.0f);
  EventCounterReading r;
  ASSERT_TRUE(read_event_counter(mm.data(), mm.size(), md.data(), md.size(), &r));
  EXPECT_STREQ(r.name, "threadpool-queue-length");
  EXPECT_FALSE(r.sum);
  EXPECT_DOUBLE_EQ(r.value, 42.5);
  EXPECT_DOUBLE_EQ(r.interval_sec, 1.0);

  const std::vector<uint8_t> sd = sum_payload("alloc-rate", 123456789.0, 2.0f);
  ASSERT_TRUE(read_event_counter(sm.data(), sm.size(), sd.data(), sd.size(), &r));
  EXPECT_STREQ(r.name, "alloc-rate");
  EXPECT_TRUE(r.sum);
  EXPECT_DOUBLE_EQ(r.value, 123456789.0);
  EXPECT_DOUBLE_EQ(r.interval_sec, 2.0);
}

TEST(EventCounters, RefusesOtherEventsAndShortPayloads) {
  const std::vector<uint8_t> mm = metadata(kMeanLayout);
  const std::vector<uint8_t> md = mean_payload("cpu-usage", 3, 1.0f);
  EventCounterReading r;
  for (size_t cut = 0; cut < md.size(); ++cut) EXPECT_FALSE(read_event_counter(mm.data(), mm.size(), md.data(), cut, &r)) << cut;
  for (size_t cut = 0; cut < mm.size(); ++cut) EXPECT_FALSE(read_event_counter(mm.data(), cut, md.data(), md.size(), &r)) << cut;
  Bytes other;
  other.put<uint32_t>(0).str("GCHeapStats").put<uint64_t>(0).put<uint32_t>(0).put<uint32_t>(0).put<int32_t>(0);
  EXPECT_FALSE(read_event_counter(other.b.data(), other.b.size(), md.data(), md.size(), &r));
  EXPECT_FALSE(read_event_counter(nullptr, 0, md.data(), md.size(), &r));
}

TEST(EventCounters, AppliesRatesTotalsAndMegabytes) {
  RuntimeGauges g;
  const auto reading = [](const char* name, bool sum, double value, double interval) {
    EventCounterReading r;
    std::strncpy(r.name, name, sizeof r.name - 1);
    r.sum = sum;
    r.value = value;
    r.interval_sec = interval;
    return r;
  };
  EXPECT_FALSE(g.has(RuntimeGauges::kAllocRate));
  apply_event_counter(reading("alloc-rate", true, 2000000, 2), &g);
  apply_event_counter(reading("alloc-rate", true, 1000000, 1), &g);
  EXPECT_DOUBLE_EQ(g.value[RuntimeGauges::kAllocRate].load(), 1000000);
  EXPECT_EQ(g.allocated_bytes.load(), 3000000u);
  EXPECT_EQ(g.pool_intervals.load(), 0u);
  apply_event_counter(reading("threadpool-completed-items-count", true, 500, 0.5), &g);
  EXPECT_DOUBLE_EQ(g.value[RuntimeGauges::kPoolCompletedRate].load(), 1000);
  EXPECT_EQ(g.completed_items.load(), 500u);
  // One interval of the pool's figures has arrived: the stream's POOL_GAUGE moves with it alone.
  EXPECT_EQ(g.pool_intervals.load(), 1u);
  apply_event_counter(reading("gc-committed", false, 12.345678, 1), &g);
  EXPECT_NEAR(g.value[RuntimeGauges::kGcCommitted].load(), 12345678, 0.5);
  apply_event_counter(reading("working-set", false, 50, 1), &g);
  EXPECT_DOUBLE_EQ(g.value[RuntimeGauges::kWorkingSet].load(), 50e6);
  // A mean where an increment belongs (or the reverse) is not the counter we know.
  apply_event_counter(reading("threadpool-thread-count", true, 9, 1), &g);
  EXPECT_FALSE(g.has(RuntimeGauges::kPoolThreads));
  apply_event_counter(reading("threadpool-thread-count", false, 9, 1), &g);
  EXPECT_TRUE(g.has(RuntimeGauges::kPoolThreads));
  EXPECT_EQ(g.pool_intervals.load(), 1u);
}

TEST(EventCounters, HandleCountKeepsItsSign) {
  RuntimeCounters c;
  CountersExtras x{};
  CountersBlock::fill_extras(&x, c);
  EXPECT_EQ(x.magic, kExtrasMagic);
  EXPECT_EQ(x.present, 0u);  // nothing has arrived: every field absent
  // GCHeapStats with GCHandleCount 0xFFFFFDE7: the runtime's -537.
  std::vector<uint8_t> b(110, 0);
  const uint32_t wrapped = 0xFFFFFDE7u;
  std::memcpy(b.data() + 88, &wrapped, 4);
  apply_runtime_event(runtime_events::kGcHeapStats, 2, b.data(), b.size(), &c);
  CountersBlock::fill_extras(&x, c);
  EXPECT_EQ(x.gc_handles, -537);
  EXPECT_EQ(x.present, 1u << kXGcHandles);
  clr::PerfCounterIPCControlBlock perf{};
  CountersBlock::fill(&perf, c, 1, 0, 0, 0, CountersBlock::Window{0, 0, 1});
  EXPECT_EQ(perf.m_GC.cHandles, 0u);
}

}  // namespace
}  // namespace clrscope
