// Event samples from the runtime's payloads (bytes laid out as the runtime's manifest says), the
// stack budget and the by-type counts of events over it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "core/event_capture.h"
#include "core/runtime_event_payloads.h"
#include "core/wire_writer.h"

namespace clrscope {
namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_name(std::vector<uint8_t>& b, const char* ascii) {
  for (const char* p = ascii; *p != 0; ++p) put(b, static_cast<uint8_t>(*p), 2);
  put(b, 0, 2);
}

TEST(EventSamples, ContentionStopV1CarriesTheWaitInNanoseconds) {
  std::vector<uint8_t> b;
  put(b, 0, 1);  // ContentionFlags: managed
  put(b, 7, 2);  // ClrInstanceID
  const double ns = 12345678.6;
  uint64_t bits = 0;
  std::memcpy(&bits, &ns, 8);
  put(b, bits, 8);
  EventInfo e;
  ASSERT_TRUE(event_sample_from_runtime_event(runtime_events::kContentionStop, 1, b.data(), b.size(), 8, &e));
  EXPECT_EQ(e.kind, wire::kEventContention);
  EXPECT_EQ(e.value1, 12345679u);
  EXPECT_EQ(e.type_id, 0u);
  // Version 0 has no duration; a short payload is no sample.
  EXPECT_FALSE(event_sample_from_runtime_event(runtime_events::kContentionStop, 0, b.data(), b.size(), 8, &e));
  EXPECT_FALSE(event_sample_from_runtime_event(runtime_events::kContentionStop, 1, b.data(), 10, 8, &e));
}

TEST(EventSamples, AllocationTickV4PutsTheAmountOnTheCrossingObject) {
  std::vector<uint8_t> b;
  put(b, 100000, 4);            // AllocationAmount
  put(b, 0, 4);                 // AllocationKind: small
  put(b, 0, 2);                 // ClrInstanceID
  put(b, 102432, 8);            // AllocationAmount64
  put(b, 0x7f0012345678ull, 8); // TypeID
  put_name(b, "System.Byte[]");
  put(b, 0, 4);                 // HeapIndex
  put(b, 0x7e0000001000ull, 8); // Address
  put(b, 1024, 8);              // ObjectSize
  EventInfo e;
  ASSERT_TRUE(event_sample_from_runtime_event(runtime_events::kAllocationTick, 4, b.data(), b.size(), 8, &e));
  EXPECT_EQ(e.kind, wire::kEventAllocation);
  EXPECT_EQ(e.type_id, 0x7f0012345678ull);
  EXPECT_EQ(e.value1, 102432u);
  EXPECT_TRUE(e.has_value2);
  EXPECT_EQ(e.value2, 100u);  // 102432 / 1024, rounded
  EXPECT_EQ(e.object, 0x7e0000001000ull);
  // Version 3 has no object size: one object.
  EXPECT_TRUE(event_sample_from_runtime_event(runtime_events::kAllocationTick, 3, b.data(), b.size() - 8, 8, &e));
  EXPECT_EQ(e.value2, 1u);
  EXPECT_EQ(e.object, 0x7e0000001000ull);
  // Version 2 has no address.
  EXPECT_TRUE(event_sample_from_runtime_event(runtime_events::kAllocationTick, 2, b.data(), b.size() - 16, 8, &e));
  EXPECT_EQ(e.object, 0u);
}

TEST(EventSamples, ContentionStartV2NamesTheOwner) {
  std::vector<uint8_t> b;
  put(b, 0, 1);                  // ContentionFlags: managed
  put(b, 0, 2);                  // ClrInstanceID
  put(b, 0x5000, 8);             // LockID
  put(b, 0x6000, 8);             // AssociatedObjectID
  put(b, 4242, 8);               // LockOwnerThreadID
  uint64_t owner = 0;
  ASSERT_TRUE(contention_owner(runtime_events::kContentionStart, 2, b.data(), b.size(), 8, &owner));
  EXPECT_EQ(owner, 4242u);
  EXPECT_FALSE(contention_owner(runtime_events::kContentionStart, 1, b.data(), 3, 8, &owner));
  EXPECT_FALSE(contention_owner(runtime_events::kContentionStart, 2, b.data(), b.size() - 1, 8, &owner));
  EXPECT_FALSE(contention_owner(runtime_events::kContentionStop, 2, b.data(), b.size(), 8, &owner));
}

TEST(EventSamples, AllocationSampledIsUpscaledWithoutBias) {
  std::vector<uint8_t> b;
  put(b, 0, 4);                 // AllocationKind
  put(b, 0, 2);                 // ClrInstanceID
  put(b, 0x1000, 8);            // TypeID
  put_name(b, "Pair<long>");
  put(b, 0x2000, 8);            // Address
  put(b, 32, 8);                // ObjectSize
  put(b, 17, 8);                // SampledByteOffset
  EventInfo e;
  ASSERT_TRUE(event_sample_from_runtime_event(runtime_events::kAllocationSampled, 0, b.data(), b.size(), 8, &e));
  const double p = 1.0 - std::pow(1.0 - 1.0 / 102400.0, 32.0);
  EXPECT_EQ(e.type_id, 0x1000u);
  EXPECT_NEAR(static_cast<double>(e.value1), 32.0 / p, 1.0);
  EXPECT_NEAR(static_cast<double>(e.value2), 1.0 / p, 1.0);
  EXPECT_EQ(e.object, 0x2000u);
  // A large object is (almost) surely sampled: it stands for itself.
  b.resize(b.size() - 16);
  put(b, 10u << 20, 8);
  put(b, 0, 8);
  ASSERT_TRUE(event_sample_from_runtime_event(runtime_events::kAllocationSampled, 0, b.data(), b.size(), 8, &e));
  EXPECT_EQ(e.value2, 1u);
  EXPECT_EQ(e.value1, 10u << 20);
  // A name without its NUL is no sample.
  std::vector<uint8_t> cut(b.begin(), b.begin() + 20);
  EXPECT_FALSE(event_sample_from_runtime_event(runtime_events::kAllocationSampled, 0, cut.data(), cut.size(), 8, &e));
}

TEST(EventSamples, RateBudgetAllowsItsCountPerSecond) {
  RateBudget budget;
  budget.set_rate(3);
  const uint64_t s = 1000000000ull;
  int taken = 0;
  for (int i = 0; i < 10; ++i) taken += budget.take(5 * s + static_cast<uint64_t>(i)) ? 1 : 0;
  EXPECT_EQ(taken, 3);
  EXPECT_TRUE(budget.take(6 * s + 1));  // a new second
  budget.set_rate(0);
  EXPECT_FALSE(budget.take(7 * s));
}

TEST(EventSamples, TypeCountsStayExactBeyondTheirTable) {
  TypeCounts counts;
  std::map<uint64_t, uint64_t> expected;
  for (uint64_t t = 1; t <= TypeCounts::kSlots + 10; ++t) {
    counts.add(t * 8, t);
    expected[t * 8] += t;
  }
  counts.add(0, 5);
  std::map<uint64_t, uint64_t> got;
  uint64_t total = 0;
  counts.take([&](uint64_t type, uint64_t n) {
    got[type] += n;
    total += n;
  });
  uint64_t want_total = 5;
  for (auto& [t, n] : expected) want_total += n;
  EXPECT_EQ(total, want_total);
  // The first kSlots types have their own counts; the rest land under type 0.
  EXPECT_EQ(got[8], 1u);
  EXPECT_EQ(got[8 * TypeCounts::kSlots], TypeCounts::kSlots);
  uint64_t taken_again = 0;
  counts.take([&](uint64_t, uint64_t n) { taken_again += n; });
  EXPECT_EQ(taken_again, 0u);
}

}  // namespace
}  // namespace clrscope
