// HTTP requests from the DiagnosticSource bridge's payloads (core/request_payloads.h) and their
// pairing (core/request_tracker.h). The payload layout is the one the runtime delivered to the
// profiler's session for RequestWeb's GET /cpu/5 (.NET 10): SourceName, EventName, a u16 count of
// {Key, Value} pairs, every string UTF-16 and NUL-ended.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/request_payloads.h"
#include "core/request_tracker.h"
#include "core/task_names.h"

namespace clrscope {
namespace {

void put_string(std::vector<uint8_t>* out, const std::string& s) {
  for (char c : s) {
    out->push_back(static_cast<uint8_t>(c));
    out->push_back(0);
  }
  out->push_back(0);
  out->push_back(0);
}

std::vector<uint8_t> payload(const std::string& source, const std::string& name,
                             const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<uint8_t> out;
  put_string(&out, source);
  put_string(&out, name);
  out.push_back(static_cast<uint8_t>(pairs.size()));
  out.push_back(0);
  for (const auto& [k, v] : pairs) {
    put_string(&out, k);
    put_string(&out, v);
  }
  return out;
}

const char kStart[] = "Microsoft.AspNetCore.Hosting.HttpRequestIn.Start";
const char kStop[] = "Microsoft.AspNetCore.Hosting.HttpRequestIn.Stop";

TEST(RequestPayloads, ReadsTheStartAndTheStop) {
  const auto start = payload("Microsoft.AspNetCore", kStart,
                             {{"Method", "GET"}, {"Path", "/cpu/5"}, {"TraceId", "a887ebdb50abfd883341b7aa9dc1d5ed"},
                              {"SpanId", "4f41c86307f82c69"}});
  RequestEvent e;
  ASSERT_TRUE(parse_request_event(start.data(), start.size(), &e));
  EXPECT_TRUE(e.start);
  EXPECT_EQ(e.method, "GET");
  EXPECT_EQ(e.path, "/cpu/5");
  EXPECT_EQ(e.trace_id, "a887ebdb50abfd883341b7aa9dc1d5ed");
  EXPECT_EQ(e.span_id, "4f41c86307f82c69");
  const auto stop = payload("Microsoft.AspNetCore", kStop, {{"SpanId", "4f41c86307f82c69"}, {"Status", "200"}, {"Route", "[ms, 5]"}});
  RequestEvent s;
  ASSERT_TRUE(parse_request_event(stop.data(), stop.size(), &s));
  EXPECT_FALSE(s.start);
  EXPECT_EQ(s.status, 200u);
  EXPECT_EQ(s.route_values, "[ms, 5]");
}

TEST(RequestPayloads, RefusesOtherEventsAndCutPayloads) {
  RequestEvent e;
  const auto listener = payload("Microsoft.AspNetCore", "", {});
  EXPECT_FALSE(parse_request_event(listener.data(), listener.size(), &e));
  const auto other = payload("HttpHandlerDiagnosticListener", kStart, {});
  EXPECT_FALSE(parse_request_event(other.data(), other.size(), &e));
  const auto start = payload("Microsoft.AspNetCore", kStart, {{"Method", "GET"}, {"Path", "/x"}});
  for (size_t cut = 0; cut < start.size(); ++cut) {
    EXPECT_FALSE(parse_request_event(start.data(), cut, &e)) << "cut at " << cut;
  }
  EXPECT_FALSE(parse_request_event(nullptr, 10, &e));
}

TEST(RequestPayloads, RoutePatternFromPathAndRouteValues) {
  EXPECT_EQ(route_pattern("/cpu/5", "[ms, 5]"), "/cpu/{ms}");
  EXPECT_EQ(route_pattern("/orders/7/lines/3", "[id, 7],[line, 3]"), "/orders/{id}/lines/{line}");
  EXPECT_EQ(route_pattern("/fail", ""), "/fail");
  EXPECT_EQ(route_pattern("/", ""), "/");
  // MVC's controller and action values name no segment of this path: left as they are.
  EXPECT_EQ(route_pattern("/home", "[controller, Home],[action, Index]"), "/home");
  EXPECT_EQ(span_key("4f41c86307f82c69"), 0x4f41c86307f82c69ull);
  EXPECT_EQ(span_key("4f41c86307f82c6"), 0u);
  EXPECT_EQ(span_key("4f41c86307f82c6x"), 0u);
}

TEST(RequestTracker, PairsByTheSpanIdAcrossThreadsAndSendsTheOpenOnesLast) {
  RequestTracker t;
  RequestEvent a;
  a.start = true;
  a.method = "GET";
  a.path = "/delay/40";
  a.trace_id = std::string(32, 'a');
  a.span_id = "00000000000000a1";
  RequestEvent b = a;
  b.span_id = "00000000000000b2";
  b.path = "/fail";
  t.on_request_event(a, 100, 7);
  t.on_request_event(b, 150, 8);
  RequestEvent stop_a;
  stop_a.span_id = a.span_id;
  stop_a.status = 200;
  stop_a.route_values = "[ms, 40]";
  t.on_request_event(stop_a, 400, 9);
  RequestEvent stray;  // a stop whose start came before the session
  stray.span_id = "00000000000000c3";
  t.on_request_event(stray, 500, 9);
  std::vector<HeldRequest> out;
  t.take(&out, false);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].endpoint, "/delay/{ms}");
  EXPECT_EQ(out[0].start_mono, 100u);
  EXPECT_EQ(out[0].end_mono, 400u);
  EXPECT_EQ(out[0].start_tid, 7u);
  EXPECT_EQ(out[0].end_tid, 9u);
  EXPECT_EQ(out[0].status, 200u);
  out.clear();
  t.take(&out, true);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].endpoint, "/fail");
  EXPECT_EQ(out[0].end_mono, 0u);
}

