#pragma once
// Async call stacks on the stream (async_chains.cpp says how): TASK records for the chains that
// samples name, and the wall time of async operations suspended at the leaf of their chain as
// samples of a synthetic thread. Sampler thread only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/async_tracker.h"
#include "core/emitter.h"
#include "core/heap_chains.h"
#include "core/task_names.h"

namespace clrscope {

struct SampleStream;
struct SamplingShared;

class AsyncChains final : public Emitter {
 public:
  // With `log`, each sample taken in an async box also logs its logical chain. The chains come
  // from the TPL events' tracker (`tracker`, which also gives suspended operations' time) or from
  // the heap walk (`heap`); exactly one of them is set.
  AsyncChains(SampleStream* stream, SamplingShared* shared, AsyncTracker* tracker, HeapChains* heap, bool log);
  // Sends TASK records for `box` and its awaiters that the reader does not have as they are now.
  void define_task_chain(uint32_t box);
  bool logs_samples() const { return log_; }
  void log_sample(const NamedCapture& c);
  // Suspended operations' time, each tick while wall sampling is on.
  void flush(const FlushPoint& at) override;
  // Wall samples of suspended async operations sent.
  uint64_t suspended_samples() const { return suspended_samples_; }

 private:
  // At most `max` operations' charges this tick, on the synthetic "[async operations]" thread.
  void emit_suspended_ops(uint64_t now, size_t max);
  uint32_t awaiting_frame(uint32_t awaited);
  // The key of a charge: the names along its operation's chain (as the reader will see it) and
  // its leaf frame; charges with equal keys have the same logical stack.
  void charge_key(const SuspendedCharge& c, uint32_t leaf, std::string* key) const;

  SampleStream* stream_;
  SamplingShared* shared_;
  AsyncTracker* async_;
  HeapChains* heap_;
  const TaskNames* names_;
  bool log_;
  // TASK records sent: task id -> awaiter << 32 | name STRING id (bounded: cleared when large).
  std::unordered_map<uint32_t, uint64_t> tasks_sent_;
  std::vector<std::string> frame_names_;     // frame id -> its function's name
  std::vector<std::string> function_names_;  // function id -> name
  uint32_t thread_id_ = 0;         // the "[async operations]" thread's wire id, once announced
  uint32_t suspended_frame_ = 0;   // the "[suspended]" frame
  std::unordered_map<std::string, uint32_t> awaiting_frames_;  // awaited task's name -> "[awaiting …]" frame
  std::vector<uint32_t> awaiting_by_index_;                    // name index -> that frame (0 none, ~0u not yet)
  std::vector<SuspendedCharge> suspended_;
  // One tick's charges summed per key (charge_key): one sample each, its task the first charged.
  struct ChargeGroup {
    uint32_t task;
    uint32_t leaf;
    uint64_t wall_ns;
    uint32_t suspended;  // its operations still suspended there at the tick
  };
  std::unordered_map<std::string, size_t> group_index_;
  std::vector<ChargeGroup> groups_;
  std::string key_;
  uint64_t suspended_samples_ = 0;
};

}  // namespace clrscope
