#pragma once
// System.Runtime's EventCounters, read from the profiler's own EventPipe session: the figures
// the profiling API has no callback for (allocated bytes, GC committed bytes, the thread pool's
// threads, queue and completed items, working set, CPU %), as dotnet-counters shows them.
//
// Why this source: each of these is a managed API's value (GC.GetTotalAllocatedBytes,
// GCMemoryInfo.TotalCommittedBytes, ThreadPool.ThreadCount / PendingWorkItemCount /
// CompletedWorkItemCount, Environment.WorkingSet, the process's CPU time). The runtime's own
// RuntimeEventSource polls them once per interval on one timer thread when a session asks
// ("EventCounterIntervalSec=1"), which is exactly what dotnet-counters reads; nothing is added
// per allocation or per work item (the runtime's thread-pool and allocation events would be).
//
// The events are self-describing: the metadata blob EventPipeEventDelivered passes (event id
// u32, name UTF-16z, keywords u64, version u32, level u32, then a V1 field list: i32 count and
// per field i32 TypeCode, nested fields for TypeCode Object, UTF-16z name) says where each
// field lies, so the payload is read from it rather than from an assumed order.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace clrscope {

namespace event_counters {
constexpr char16_t kProvider[] = u"System.Runtime";
constexpr char16_t kFilter[] = u"EventCounterIntervalSec=1";
constexpr uint64_t kKeywords = 0xffffffffull;  // as dotnet-counters enables it
constexpr uint32_t kInformational = 4;
}  // namespace event_counters

// One counter's value for one interval.
struct EventCounterReading {
  char name[48] = {};   // ASCII, e.g. "threadpool-queue-length"; longer names are cut
  bool sum = false;     // an incrementing counter: `value` is the increment over the interval
  double value = 0;     // the mean (a level) or the increment (a rate)
  double interval_sec = 0;
};

// Reads one EventCounters event; false for any other event, a layout it cannot read, or a
// payload shorter than its layout.
bool read_event_counter(const uint8_t* metadata, size_t metadata_size, const uint8_t* data, size_t size,
                        EventCounterReading* out);

// The System.Runtime figures, written by the runtime's counter thread and read by the sampler
// thread as it publishes the counters block. Doubles as the counters give them; `present` has
// one bit per field once its counter has arrived (a reader shows the others as absent).
struct RuntimeGauges {
  enum Field : uint32_t {
    kAllocRate = 0,       // bytes allocated per second over the latest interval
    kGcCommitted,         // bytes committed by the GC at its latest collection
    kWorkingSet,          // bytes
    kCpuPercent,          // % of all processors over the latest interval
    kPoolThreads,
    kPoolQueueLength,
    kPoolCompletedRate,   // work items completed per second over the latest interval
    kFieldCount,
  };
  std::atomic<double> value[kFieldCount]{};
  // Running totals of the incrementing counters since the session began.
  std::atomic<uint64_t> allocated_bytes{0};
  std::atomic<uint64_t> completed_items{0};
  std::atomic<uint32_t> present{0};
  // Intervals of the thread pool's completed items applied: a reader that sends the pool's
  // figures once per interval sends them when this moves.
  std::atomic<uint64_t> pool_intervals{0};

  bool has(Field f) const { return (present.load(std::memory_order_acquire) & (1u << f)) != 0; }
};

// Applies one System.Runtime counter; counters clrscope does not publish are ignored.
void apply_event_counter(const EventCounterReading& reading, RuntimeGauges* gauges);

}  // namespace clrscope