TEST(RequestTracker, FollowsARequestByItsConnectionsRootOnlyWithinItsWindow) {
  RequestTracker t;
  RequestEvent a;
  a.start = true;
  a.method = "GET";
  a.path = "/delay/40";
  a.span_id = "00000000000000a1";
  RequestEvent b = a;
  b.span_id = "00000000000000b2";
  RequestEvent c = a;
  c.span_id = "00000000000000c3";
  constexpr uintptr_t kConnection = 0x7f0010, kOther = 0x7f0020;
  t.on_request_event(a, 100, 7, kConnection);
  t.on_request_event(c, 120, 8, kOther);
  t.on_request_event(b, 130, 9, 0);  // no chain at its start: not followed
  EXPECT_EQ(t.request_at(kConnection, 99), 0u);   // before it began
  EXPECT_EQ(t.request_at(kConnection, 150), 1u);  // any thread, by the root alone
  EXPECT_EQ(t.request_at(kOther, 150), 2u);
  EXPECT_EQ(t.request_at(0x7f0030, 150), 0u);
  RequestEvent stop_a;
  stop_a.span_id = a.span_id;
  stop_a.status = 200;
  t.on_request_event(stop_a, 200, 9, 0);
  EXPECT_EQ(t.request_at(kConnection, 199), 1u);  // a capture drained after the end
  EXPECT_EQ(t.request_at(kConnection, 200), 0u);
  // The connection's next request: the same root, a later window.
  RequestEvent d = a;
  d.span_id = "00000000000000d4";
  t.on_request_event(d, 300, 7, kConnection);
  EXPECT_EQ(t.request_at(kConnection, 250), 0u);
  EXPECT_EQ(t.request_at(kConnection, 310), 4u);
  EXPECT_EQ(t.rooted(), 3u);
  EXPECT_EQ(t.matched(), 4u);
  std::vector<HeldRequest> out;
  t.take(&out, true);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].seq, 1u);
  EXPECT_EQ(out[0].root, kConnection);
}

