#pragma once
// The threads the stream knows: THREAD and THREAD_END records for what the runtime's callbacks
// put in the registry, and a look at the OS's thread list for threads the runtime never reports
// (native threads, every thread that started before an attach). Sampler thread only.
#include <cstdint>
#include <string>
#include <vector>

#include "core/room_parts.h"
#include "core/thread_registry.h"

namespace clrscope {

class UnansweredCpu;

class ThreadScan : private SamplerRoom {
 public:
  ThreadScan(const RoomParts& parts, UnansweredCpu* unanswered) : SamplerRoom(parts), unanswered_(unanswered) {}
  // The first look at the OS's list comes shortly after the stream begins, once an attach has
  // had the chance to register the threads the runtime does report.
  void begin(uint64_t mono);
  // Sends what the registry reported since the last call.
  void announce();
  // Looks at the OS's list when it is time to.
  void scan_os(uint64_t now);

 private:
  std::string display_name(const ThreadEvent& e, const std::string& os_name) const;

  UnansweredCpu* unanswered_;
  std::vector<ThreadEvent> events_;
  std::vector<OsThread> os_threads_;
  uint64_t next_os_scan_mono_ = 0;
  uint32_t os_scans_ = 0;
};

}  // namespace clrscope
