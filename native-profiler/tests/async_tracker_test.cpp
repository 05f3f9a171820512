#include "core/async_tracker.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/platform.h"
#include "core/profiler_config.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

// Payloads recorded from TplEventSource on .NET 10.0.12 (AsyncChain chain, CLRSCOPE_ASYNC_LOG=1
// hex dumps; native-profiler/TPL-EVENTS.md).
std::vector<uint8_t> hex(const char* text) {
  std::vector<uint8_t> out;
  for (const char* p = text; *p != '\0';) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(p, 2), nullptr, 16)));
    p += 2;
  }
  return out;
}

// TraceOperationBegin(8, "Async: <Outer>d__4", 0).
const char kOuterBegin[] =
    "08 00 00 00 41 00 73 00 79 00 6e 00 63 00 3a 00 20 00 3c 00 4f 00 75 00 74 00 65 00 72 00 3e 00 64 00 5f 00 5f 00 "
    "34 00 00 00 00 00 00 00 00 00 00 00";
// TraceOperationBegin(1, "Task: <Run>b__0", 0): a Task.Run delegate keeps its "Task: " prefix.
const char kRunBegin[] =
    "01 00 00 00 54 00 61 00 73 00 6b 00 3a 00 20 00 3c 00 52 00 75 00 6e 00 3e 00 62 00 5f 00 5f 00 30 00 00 00 00 00 "
    "00 00 00 00 00 00";
// TaskWaitBegin(sched 1, orig 1, TaskID 8, Behavior 2 (async), ContinueWithTaskID 15).
const char kWaitAsync[] = "01 00 00 00 01 00 00 00 08 00 00 00 02 00 00 00 0f 00 00 00";
// TaskWaitBegin(sched 1, orig 0, TaskID 7, Behavior 1 (synchronous Wait), ContinueWithTaskID 0).
const char kWaitSync[] = "01 00 00 00 00 00 00 00 07 00 00 00 01 00 00 00 00 00 00 00";
// TraceSynchronousWorkBegin(3, Execution) and (1, CompletionNotification).
const char kWorkExecutionBytes[] = "03 00 00 00 02 00 00 00";
const char kWorkCompletion[] = "01 00 00 00 00 00 00 00";
// TraceSynchronousWorkEnd(Execution).
const char kWorkEnd[] = "02 00 00 00";

TEST(AsyncPayloads, TaskWaitBeginIsAnEdgeFromTheAwaitedTaskToTheAwaitingBox) {
  const std::vector<uint8_t> b = hex(kWaitAsync);
  uint32_t awaited = 0, awaiter = 0;
  ASSERT_TRUE(parse_task_wait_begin(b.data(), b.size(), &awaited, &awaiter));
  EXPECT_EQ(awaited, 8u);
  EXPECT_EQ(awaiter, 15u);
  const std::vector<uint8_t> sync = hex(kWaitSync);
  EXPECT_FALSE(parse_task_wait_begin(sync.data(), sync.size(), &awaited, &awaiter));
  EXPECT_FALSE(parse_task_wait_begin(b.data(), b.size() - 1, &awaited, &awaiter));
  EXPECT_FALSE(parse_task_wait_begin(nullptr, 0, &awaited, &awaiter));
}

TEST(AsyncPayloads, OperationBeginNamesTheBoxWithoutTheAsyncPrefix) {
  const std::vector<uint8_t> b = hex(kOuterBegin);
  uint32_t id = 0;
  std::string name;
  ASSERT_TRUE(parse_operation_begin(b.data(), b.size(), &id, &name));
  EXPECT_EQ(id, 8u);
  EXPECT_EQ(name, "<Outer>d__4");
  const std::vector<uint8_t> run = hex(kRunBegin);
  ASSERT_TRUE(parse_operation_begin(run.data(), run.size(), &id, &name));
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(name, "Task: <Run>b__0");
  // Cut before the RelatedContext, or inside the name (no NUL): refused.
  EXPECT_FALSE(parse_operation_begin(b.data(), b.size() - 1, &id, &name));
  EXPECT_FALSE(parse_operation_begin(b.data(), 20, &id, &name));
  // A long name is cut at the cap, the payload still read to its end.
  ASSERT_TRUE(parse_operation_begin(b.data(), b.size(), &id, &name, 5));
  EXPECT_EQ(name, "<Oute");
}

