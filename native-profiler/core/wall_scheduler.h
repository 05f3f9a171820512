#pragma once
// Wall-time sampling: each tick asks a share of the live threads for a capture, in rotation,
// or answers for an idle thread from its last stack without waking it. Sampler thread only.
#include <cstdint>

#include "core/room_parts.h"

namespace clrscope {

struct SampledThread;
struct ThreadSlot;

class WallScheduler : private SamplerRoom {
 public:
  explicit WallScheduler(const RoomParts& parts) : SamplerRoom(parts) {}
  void request(uint64_t now);
  // Asks a thread again for a capture whose walk broke in code its module table did not have
  // yet, carrying that capture's values to the answer.
  void retake(uint32_t wire_id, uint32_t slot, uint64_t cpu_ns, uint64_t wall_ns);
  // Wall samples answered from idle threads' last stacks, for the log.
  uint64_t reused() const { return reused_; }

 private:
  bool reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, SampledThread& t, uint64_t now);

  uint32_t cursor_ = 0;
  uint64_t reused_ = 0;
  bool wait_state_known_ = true;  // the OS tells a thread's waiting state (else no idle reuse)
};

}  // namespace clrscope