// A connection's first request begins before its chain has a root; it ends under one. The samples
// sent under that root while it ran are its own, those before it began and under other roots not.
TEST(RequestTracker, ClaimsTheSamplesOfItsRootAtTheEndOfARequestBegunWithoutOne) {
  RequestTracker t;
  RequestEvent first;
  first.start = true;
  first.method = "GET";
  first.path = "/after/40";
  first.span_id = "00000000000000f1";
  constexpr uintptr_t kConnection = 0x7f0010, kReceiveLoop = 0x7f0020;
  t.remember(kConnection, 90, 1);  // nothing begun without a root is open: not kept
  t.on_request_event(first, 100, 7, 0);
  EXPECT_TRUE(t.unrooted_open());
  EXPECT_EQ(t.request_at(kConnection, 120), 0u);
  t.remember(kConnection, 95, 2);  // taken before it began
  t.remember(kConnection, 120, 3);
  t.remember(kReceiveLoop, 125, 4);
  t.remember(kConnection, 130, 5);
  RequestEvent stop = first;
  stop.start = false;
  stop.status = 200;
  t.on_request_event(stop, 200, 9, kConnection);
  EXPECT_FALSE(t.unrooted_open());
  EXPECT_EQ(t.request_at(kConnection, 190), 1u);  // a capture still on its way
  EXPECT_EQ(t.request_at(kConnection, 210), 0u);
  std::vector<HeldRequest> out;
  t.take(&out, false);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].backfill, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(t.backfilled(), 1u);
  EXPECT_EQ(t.backfilled_samples(), 2u);
  // One that ends outside any chain (it never awaited) claims nothing.
  RequestEvent sync = first;
  sync.span_id = "00000000000000f2";
  t.on_request_event(sync, 300, 7, 0);
  t.remember(kReceiveLoop, 310, 6);
  sync.start = false;
  t.on_request_event(sync, 320, 7, 0);
  out.clear();
  t.take(&out, false);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].backfill.empty());
}

class FakeTasks final : public TaskNames {
 public:
  std::map<uint32_t, uint32_t> awaiter;
  uint32_t awaiter_of(uint32_t id) const override {
    auto it = awaiter.find(id);
    return it == awaiter.end() ? 0 : it->second;
  }
  std::string name_of(uint32_t) const override { return ""; }
};

TEST(TaskChainRoot, IsTheOutermostKnownAwaiterAndSurvivesACycle) {
  FakeTasks tasks;
  tasks.awaiter = {{5, 4}, {4, 2}, {2, 1}};  // handler < middleware < ProcessRequests < connection
  EXPECT_EQ(task_chain_root(tasks, 5), 1u);
  EXPECT_EQ(task_chain_root(tasks, 1), 1u);
  EXPECT_EQ(task_chain_root(tasks, 0), 0u);
  tasks.awaiter = {{7, 8}, {8, 9}, {9, 8}};  // a cycle that does not pass through the start
  const uint32_t r = task_chain_root(tasks, 7);
  EXPECT_TRUE(r == 8u || r == 9u);
}

TEST(RequestTracker, LetsGoOfEndedWindowsOnceNoCaptureCanFallInThem) {
  RequestTracker t;
  RequestEvent a;
  a.start = true;
  a.span_id = "00000000000000a1";
  constexpr uintptr_t kConnection = 0x7f0010;
  const uint64_t s = 1'000'000'000;
  t.on_request_event(a, s, 7, kConnection);
  RequestEvent stop = a;
  stop.start = false;
  t.on_request_event(stop, s + 10, 7, 0);
  std::vector<HeldRequest> out;
  t.take(&out, false);
  EXPECT_EQ(t.request_at(kConnection, s + 5), 1u);  // still kept
  EXPECT_EQ(t.request_at(kConnection, s + 10 + RequestTracker::kKeepEndedNs + 1), 0u);
  t.take(&out, false);  // the window ended longer ago than any capture on its way
  EXPECT_EQ(t.request_at(kConnection, s + 5), 0u);
}

}  // namespace
}  // namespace clrscope