TEST(AsyncPayloads, SynchronousWorkBeginGivesTheBoxAndTheKindOfWork) {
  const std::vector<uint8_t> b = hex(kWorkExecutionBytes);
  uint32_t id = 0, work = 9;
  ASSERT_TRUE(parse_sync_work_begin(b.data(), b.size(), &id, &work));
  EXPECT_EQ(id, 3u);
  EXPECT_EQ(work, kWorkExecution);
  EXPECT_FALSE(parse_sync_work_begin(b.data(), 7, &id, &work));
}

// The tracker on the recorded events, from this thread (registered as a managed thread).
TEST(AsyncTracker, FollowsEdgesToNamesAndKeepsTheRunningBoxInTheSlot) {
  ThreadRegistry registry;
  registry.on_created(77);
  registry.on_assigned_os_thread(77, platform::current_tid());
  uint32_t index = 0, wire_id = 0;
  ASSERT_TRUE(registry.slot_of_tid(platform::current_tid(), &index, &wire_id));
  AsyncTracker tracker(&registry);

  auto feed = [&](uint32_t id, const std::vector<uint8_t>& b) { return tracker.on_event(id, b.data(), b.size()); };
  auto op = [](uint32_t id, const char* name) {
    std::vector<uint8_t> b = {static_cast<uint8_t>(id), static_cast<uint8_t>(id >> 8), 0, 0};
    for (const char* p = name; *p != '\0'; ++p) b.insert(b.end(), {static_cast<uint8_t>(*p), 0});
    b.insert(b.end(), 10, 0);  // NUL, RelatedContext
    return b;
  };
  auto wait = [](uint32_t awaited, uint32_t awaiter) {
    std::vector<uint8_t> b(20, 0);
    b[0] = 1;
    b[8] = static_cast<uint8_t>(awaited);
    b[12] = 2;
    b[16] = static_cast<uint8_t>(awaiter);
    return b;
  };
  ASSERT_TRUE(feed(tpl_events::kTraceOperationBegin, hex(kOuterBegin)));  // 8 = <Outer>d__4
  ASSERT_TRUE(feed(tpl_events::kTraceOperationBegin, op(20, "Async: <Middle>d__5")));
  ASSERT_TRUE(feed(tpl_events::kTraceOperationBegin, op(30, "Async: <Inner>d__6")));
  ASSERT_TRUE(feed(tpl_events::kTaskWaitBegin, wait(30, 20)));
  ASSERT_TRUE(feed(tpl_events::kTaskWaitBegin, wait(20, 8)));
  ASSERT_TRUE(feed(tpl_events::kTaskWaitBegin, hex(kWaitAsync)));  // 8 awaited by 15, unnamed
  EXPECT_EQ(tracker.chain(30), "<Inner>d__6<<Middle>d__5<<Outer>d__4<?15");
  EXPECT_EQ(tracker.awaiter_of(30), 20u);
  EXPECT_EQ(tracker.awaiter_of(30 + (1u << 18)), 0u);  // same low bits, other id
  EXPECT_EQ(tracker.name_of(30 + (1u << 18)), "");

  // Running box: Inner, then a nested completion notification keeps Inner, then back out.
  std::atomic<uint32_t>& box = registry.slot(index).async_box;
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkBegin, {30, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(box.load(), 30u);
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkBegin, hex(kWorkCompletion)));
  EXPECT_EQ(box.load(), 30u);
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkBegin, hex(kWorkExecutionBytes)));
  EXPECT_EQ(box.load(), 3u);
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkEnd, hex(kWorkEnd)));
  EXPECT_EQ(box.load(), 30u);
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkEnd, hex(kWorkEnd)));
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkEnd, hex(kWorkEnd)));
  EXPECT_EQ(box.load(), 0u);
  ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkEnd, hex(kWorkEnd)));  // unbalanced: stays 0
  EXPECT_EQ(box.load(), 0u);

  // A cycle (ids reused after wrap-around) ends the chain instead of looping.
  ASSERT_TRUE(feed(tpl_events::kTaskWaitBegin, wait(8, 30)));
  EXPECT_EQ(tracker.chain(30), "<Inner>d__6<<Middle>d__5<<Outer>d__4<(cycle)");
  EXPECT_FALSE(feed(tpl_events::kAwaitTaskContinuationScheduled, hex(kWorkExecutionBytes)));
  registry.on_destroyed(77);
}

// Operations and their suspended time, on a clock the test moves (ms).
uint64_t g_now_ms = 1000;
uint64_t test_clock() { return g_now_ms * 1000000ull; }
constexpr uint64_t kMs = 1000000ull;

