#include "core/async_tracker.h"

#include <gtest/gtest.h>

#include <string>
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
  EXPECT_EQ(tracker.awaiter_of(30 + AsyncTracker::kIdSlots), 0u);  // same slot, other id
  EXPECT_EQ(tracker.name_of(30 + AsyncTracker::kIdSlots), "");

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

TEST(AsyncConfig, OffUnlessAskedForInTheAttachRequest) {
  const std::string on = "socket=/tmp/x\nasync=1\n";
  const std::string off = "socket=/tmp/x\n";
  EXPECT_TRUE(parse_client_data(on.data(), on.size()).async);
  EXPECT_FALSE(parse_client_data(off.data(), off.size()).async);
}

}  // namespace
}  // namespace clrscope
