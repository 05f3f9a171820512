#pragma once
// Async call stacks, design A of issue 14 (experimental, CLRSCOPE_ASYNC=1): the TPL event source's
// task events, delivered synchronously to the profiler's in-process EventPipe session on the
// thread that raised them, give
//   - TaskWaitBegin: an await edge, awaited task id -> the awaiting method's box id;
//   - TraceOperationBegin: a box id -> its state machine's type name (`<Inner>d__2`);
//   - TraceSynchronousWorkBegin/End: the box a thread runs from now on / no longer.
// The running box goes into the thread's registry slot, where the signal handler copies it into
// each sample with one load; edges and names go into fixed tables, so memory stays bounded. The
// payload parsers are pure byte decoding (native-profiler/TPL-EVENTS.md has the layouts as seen on .NET 10).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace clrscope {

class ThreadRegistry;

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
// The name as ASCII-folded UTF-8 without CoreLib's "Async: " prefix, cut at `cap` bytes.
bool parse_operation_begin(const uint8_t* data, size_t size, uint32_t* id, std::string* name, size_t cap = 120);
// TraceSynchronousWorkBegin v1: TaskID, Work (i32 each; Work 2 = Execution: the box runs its
// MoveNext; 0 = CompletionNotification: the finished task runs its continuations).
constexpr uint32_t kWorkExecution = 2;
bool parse_sync_work_begin(const uint8_t* data, size_t size, uint32_t* id, uint32_t* work);

class AsyncTracker {
 public:
  // Table sizes (powers of two). Task ids come from one counter (Task.NewId), so a table indexed
  // by the id's low bits keeps the newest 2^18 ids' edges and names: an operation whose box was
  // created more than 262144 task ids ago loses its name or edge (the chain ends there).
  static constexpr uint32_t kIdSlots = 1u << 18;
  static constexpr uint32_t kNameSlots = 4096;  // distinct state machine type names
  static constexpr uint32_t kNameBytes = 120;
  static constexpr uint32_t kDepth = 16;  // nested synchronous work per thread (inline continuations)

  explicit AsyncTracker(ThreadRegistry* registry);
  ~AsyncTracker();
  AsyncTracker(const AsyncTracker&) = delete;
  AsyncTracker& operator=(const AsyncTracker&) = delete;

  // One TplEventSource event, on the thread that raised it (normal context). Returns whether it
  // was one this tracker reads.
  bool on_event(uint32_t event_id, const uint8_t* data, size_t size);

  // Sampler side (any thread): the box that awaits `id` (0: unknown) and a box's name ("": unknown).
  uint32_t awaiter_of(uint32_t id) const;
  std::string name_of(uint32_t id) const;
  // The chain from `box` outwards as "name<name<...", at most `levels` deep, cycle-safe.
  std::string chain(uint32_t box, uint32_t levels = 32) const;

  uint64_t events() const { return events_.load(std::memory_order_relaxed); }
  uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  uint64_t names_dropped() const { return names_dropped_.load(std::memory_order_relaxed); }
  uint64_t depth_overflows() const { return depth_overflows_.load(std::memory_order_relaxed); }

  // Raw payloads of the first few events of each kind, logged once (CLRSCOPE_ASYNC_LOG=1).
  void set_log_payloads(bool on) { log_payloads_ = on; }

 private:
  void set_current(uint32_t box, bool begin);
  uint32_t intern(const std::string& name);

  ThreadRegistry* registry_;
  // (id << 32 | value) in one word, so a reader never pairs one id's key with another's value.
  std::atomic<uint64_t>* edges_;
  std::atomic<uint64_t>* names_;
  struct NameSlot {
    std::atomic<uint64_t> hash;
    std::atomic<uint32_t> ready;
    char text[kNameBytes + 1];
  };
  NameSlot* name_table_;
  std::atomic<uint64_t> events_{0};     // read (edges, names, running boxes)
  std::atomic<uint64_t> delivered_{0};  // all TplEventSource events given to on_event
  std::atomic<uint64_t> names_dropped_{0};
  std::atomic<uint64_t> depth_overflows_{0};
  std::atomic<uint32_t> logged_[32] = {};
  bool log_payloads_ = false;
};

}  // namespace clrscope