std::vector<uint8_t> op_begin_bytes(uint32_t id, const char* name) {
  std::vector<uint8_t> b = {static_cast<uint8_t>(id), static_cast<uint8_t>(id >> 8), static_cast<uint8_t>(id >> 16), 0};
  for (const char* p = name; *p != '\0'; ++p) b.insert(b.end(), {static_cast<uint8_t>(*p), 0});
  b.insert(b.end(), 10, 0);  // NUL, RelatedContext
  return b;
}
std::vector<uint8_t> u32s(std::initializer_list<uint32_t> values) {
  std::vector<uint8_t> b;
  for (uint32_t v : values) b.insert(b.end(), {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)});
  return b;
}

struct OpFeed {
  AsyncTracker& t;
  void begin(uint32_t id, const char* name) { ASSERT_TRUE(feed(tpl_events::kTraceOperationBegin, op_begin_bytes(id, name))); }
  void wait(uint32_t awaited, uint32_t awaiter) { ASSERT_TRUE(feed(tpl_events::kTaskWaitBegin, u32s({1, 1, awaited, 2, awaiter}))); }
  void run(uint32_t id) { ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkBegin, u32s({id, kWorkExecution}))); }
  void notify(uint32_t id) { ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkBegin, u32s({id, 0}))); }
  void done() { ASSERT_TRUE(feed(tpl_events::kTraceSynchronousWorkEnd, u32s({2}))); }
  void end(uint32_t id) { ASSERT_TRUE(feed(tpl_events::kTraceOperationEnd, u32s({id, 1}))); }
  bool feed(uint32_t event, const std::vector<uint8_t>& b) { return t.on_event(event, b.data(), b.size()); }
};

std::vector<SuspendedCharge> take(AsyncTracker& t, size_t max = 64) {
  std::vector<SuspendedCharge> out(max);
  out.resize(t.take_suspended(test_clock(), out.data(), max));
  return out;
}

// Charges of no time: operations found for the first time, counted where they sit.
bool timeless(const std::vector<SuspendedCharge>& charges) {
  for (const SuspendedCharge& c : charges) {
    if (c.wall_ns != 0) return false;
  }
  return true;
}

// Handler awaits Service, which awaits Task.Delay(200): Service's 200 ms are charged to Service
// alone (Handler awaits a live operation), in two charges that add up, then both are forgotten.
TEST(AsyncOperations, TheLeafOfTheChainIsChargedItsSuspendedTimeOnce) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  g_now_ms = 1000;
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  f.begin(102, "Task.Delay");  // a promise, not an operation
  f.begin(101, "Async: <Service>d__1");
  f.wait(102, 101);
  f.begin(100, "Async: <Handler>d__0");
  f.wait(101, 100);
  EXPECT_EQ(tracker.live_ops(), 2u);
  // A live operation is first charged at the visit after the one that found it; at the first it
  // is counted where it sits (the leaf, Service, suspended), with no time.
  const std::vector<SuspendedCharge> first = take(tracker);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].task, 101u);
  EXPECT_EQ(first[0].awaited, 102u);
  EXPECT_EQ(first[0].wall_ns, 0u);
  EXPECT_TRUE(first[0].suspended);
  g_now_ms += 50;
  std::vector<SuspendedCharge> c = take(tracker);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].task, 101u);
  EXPECT_EQ(c[0].awaited, 102u);
  EXPECT_EQ(c[0].wall_ns, 50 * kMs);
  EXPECT_TRUE(c[0].suspended) << "it sits there now";
  EXPECT_EQ(tracker.name_of(c[0].awaited), "Task.Delay");
  EXPECT_TRUE(take(tracker).empty()) << "nothing new at the same time";

  // The timer fires at +200: Service runs, completes, and Handler's continuation runs inline.
  g_now_ms += 150;
  f.notify(102);
  f.run(101);
  g_now_ms += 1;  // Service's CPU: a thread's time, not charged
  f.end(101);
  f.notify(101);
  f.run(100);
  f.end(100);
  for (int i = 0; i < 4; ++i) f.done();
  g_now_ms += 100;
  c = take(tracker);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].task, 101u);
  EXPECT_EQ(c[0].wall_ns, 150 * kMs);
  EXPECT_EQ(c[0].awaited, 102u) << "charged after it ran, for the time it awaited the delay";
  EXPECT_FALSE(c[0].suspended) << "it ended: suspended there no more";
  EXPECT_EQ(tracker.live_ops(), 0u);
  EXPECT_TRUE(timeless(take(tracker)));
  EXPECT_EQ(tracker.ops_tracked(), 2u);
}

