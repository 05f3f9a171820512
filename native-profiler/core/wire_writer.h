#pragma once
// Encodes the clrscope sample stream, wire v2 (structs/wire/PROTOCOL.md). Pure byte building:
// where the bytes go, and what happens when they cannot go, is the Outbox's job.
//
// v2 interns stacks here, at the source: sample() takes the frames, sends a STACK definition
// the first time it sees them (bounded table, STACK_RESET when full) and then only the stack's
// id. Samples are packed into SAMPLES records with their times and values delta/varint coded
// against the previous sample of the stream (and of the thread). The record being filled is
// kept aside: definitions (THREAD, MODULE, FUNCTION, FRAME, STACK, STRING) go out ahead of it,
// so a new stack does not cut the record in two; any other record, or close_batch() (which must
// run before the bytes are sent), appends it first.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/page_memory.h"
#include "core/stack_table.h"

namespace clrscope {

namespace wire {
constexpr uint16_t kVersion = 2;
constexpr uint32_t kMaxRecord = 1u << 20;
constexpr size_t kMaxString = 65535;
// A SAMPLES or EVENTS record is closed once it reaches this size, so records stay far below
// kMaxRecord, the outbox can send while a busy tick is still being encoded, and the bytes held
// aside (not yet counted by the outbox) stay few.
constexpr size_t kBatchBytes = 16 * 1024;

enum RecordType : uint8_t {
  kHello = 0x01,
  kThread = 0x02,
  kThreadEnd = 0x03,
  kFunction = 0x04,
  kStats = 0x06,
  kSuspension = 0x07,
  kModule = 0x09,
  kFrame = 0x0A,
  kStack = 0x0B,
  kStackReset = 0x0C,
  kSamples = 0x0D,
  kString = 0x0E,
  kEvents = 0x0F,
  kTask = 0x10,
  kTaskSamples = 0x11,
  kOperationCounts = 0x12,
  kEventMessages = 0x13,
  kGcEvent = 0x14,
  kRequest = 0x15,
  kRuntimeEvent = 0x16,
  kRequestSamples = 0x17,
  kRequestWindow = 0x18,
  kPoolGauge = 0x19,
  kRequestBackfill = 0x1A,
  kEnd = 0x7F,
};

// kHelloAsync: async tracking is on (TASK and TASK_SAMPLES records may follow). kHelloAfterLoss:
// this connection only says why the process's earlier stream ended (its descriptor was taken by
// the program): STATS and END follow, for the reader to add to that stream.
enum HelloFlags : uint32_t { kHelloCpu = 1, kHelloWall = 2, kHelloAttached = 4, kHelloAsync = 16, kHelloAfterLoss = 32 };
// Sample flags as the sampler builds them; on the wire v2 the first two stay with the sample
// and the last two go with its STACK (they describe the walk, which the stack records).
enum SampleFlags : uint8_t { kSampleCpu = 1, kSampleWall = 2, kSampleIncomplete = 4, kSampleElided = 8 };
enum FunctionKind : uint8_t { kManaged = 0, kNative = 1, kSynthetic = 2 };
// kEndConnectionLost: the program closed the stream's descriptor (or reused its number); its END
// carries the descriptor and how (PROTOCOL.md, END).
enum EndReason : uint8_t { kEndShutdown = 0, kEndDetach = 1, kEndStopped = 2, kEndRequested = 3, kEndConnectionLost = 4 };
enum ModuleKind : uint8_t { kModuleManaged = 0, kModuleNative = 1 };
enum OffsetKind : uint8_t { kOffsetNone = 0, kOffsetIL = 1, kOffsetNative = 2 };
// kEventLive: one group of sampled objects alive after a GC (the live heap), sent in snapshots
// each led by a kEventLiveSnapshot on thread 0 (PROTOCOL.md, EVENTS).
enum EventKind : uint8_t {
  kEventAllocation = 1,
  kEventContention = 2,
  kEventException = 3,
  kEventLive = 4,
  kEventLiveSnapshot = 5,
};
enum SuspensionFlags : uint8_t { kSuspensionInduced = 1, kSuspensionAborted = 2 };

// The head byte of one sample in a SAMPLES record.
enum SampleHead : uint8_t {
  kHeadCpu = 0x01,           // a cpuNs field follows
  kHeadWall = 0x02,          // the sample has a wall value
  kHeadThreadMask = 0x0C,    // 0: a thread delta follows; kHeadThreadSame; kHeadThreadNext
  kHeadThreadSame = 0x04,    // the previous sample's thread
  kHeadThreadNext = 0x08,    // the previous sample's thread + 1
  kHeadMonoSame = 0x10,      // the previous sample's mono (else a mono delta follows)
  kHeadStackSame = 0x20,     // this thread's previous stack (else a stack id follows)
  kHeadWallPredicted = 0x40, // wall = mono - this thread's previous wall-sample mono
};
// The head byte of one event in an EVENTS record.
enum EventHead : uint8_t { kEventHasValue2 = 0x01, kEventHasStack = 0x02, kEventHasLabel = 0x04 };
constexpr uint32_t kMaxStackId = (1u << 24) - 1;
}  // namespace wire

struct HelloRecord {
  uint32_t pid;
  uint32_t flags;
  uint64_t mono;
  uint64_t unix_ns;
  uint32_t interval_ns;
  uint32_t wall_threads_per_tick;
  std::string runtime_version;
  std::string profiler_version;
};

struct SuspensionRecord {
  uint64_t mono;         // RuntimeSuspendStarted
  uint64_t duration_ns;  // until RuntimeResumeFinished
  uint64_t suspend_ns;   // until RuntimeSuspendFinished
  uint8_t reason;        // COR_PRF_SUSPEND_REASON
  int8_t generation;     // highest generation collected, -1 none
  uint8_t flags;         // wire::SuspensionFlags
};

// One of the runtime's GC events, its payload's figures decoded (core/gc_event_payloads.h).
struct GcEventRecord {
  uint64_t mono;    // when it was delivered: synchronously, on the thread that raised it
  uint32_t tid;     // that thread's OS id
  uint8_t event;    // the runtime's event id
  uint8_t version;  // the event's version
  uint64_t a, b, c, d;
};

// One of the runtime's events that is not a GC's: the thread pool's, a thread's WaitHandleWait
// (core/runtime_event_tracker.h); its id needs 16 bits (WaitHandleWaitStart is 301).
struct RuntimeEventRecord {
  uint64_t mono;    // when it was delivered: synchronously, on the thread that raised it
  uint32_t tid;     // that thread's OS id
  uint16_t event;   // the runtime's event id
  uint8_t version;  // the event's version
  uint64_t a, b, c, d;
};

// One HTTP request served (core/request_tracker.h); strings are STRING ids.
struct RequestRecord {
  uint64_t mono;      // its start (the hosting's HttpRequestIn.Start)
  uint64_t end_mono;  // its end (HttpRequestIn.Stop); 0: still in flight when the stream ended
  uint32_t start_tid;  // OS thread of the start
  uint32_t end_tid;    // OS thread of the end (0 in flight)
  uint32_t status;     // HTTP status code
  uint32_t method;     // STRING "GET"
  uint32_t endpoint;   // STRING route pattern "/cpu/{ms}"
  uint32_t trace_id;   // STRING, 32 hex digits
  uint32_t span_id;    // STRING, 16 hex digits
  uint32_t seq;        // its number, as REQUEST_SAMPLES name it
};

struct StatsRecord {
  uint64_t mono;
  uint64_t samples;
  uint64_t dropped_ring_full;
  uint64_t dropped_buffer_full;
  uint64_t dropped_watchdog;
  uint64_t dropped_other;
  // When the profiler found its signal handler replaced and stopped sampling; 0 while it samples
  // (then the field is not sent: PROTOCOL.md, STATS).
  uint64_t signal_lost_mono = 0;
  // The profiler's own cost since the stream began (PROTOCOL.md, STATS), in wire order: the
  // process's CPU, then the parts of clrscope's own time (core/self_cost.h). Sent when has_cost.
  bool has_cost = false;
  uint64_t process_cpu_ns = 0;
  uint64_t handler_ns = 0;
  uint64_t callbacks_ns = 0;
  uint64_t runtime_events_ns = 0;
  uint64_t event_stacks_ns = 0;
  uint64_t symbols_ns = 0;
  uint64_t writer_ns = 0;
  uint64_t sampler_ns = 0;
};

// One event sample (allocation, contention, exception: wire::EventKind). Values by kind are in
// PROTOCOL.md; `label_id` names a STRING (0: none), and so does `message_id` (an exception's
// message, sent in the EVENT_MESSAGES record that follows the EVENTS record; 0: none).
struct EventRecord {
  uint8_t kind = 0;
  uint64_t mono = 0;
  uint32_t thread_id = 0;
  uint8_t stack_flags = 0;  // kSampleIncomplete / kSampleElided of the walk, when there is a stack
  uint32_t label_id = 0;
  uint64_t value1 = 0;
  uint64_t value2 = 0;
  bool has_value2 = false;
  uint32_t message_id = 0;
};

class WireWriter {
 public:
  explicit WireWriter(ByteBuffer* out) : out_(out) {}

