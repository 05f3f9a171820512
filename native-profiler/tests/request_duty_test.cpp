// The bridge's listening windows past the rate budget (core/request_duty.h) and the tracker's
// side of them (core/request_tracker.h): what a window records, what it cuts, what it sends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/request_duty.h"
#include "core/request_tracker.h"

namespace clrscope {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(RequestDuty, ListensAllTheTimeWithinTheBudgetOrWithoutOne) {
  const RequestDuty budget(166);
  EXPECT_TRUE(budget.next(0, 200 * kMs).always());
  EXPECT_TRUE(budget.next(33, 200 * kMs).always());  // 165 a second
  EXPECT_TRUE(RequestDuty(0).next(1'000'000, 200 * kMs).always());
}

TEST(RequestDuty, EndsAWindowOnceItsShareOfTheBudgetIsHeard) {
  const RequestDuty budget(100);
  EXPECT_FALSE(budget.window_spent(49, 500 * kMs));
  EXPECT_TRUE(budget.window_spent(50, 500 * kMs));
  EXPECT_FALSE(RequestDuty(0).window_spent(1'000'000, 500 * kMs));
}

TEST(RequestDuty, HearsABurstWithinASecondsBudgetWhole) {
  const RequestDuty budget(166);
  EXPECT_FALSE(budget.spent(166));
  EXPECT_TRUE(budget.spent(167));
  EXPECT_FALSE(RequestDuty(0).spent(1'000'000));
}

TEST(RequestDuty, PastTheBudgetListensTheBudgetsShareOfEachSecond) {
  const RequestDuty budget(166);
  const DutyPlan plan = budget.next(1000, 100 * kMs);  // 10,000 a second
  EXPECT_FALSE(plan.always());
  EXPECT_NEAR(plan.share, 166.0 / 10000.0, 1e-9);
  EXPECT_NEAR(static_cast<double>(plan.on_ns), 16.6 * kMs, 0.01 * kMs);
  // The window and its drain, then off for the rest of a share of the time.
  const uint64_t off = RequestDuty::off_after(10 * kMs, plan.share);
  EXPECT_NEAR(static_cast<double>(10 * kMs) / static_cast<double>(10 * kMs + off), plan.share, 1e-6);
}

TEST(RequestDuty, KeepsAWindowOfTenMillisecondsAtAnyRateAndCapsTheTimeOff) {
  const RequestDuty budget(100);
  const DutyPlan plan = budget.next(10'000'000, RequestDuty::kCycleNs);  // ten million a second
  EXPECT_EQ(plan.on_ns, RequestDuty::kMinOnNs);
  EXPECT_NEAR(plan.share, 1e-5, 1e-12);
  EXPECT_EQ(RequestDuty::off_after(RequestDuty::kMinOnNs, plan.share), RequestDuty::kMaxCycleNs - RequestDuty::kMinOnNs);
  EXPECT_EQ(RequestDuty::off_after(RequestDuty::kMaxCycleNs, plan.share), 0u);
}

TEST(RequestDuty, BudgetsPerCpu) {
  EXPECT_EQ(default_request_budget(0), RequestDuty::kPerCpuPerS);
  EXPECT_EQ(default_request_budget(2), 2 * RequestDuty::kPerCpuPerS);
}

RequestEvent start_of(const std::string& span) {
  RequestEvent e;
  e.start = true;
  e.method = "GET";
  e.path = "/x";
  e.trace_id = std::string(32, 'a');
  e.span_id = span;
  return e;
}

RequestEvent stop_of(const std::string& span) {
  RequestEvent e;
  e.span_id = span;
  e.status = 200;
  return e;
}

TEST(RequestTrackerWindows, RecordsWhatBeganInTheWindowDrainsItAndCutsWhatOutlivedIt) {
  RequestTracker t;
  t.listen_from(100, 166);
  t.on_request_event(start_of("00000000000000a1"), 110, 1);
  t.on_request_event(start_of("00000000000000b2"), 120, 2);
  t.stop_listening(200);
  // The drain: a start now is not tracked, an end of the window's request is.
  t.on_request_event(start_of("00000000000000c3"), 210, 3);
  t.on_request_event(stop_of("00000000000000a1"), 220, 1);
  t.on_request_event(stop_of("00000000000000c3"), 230, 3);
  EXPECT_EQ(t.in_flight(), 1u);
  t.cut_open(300);
  EXPECT_EQ(t.in_flight(), 0u);
  // Between windows nothing is tracked, not even the cut request's late end.
  t.on_request_event(start_of("00000000000000d4"), 310, 4);
  t.on_request_event(stop_of("00000000000000b2"), 320, 2);
  std::vector<HeldRequest> requests;
  t.take(&requests, false);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].span_id, "00000000000000a1");
  std::vector<ListenWindow> windows;
  t.take_windows(&windows, false, 400);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].start, 100u);
  EXPECT_EQ(windows[0].end, 200u);
  EXPECT_EQ(windows[0].begun, 2u);
  EXPECT_EQ(windows[0].cut, 1u);
  EXPECT_EQ(windows[0].max_per_s, 166u);
  EXPECT_EQ(t.begun_total(), 2u);
  // The next window is open at the stream's end: it ends there, its request in flight.
  t.listen_from(500, 166);
  t.on_request_event(start_of("00000000000000e5"), 510, 5);
  windows.clear();
  t.take_windows(&windows, false, 600);
  EXPECT_TRUE(windows.empty());
  t.take_windows(&windows, true, 600);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].start, 500u);
  EXPECT_EQ(windows[0].end, 600u);
  EXPECT_EQ(windows[0].begun, 1u);
  EXPECT_EQ(windows[0].cut, 0u);
  requests.clear();
  t.take(&requests, true);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].end_mono, 0u);
}

TEST(RequestTrackerWindows, ATrackerNeverToldSendsNoWindow) {
  RequestTracker t;
  t.on_request_event(start_of("00000000000000a1"), 110, 1);
  std::vector<ListenWindow> windows;
  t.take_windows(&windows, true, 200);
  EXPECT_TRUE(windows.empty());
}

}  // namespace
}  // namespace clrscope