// An awaiter whose awaited operation ended waits to be run: that wait is its own.
TEST(AsyncOperations, AnAwaiterIsTheLeafFromItsAwaitedOperationsEndUntilItRuns) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  g_now_ms = 5000;
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  f.begin(201, "Async: <Inner>d__2");
  f.begin(200, "Async: <Outer>d__1");
  f.wait(201, 200);
  EXPECT_TRUE(timeless(take(tracker)));
  g_now_ms += 10;
  f.run(201);
  f.end(201);
  f.done();  // Inner ended; Outer is queued from here
  g_now_ms += 30;
  std::vector<SuspendedCharge> c = take(tracker);
  ASSERT_EQ(c.size(), 2u);
  uint64_t outer = 0, inner = 0;
  for (const SuspendedCharge& x : c) (x.task == 200 ? outer : inner) += x.wall_ns;
  EXPECT_EQ(inner, 10 * kMs);
  EXPECT_EQ(outer, 30 * kMs);
  // Running, Outer's clock stops; suspended again on Task.Yield (no TaskWaitBegin), it runs again.
  f.run(200);
  g_now_ms += 5;
  f.done();
  g_now_ms += 7;
  c = take(tracker);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].task, 200u);
  EXPECT_EQ(c[0].awaited, 0u);
  EXPECT_EQ(c[0].wall_ns, 7 * kMs);
  // A continuation that starts on another thread before this one's work ended counts twice as
  // running and is suspended only when both ended (here, on one thread, nested).
  f.run(200);
  f.run(200);
  f.done();
  g_now_ms += 3;
  EXPECT_TRUE(timeless(take(tracker)));
  f.done();
  g_now_ms += 4;
  c = take(tracker);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].wall_ns, 4 * kMs);
}

// `await Task.WhenAll(Left(), Right())` in Request: each branch's box is made at its first await,
// inside Request's run, and nothing awaits it but the combinator, which CoreLib registers without
// a TaskWaitBegin. The branches begun just before the combinator on its thread are its branches:
// each chain goes on through the combinator to Request. Request awaits live operations while a
// branch lives (its time is theirs), and is the leaf again once the last one ended.
TEST(AsyncFanIn, BranchesBegunBeforeACombinatorAreAwaitedThroughIt) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  g_now_ms = 100;
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  f.begin(10, "Async: <Request>d__0");
  f.run(10);
  f.begin(12, "Async: <Leaf>d__3");  // Left calls Leaf, which suspends first
  f.begin(11, "Async: <Left>d__1");
  f.wait(12, 11);
  f.begin(13, "Async: <Right>d__2");
  f.begin(14, "Task.Delay");  // a promise in between is no branch
  f.begin(20, "Task.WhenAll");
  f.wait(20, 10);
  f.done();
  EXPECT_EQ(tracker.chain(12), "<Leaf>d__3<<Left>d__1<Task.WhenAll<<Request>d__0");
  EXPECT_EQ(tracker.chain(13), "<Right>d__2<Task.WhenAll<<Request>d__0");
  EXPECT_EQ(tracker.awaiter_of(14), 0u);
  EXPECT_EQ(tracker.fan_ins(), 1u);

  EXPECT_TRUE(timeless(take(tracker)));
  g_now_ms += 10;
  uint64_t request = 0, combinator = 0;
  for (const SuspendedCharge& c : take(tracker)) {
    request += c.task == 10 ? c.wall_ns : 0;
    combinator += c.task == 20 ? c.wall_ns : 0;
  }
  EXPECT_EQ(request, 0u) << "Request awaits its live branches";
  EXPECT_EQ(combinator, 0u) << "a combinator is never charged";
  // Left's Leaf and Left end; Right still lives, so Request still waits on it.
  f.run(12);
  f.end(12);
  f.run(11);
  f.end(11);
  f.done();
  f.done();
  g_now_ms += 10;
  for (const SuspendedCharge& c : take(tracker)) EXPECT_NE(c.task, 10u);
  f.run(13);
  f.end(13);
  f.done();
  g_now_ms += 7;  // the last branch ended: Request waits to be run
  request = 0;
  for (const SuspendedCharge& c : take(tracker)) request += c.task == 10 ? c.wall_ns : 0;
  EXPECT_EQ(request, 7 * kMs);
  f.end(20);
  f.run(10);
  f.end(10);
  f.done();
  take(tracker);
  EXPECT_EQ(tracker.live_ops(), 0u);
}