  void preamble();
  void hello(const HelloRecord& h);
  void thread(uint32_t thread_id, uint32_t os_tid, uint64_t clr_thread_id, uint64_t mono, const std::string& name);
  // Also forgets the thread's sample state (the reader does the same).
  void thread_end(uint32_t thread_id, uint64_t mono);
  // `mvid`: 16 bytes (a GUID as laid out in memory), or nullptr for none.
  void module(uint32_t module_id, uint8_t kind, const uint8_t* mvid, const std::string& path);
  void function(uint32_t function_id, uint8_t kind, uint32_t module_id, uint32_t token, const std::string& name,
                const std::string& file);
  void frame(uint32_t frame_id, uint32_t function_id, uint8_t offset_kind, uint32_t offset);
  void string(uint32_t string_id, const std::string& text);
  // `frames` are frame ids, leaf first; `flags` are wire::SampleFlags (all four). `task`: the
  // async task (TASK id) the thread was running, 0 for none; marked in the TASK_SAMPLES record
  // that follows the SAMPLES record when it closes. `operations`: with a task, how many suspended
  // operations sit where the sample says (OPERATION_COUNTS, after the TASK_SAMPLES record).
  // `request`: the HTTP request it was taken in (REQUEST's seq; REQUEST_SAMPLES, after those).
  void sample(uint64_t mono, uint32_t thread_id, uint8_t flags, uint64_t cpu_ns, uint64_t wall_ns,
              const uint32_t* frames, uint16_t frame_count, uint32_t task = 0, uint32_t operations = 0,
              uint32_t request = 0);
  // An async task: its id, the task awaiting it (0: none known) and its name (a STRING id, 0:
  // unknown). `again`: the id was defined before in this stream with other values; the open
  // SAMPLES record is closed first, so samples already in it keep the old definition.
  void task(uint32_t task_id, uint32_t awaiter_id, uint32_t name_id, bool again);
  // An event with the stack `frames` (frame_count 0 and frames nullptr: no stack).
  void event(const EventRecord& e, const uint32_t* frames, uint16_t frame_count, bool has_stack);
  void stats(const StatsRecord& s);
  void suspension(const SuspensionRecord& s);
  void gc_event(const GcEventRecord& e);
  void runtime_event(const RuntimeEventRecord& e);
  void request(const RequestRecord& r);
  // Samples sent earlier that request `seq` owns, by their samples_written() ordinals (ascending,
  // all in this stream): REQUEST_BACKFILL records, each naming them by how far back they are.
  void request_backfill(uint32_t seq, const uint64_t* ordinals, size_t count);
  // Samples written so far (the latest one's ordinal, from 1).
  uint64_t samples_written() const { return samples_written_; }
  // A span of time the bridge listened for requests (core/request_duty.h).
  void request_window(uint64_t start, uint64_t end, uint32_t begun, uint32_t cut, uint32_t max_per_s);
  // The thread pool's counters at `mono` (core/pool_gauge_emitter.cpp).
  void pool_gauge(uint64_t mono, uint32_t threads, uint32_t queue_length, uint64_t completed);
  // With a `descriptor` (>= 0), the lost connection's number and how it was lost (1 closed,
  // 2 replaced) are appended.
  void end(uint64_t mono, uint8_t reason, int32_t descriptor = -1, uint8_t how = 0);
  // A record of any type with an opaque body (tests; future record types).
  void raw(uint8_t type, const uint8_t* body, size_t size);
  // Forgets every stack (STACK_RESET); the table does this itself when it is full.
  void reset_stacks();
  // Finishes the open SAMPLES/EVENTS record so the buffer ends on a record boundary.
  void close_batch();

