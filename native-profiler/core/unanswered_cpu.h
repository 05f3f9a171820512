#pragma once
// CPU that no capture brought in (unanswered_cpu.cpp says how it is found), sent as CPU
// samples under a frame that says why. Sampler thread only.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/room_parts.h"

namespace clrscope {

struct ThreadEvent;

class UnansweredCpu : private SamplerRoom {
 public:
  explicit UnansweredCpu(const RoomParts& parts) : SamplerRoom(parts) {}
  // `all`: every thread now, not a share per tick.
  void account(uint64_t now, bool all);
  // The CPU a thread used after its last capture, read as it ended (ThreadEvent::final_cpu_ns).
  void emit_final_cpu(const ThreadEvent& e);
  void log_totals() const;

 private:
  // Charges the CPU past the mark on slot `index` when it is at least `threshold`. `listed`: the
  // thread is on the list (checked every tick); else this is a periodic look.
  void charge(uint32_t index, uint32_t wire_id, uint64_t now, uint64_t threshold, bool listed);
  void emit(uint32_t wire_id, uint64_t now, uint64_t cpu_ns, bool blocked);

  uint64_t next_check_mono_ = 0;
  uint32_t cursor_ = 0;
  uint64_t cpu_ns_ = 0;  // CPU sent without a capture, for the log
  uint64_t samples_ = 0;
  uint32_t blocked_frame_ = 0;     // "[CPU without a stack: signal blocked]", once used
  uint32_t uncaptured_frame_ = 0;  // "[CPU without a stack: not captured]", once used
  uint32_t gc_frame_ = 0;          // "[GC]", once a collector thread's CPU came without any stack
  std::vector<uint32_t> stack_;
  // Threads found not answering, checked every tick from then on (slot index, wire id), so that
  // a thread that ends blocked leaves at most a tick or two of CPU out.
  std::vector<std::pair<uint32_t, uint32_t>> listed_;
};

}  // namespace clrscope
