#pragma once
// clrscope's own section of the counters block: figures the .NET Framework's perf block has no
// field for (working set, CPU %, the thread pool), the GC handle count as the signed value it is,
// and rates as dotnet-counters shows them. It lies in the block's zero padding at a fixed
// offset, behind a magic number, so a reader of the Framework layout never sees it and
// structs/ipcblock/extras.ts finds it only in a block that has it. Every field is 8 bytes and
// 8-aligned: the same layout in 32- and 64-bit processes. Written under the header's sequence
// lock with the rest of the block.
#include <cstddef>
#include <cstdint>

#include "core/ipc_block.h"

namespace clrscope {

constexpr uint32_t kExtrasOffset = 1024;       // from the start of the block
constexpr uint32_t kExtrasMagic = 0x31585343;  // "CSX1" little-endian

struct CountersExtras {
  uint32_t magic;    // kExtrasMagic
  uint32_t size;     // sizeof(CountersExtras)
  uint64_t present;  // bit i: field i below (counting from gc_handles) holds a value
  // The runtime's GCHeapStats GCHandleCount as the signed 32-bit value it is: the runtime keeps
  // it as a running count resynced only at gen-2 GCs, and it can read below zero in between.
  int64_t gc_handles;
  double alloc_bytes_per_sec;
  uint64_t allocated_bytes;  // since the counters session began
  double gc_committed_bytes;
  double working_set_bytes;
  double cpu_percent;
  double threadpool_threads;
  double threadpool_queue_length;
  double threadpool_completed_per_sec;
  uint64_t threadpool_completed;  // since the counters session began
};

// Bits of `present`, in field order.
enum ExtrasField : uint32_t {
  kXGcHandles = 0, kXAllocRate, kXAllocated, kXGcCommitted, kXWorkingSet, kXCpuPercent, kXPoolThreads,
  kXPoolQueueLength, kXPoolCompletedRate, kXPoolCompleted,
};

static_assert(sizeof(CountersExtras) == 96, "CountersExtras size");
static_assert(offsetof(CountersExtras, gc_handles) == 16, "CountersExtras::gc_handles");
static_assert(offsetof(CountersExtras, threadpool_completed) == 88, "CountersExtras::threadpool_completed");
static_assert(kExtrasOffset >= clr::kIpcBlockUsedSize && kExtrasOffset + sizeof(CountersExtras) <= clr::kIpcBlockSize,
              "the extras lie in the block's padding");

}  // namespace clrscope
