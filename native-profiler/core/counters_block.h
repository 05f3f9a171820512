#pragma once
// Publishes the runtime's counters in shared memory laid out exactly like the .NET Framework's
// perf-counter IPC block (core/ipc_block.h), so one reader serves a .NET Framework process's own
// block and ours. One writer, the sampler thread; the header's counter is a sequence lock, so a
// reader copying the block never keeps a torn snapshot.
#include <cstdint>
#include <deque>

#include "core/counters_extras.h"
#include "core/ipc_block.h"
#include "core/platform.h"
#include "core/runtime_counters.h"
#include "core/thread_registry.h"

namespace clrscope {

class CountersBlock {
 public:
  CountersBlock(const RuntimeCounters* counters, const ThreadRegistry* registry)
      : counters_(counters), registry_(registry) {}

  // Creates the shared memory and writes the header. False when it cannot be created.
  bool open(uint32_t pid, uint16_t runtime_major, uint16_t runtime_build);
  // Copies the current counter values into the block under the sequence lock.
  void publish(uint64_t now);
  // Final values stay readable by readers that mapped the block; with remove, the name goes.
  void close(bool remove);

  // The block in memory (tests; nullptr before open).
  const clr::IPCControlBlock* block() const { return block_; }

  // Fills a block's counters from the given values; exposed so the mapping from counters to
  // fields is tested on bytes without shared memory.
  struct Window {
    uint64_t gc_paused_ns;
    uint64_t jit_ns;
    uint64_t span_ns;
  };
  static void fill(clr::PerfCounterIPCControlBlock* perf, const RuntimeCounters& c, uint32_t pid,
                   uint32_t live_threads, uint64_t threads_seen, uint32_t os_threads, const Window& last_second);
  // clrscope's own section (core/counters_extras.h) from the same counters.
  static void fill_extras(CountersExtras* extras, const RuntimeCounters& c);
  static void init_header(clr::IPCControlBlock* block, uint32_t pid, uint16_t runtime_major, uint16_t runtime_build);

 private:
  struct Mark {
    uint64_t mono;
    uint64_t jit_ns;
  };
  // A GC pause as this publisher saw it: its length, counted at the first publish after it ended.
  struct PauseEnd {
    uint64_t mono;
    uint64_t ns;
  };
  Window last_second(uint64_t now);

  const RuntimeCounters* counters_;
  const ThreadRegistry* registry_;
  platform::SharedMemory memory_;
  clr::IPCControlBlock* block_ = nullptr;
  uint32_t pid_ = 0;
  std::deque<Mark> marks_;
  std::deque<PauseEnd> gc_ends_;
  uint64_t gc_paused_seen_ = 0;
  bool gc_baseline_ = false;
  uint32_t os_threads_ = 0;
  uint64_t os_threads_read_ = 0;
};

}  // namespace clrscope