  // At most the bytes a sample (or event) with this many frames adds, its STACK definition and
  // a new SAMPLES record included: to decide before encoding whether it fits.
  static size_t sample_size(uint16_t frame_count) { return 5 + 47 + 5 + 15 + 5u * frame_count + 15; }
  const StackTable& stacks() const { return stacks_; }

 private:
  struct ThreadState {
    uint32_t stack = 0;  // 0: none yet
    uint32_t stack_hash = 0;
    bool has_wall = false;
    uint64_t wall_mono = 0;
  };
  // The stack's id, defining it (STACK, after STACK_RESET when the table is full) if new.
  uint32_t stack_id(const uint32_t* frames, uint16_t count, uint8_t flags, uint32_t hash);
  void write_stack(uint32_t id, const uint32_t* frames, uint16_t count, uint8_t flags);
  void open_batch(uint8_t type);
  // A record that may go out ahead of the samples held aside (a definition), or not.
  size_t begin_definition(uint8_t type);
  size_t begin(uint8_t type);
  void finish(size_t start);
  void u8(uint8_t v) { out_->push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void four_values(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
  void varint(uint64_t v) { varint_to(out_, v); }
  static void varint_to(ByteBuffer* to, uint64_t v);
  static uint8_t* put_varint(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
      *p++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    return p;
  }
  void str(const std::string& s);

  ByteBuffer* out_;
  StackTable stacks_;
  std::vector<uint32_t> last_stack_;  // the previous STACK's frames, for prefix sharing
  // The body of the SAMPLES/EVENTS record being filled: allocated once (kBatchBytes and room
  // for one more sample or event), filled up to batch_len_.
  ByteBuffer batch_;
  size_t batch_len_ = 0;
  uint8_t batch_type_ = 0;  // 0: none open
  // TASK_SAMPLES of the open SAMPLES record: (index in the record, task) varint pairs; its
  // OPERATION_COUNTS: (index, count) pairs.
  ByteBuffer task_marks_;
  ByteBuffer operation_counts_;
  ByteBuffer request_marks_;  // REQUEST_SAMPLES: (index, request seq) pairs
  // EVENT_MESSAGES of the open EVENTS record: (index in the record, message STRING) varint pairs.
  ByteBuffer event_messages_;
  uint32_t batch_samples_ = 0;
  uint64_t samples_written_ = 0;
  uint64_t prev_mono_ = 0;
  uint32_t prev_thread_ = 0;
  // Per-thread state: writers number threads densely from 1, so ids below kDirectThreads index
  // a vector; the rare larger id (a process that made that many threads) goes to a map.
  static constexpr uint32_t kDirectThreads = 1u << 16;
  ThreadState& thread_state(uint32_t thread_id);
  std::vector<ThreadState, PageAllocator<ThreadState>> direct_threads_;
  std::unordered_map<uint32_t, ThreadState> threads_;
  uint64_t prev_event_mono_ = 0;
  uint32_t prev_event_thread_ = 0;
};

// The longest prefix of `s` that is at most `max` bytes and ends on a UTF-8 boundary.
size_t utf8_prefix(const std::string& s, size_t max);

}  // namespace clrscope