// Only what nothing awaited and what its own level began: an awaited callee, a task started in
// a run that ended before (fire and forget), and one that already ended are no branches.
TEST(AsyncFanIn, AwaitedEndedAndEarlierLevelsOperationsAreNoBranches) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  OpFeed f{tracker};
  f.run(1);
  f.begin(30, "Async: <Forgotten>d__0");
  f.done();  // its level ended: started and not waited for
  f.run(2);
  f.begin(31, "Async: <Awaited>d__1");
  f.wait(31, 2);
  f.begin(32, "Async: <Done>d__2");
  f.end(32);
  f.begin(33, "Async: <Branch>d__3");
  f.run(3);  // a nested level (an inline continuation) has its own orphans
  f.begin(34, "Async: <Inline>d__4");
  f.done();
  f.begin(40, "Task.WhenAll");
  f.done();
  EXPECT_EQ(tracker.awaiter_of(30), 0u);
  EXPECT_EQ(tracker.awaiter_of(31), 2u);
  EXPECT_EQ(tracker.awaiter_of(32), 0u);
  EXPECT_EQ(tracker.awaiter_of(33), 40u);
  EXPECT_EQ(tracker.awaiter_of(34), 0u);
  // A combinator with no branch is no operation: its awaiter is the leaf as before.
  f.run(5);
  f.begin(41, "Task.WhenAll");
  f.done();
  EXPECT_EQ(tracker.fan_ins(), 1u);
}

// A bound per call, resumed where it stopped: every operation is charged its whole time.
TEST(AsyncOperations, ChargesPerCallAreBoundedAndTheCursorCoversEveryOperation) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  g_now_ms = 100;
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  for (uint32_t id = 1000; id < 1010; ++id) f.begin(id, "Async: <Wait>d__0");
  EXPECT_TRUE(timeless(take(tracker, 3)));
  g_now_ms += 20;
  std::vector<uint64_t> charged(10, 0);
  for (int call = 0; call < 10; ++call) {
    const std::vector<SuspendedCharge> c = take(tracker, 3);
    EXPECT_LE(c.size(), 3u);
    for (const SuspendedCharge& x : c) charged[x.task - 1000] += x.wall_ns;
  }
  for (uint64_t v : charged) EXPECT_EQ(v, 20 * kMs);
}

// The 16 slots of a line hold 16 operations whose ids share it; a 17th is not tracked, and its
// awaiter is then the leaf (the time is charged one level up, not lost).
TEST(AsyncOperations, AFullLineDropsTheOperationAndCountsIt) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  g_now_ms = 100;
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  for (uint32_t k = 0; k <= AsyncTracker::kOpLine; ++k) f.begin(7 + k * AsyncTracker::kOpSlots, "Async: <Wait>d__0");
  EXPECT_EQ(tracker.ops_dropped(), 1u);
  EXPECT_EQ(tracker.live_ops(), AsyncTracker::kOpLine);
  const uint32_t untracked = 7 + AsyncTracker::kOpLine * AsyncTracker::kOpSlots;
  f.begin(40, "Async: <Caller>d__1");  // in another line
  f.wait(untracked, 40);
  take(tracker, 64);
  g_now_ms += 2;
  bool caller = false;
  for (const SuspendedCharge& x : take(tracker, 64)) caller |= x.task == 40 && x.wall_ns == 2 * kMs;
  EXPECT_TRUE(caller);
}

// Operations begun, awaited, run and ended on several threads while another charges them (the
// sampler's side): every one is forgotten once ended, and nothing is charged twice (the charges
// add up to at most the time the operations lived). Run under ThreadSanitizer too.
TEST(AsyncOperations, EventsOnManyThreadsWhileTheSamplerCharges) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  std::atomic<uint32_t> next_id{1};
  std::atomic<int> running{4};
  const uint64_t t0 = platform::mono_now_ns();
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      OpFeed f{tracker};
      for (int i = 0; i < 3000; ++i) {
        const uint32_t outer = next_id.fetch_add(3);
        f.begin(outer + 2, "Task.Delay");
        f.begin(outer + 1, "Async: <Inner>d__1");
        f.wait(outer + 2, outer + 1);
        f.begin(outer, "Async: <Outer>d__0");
        f.wait(outer + 1, outer);
        f.run(outer + 1);
        f.end(outer + 1);
        f.run(outer);
        f.end(outer);
        f.done();
        f.done();
      }
      running.fetch_sub(1);
    });
  }
  std::vector<SuspendedCharge> out(64);
  uint64_t charged = 0;
  size_t charges = 0;
  while (running.load() > 0) {
    const size_t n = tracker.take_suspended(platform::mono_now_ns(), out.data(), out.size());
    for (size_t i = 0; i < n; ++i) charged += out[i].wall_ns;
    charges += n;
  }
  for (std::thread& t : workers) t.join();
  for (int pass = 0; pass < 2; ++pass) {
    const size_t n = tracker.take_suspended(platform::mono_now_ns(), out.data(), out.size());
    for (size_t i = 0; i < n; ++i) charged += out[i].wall_ns;
    charges += n;
  }
  const uint64_t lived = (platform::mono_now_ns() - t0) * 4 * 2;  // at most two operations per worker alive at once
  EXPECT_EQ(tracker.live_ops(), 0u);
  EXPECT_EQ(tracker.ops_tracked() + tracker.ops_dropped(), 4u * 3000u * 2u);
  EXPECT_GT(charges, 0u);
  EXPECT_LE(charged, lived);
}

