#pragma once
// What the sampler knows of each thread (by wire id), shared by the rooms that schedule,
// drain and emit its samples. Sampler thread only.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace clrscope {

struct SampledThread {
  uint64_t last_wall_mono = 0;
  uint64_t wall_requested_mono = 0;
  // Values of captures that could not walk the stack yet (bounds unknown), carried to the
  // thread's next sample.
  uint64_t carry_cpu_ns = 0;
  uint64_t carry_wall_ns = 0;
  uint32_t probes = 0;
  uint32_t retries = 0;  // captures in a row retaken because the walk met code loaded after its table
  bool native = false;  // not reported by the runtime: CPU samples only
  bool gc_thread = false;  // one of the runtime's collector threads (core/gc_frame.h)
  // The last wall capture, kept to answer for a thread that has not run since (see
  // WallScheduler::reuse_idle_stack). Cleared by any CPU sample (the thread ran).
  bool memo = false;
  bool memo_checked = false;  // its waiting state was confirmed once; from then on, CPU decides
  uint64_t memo_cpu = 0;      // the thread's CPU clock when the memo was made or confirmed
  uint64_t memo_switches = 0;
  uint8_t memo_flags = 0;     // incomplete / elided bits of that capture
  std::vector<uint32_t> memo_frames;
  // The stack of the thread's latest sample, for CPU that comes without a capture.
  uint8_t last_flags = 0;
  std::vector<uint32_t> last_frames;
  // The CPU mark the sampler last set for CPU no capture brought in; 0 when the thread is not
  // on the list of threads checked every tick.
  uint64_t unanswered_mark = 0;
  bool unanswered_blocked = false;  // why, read when it was put on the list
  // The mark and the thread's clock at the previous periodic look: a thread is taken for not
  // answering only when its mark held still between two looks while its clock moved on.
  uint64_t looked_mark = ~0ull;
  uint64_t looked_cpu = 0;
};

class ThreadBook {
 public:
  // Null for a thread not (or no longer) known.
  SampledThread* find(uint32_t wire_id) {
    auto it = threads_.find(wire_id);
    return it == threads_.end() ? nullptr : &it->second;
  }
  // The thread's state, made empty if it had none.
  SampledThread& at(uint32_t wire_id) { return threads_[wire_id]; }
  void erase(uint32_t wire_id) { threads_.erase(wire_id); }
  // Whether the reader has the thread's THREAD record: nothing of a thread goes out before it.
  bool announced(uint32_t wire_id) const { return wire_id < announced_.size() && announced_[wire_id]; }
  void set_announced(uint32_t wire_id) {
    if (announced_.size() <= wire_id) announced_.resize(wire_id + 1024, false);
    announced_[wire_id] = true;
  }

 private:
  std::unordered_map<uint32_t, SampledThread> threads_;
  std::vector<bool> announced_;  // by wire id
};

}  // namespace clrscope
