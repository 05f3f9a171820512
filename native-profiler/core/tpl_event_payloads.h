#pragma once
// The TPL event source's events that async call stacks are made of, and their payloads read as
// pure byte decoding, apart from the tracker so they are tested on bytes alone
// (native-profiler/TPL-EVENTS.md has the layouts as seen on .NET 10).
#include <cstddef>
#include <cstdint>
#include <string>

namespace clrscope {

namespace tpl_events {
// TplEventSource (System.Private.CoreLib, TplEventSource.cs): TaskTransfer | AsyncCausalityOperation
// | AsyncCausalitySynchronousWork. Never AsyncMethod (0x100: a finalizer on every box) nor the
// activity-id keywords 0x80 / 0x10000 (a cost on every await and every Start/Stop).
constexpr char16_t kProvider[] = u"System.Threading.Tasks.TplEventSource";
constexpr uint64_t kKeywords = 0x1 | 0x8 | 0x20;
constexpr uint32_t kInformational = 4;
constexpr uint32_t kTaskWaitBegin = 10;
constexpr uint32_t kAwaitTaskContinuationScheduled = 12;
constexpr uint32_t kTraceOperationBegin = 14;
constexpr uint32_t kTraceOperationEnd = 15;
constexpr uint32_t kTraceSynchronousWorkBegin = 17;
constexpr uint32_t kTraceSynchronousWorkEnd = 18;
}  // namespace tpl_events

// TaskWaitBegin v3: OriginatingTaskSchedulerID, OriginatingTaskID, TaskID, Behavior,
// ContinueWithTaskID (i32 each). The edge is TaskID (awaited) -> ContinueWithTaskID (awaiter);
// false for short payloads and waits with no continuation task (a synchronous Wait()).
bool parse_task_wait_begin(const uint8_t* data, size_t size, uint32_t* awaited, uint32_t* awaiter);
// TraceOperationBegin v1: TaskID i32, OperationName (UTF-16, NUL-terminated), RelatedContext i64.
// The name as ASCII-folded UTF-8 without CoreLib's "Async: " prefix, cut at `cap` bytes;
// `async_method` (optional) says whether the prefix was there (an async method's box, not a
// promise such as Task.Delay or a combinator).
bool parse_operation_begin(const uint8_t* data, size_t size, uint32_t* id, std::string* name, size_t cap = 120,
                           bool* async_method = nullptr);
// TraceOperationEnd v1: TaskID, Status (i32 each).
bool parse_operation_end(const uint8_t* data, size_t size, uint32_t* id);
// TraceSynchronousWorkBegin v1: TaskID, Work (i32 each; Work 2 = Execution: the box runs its
// MoveNext; 0 = CompletionNotification: the finished task runs its continuations).
constexpr uint32_t kWorkExecution = 2;
bool parse_sync_work_begin(const uint8_t* data, size_t size, uint32_t* id, uint32_t* work);

}  // namespace clrscope