// A long run: a root operation whose id is just below 2^31 stays the root of its callee's chain
// while a million tasks (ids passing 2^31 and colliding in their low 18 bits with the root's)
// begin, are awaited and end; operations with ids past 2^31, up to 0xFFFFFFFF, are tracked and
// charged like any (no id is a marker).
TEST(AsyncOperations, TheRootKeepsItsChainThroughAMillionTasksAndTheWrap) {
  ThreadRegistry registry;
  AsyncTracker tracker(&registry);
  tracker.set_clock(test_clock);
  OpFeed f{tracker};
  auto bytes = [](uint32_t id, const char* name) {
    std::vector<uint8_t> b = {static_cast<uint8_t>(id), static_cast<uint8_t>(id >> 8), static_cast<uint8_t>(id >> 16), static_cast<uint8_t>(id >> 24)};
    for (const char* p = name; *p != '\0'; ++p) b.insert(b.end(), {static_cast<uint8_t>(*p), 0});
    b.insert(b.end(), 10, 0);
    return b;
  };
  const uint32_t root = 0x7FFFF000u;
  ASSERT_TRUE(f.feed(tpl_events::kTraceOperationBegin, bytes(root, "Async: <Loop>d__1")));
  uint32_t id = root + 1;
  uint32_t last = 0;
  for (uint32_t i = 0; i < 1000000; ++i, ++id) {
    if (id == 0 || id == root) ++id;
    ASSERT_TRUE(f.feed(tpl_events::kTraceOperationBegin, bytes(id, "Async: <Tax>d__2")));
    f.wait(id, root);
    f.end(id);
    last = id;
    if (i % 1000 == 999) {
      tracker.sweep_tasks();
      take(tracker, 4096);  // the sampler's tick: ended operations leave the operation table
    }
  }
  EXPECT_EQ(tracker.chain(last), "<Tax>d__2<<Loop>d__1");
  EXPECT_EQ(tracker.name_of(root), "<Loop>d__1");
  EXPECT_EQ(tracker.tasks_dropped(), 0u);
  EXPECT_LT(tracker.tasks_live(), 100000u);

  // 0xFFFFFFFF (-1) and 0x80000000 are operations like any: alive, then charged.
  ASSERT_TRUE(f.feed(tpl_events::kTraceOperationBegin, bytes(0xFFFFFFFFu, "Async: <Basket>d__3")));
  ASSERT_TRUE(f.feed(tpl_events::kTraceOperationBegin, bytes(0x80000000u, "Async: <Gateway>d__4")));
  f.wait(0xFFFFFFFFu, 0x80000000u);
  EXPECT_EQ(tracker.chain(0xFFFFFFFFu), "<Basket>d__3<<Gateway>d__4");
  const uint32_t before = tracker.live_ops();
  take(tracker);
  g_now_ms += 50;
  bool charged = false;
  for (const SuspendedCharge& c : take(tracker)) charged = charged || (c.task == 0xFFFFFFFFu && c.wall_ns == 50 * kMs);
  EXPECT_TRUE(charged) << before << " live";
}

TEST(AsyncConfig, OffUnlessAskedForInTheAttachRequest) {
  const std::string on = "socket=/tmp/x\nasync=1\n";
  const std::string off = "socket=/tmp/x\n";
  EXPECT_TRUE(parse_client_data(on.data(), on.size()).async);
  EXPECT_FALSE(parse_client_data(off.data(), off.size()).async);
}

}  // namespace
}  // namespace clrscope
