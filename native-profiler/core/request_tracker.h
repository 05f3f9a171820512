#pragma once
// HTTP requests (core/request_payloads.h) as their start and stop events arrive on the threads
// serving them, paired by the Activity's span id and held for the sampler thread to send as
// REQUEST records. Bounded: at most kMaxInFlight requests open (more are counted, not tracked) and
// kMaxHeld ended ones unsent (the oldest half goes, counted), so a stream that stopped being read,
// or stop events that never come, cannot make it grow.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/request_payloads.h"

namespace clrscope {

struct HeldRequest {
  uint64_t start_mono = 0;
  uint64_t end_mono = 0;  // 0: still in flight when sent (the stream's end)
  uint32_t start_tid = 0;
  uint32_t end_tid = 0;
  uint32_t status = 0;
  std::string method, endpoint, trace_id, span_id;
};

class RequestTracker {
 public:
  static constexpr size_t kMaxInFlight = 16384;
  static constexpr size_t kMaxHeld = 65536;

  // The serving thread, as EventPipeEventDelivered hands it a bridge event. `mono` now, `tid` its OS id.
  void on_event(const uint8_t* data, size_t size, uint64_t mono, uint32_t tid);
  void on_request_event(const RequestEvent& e, uint64_t mono, uint32_t tid);

  // Sampler thread: the requests that ended since the last call, in order of their end; with
  // `in_flight` (the stream's end) also those still open, with end_mono 0.
  void take(std::vector<HeldRequest>* out, bool in_flight);

  uint64_t dropped() const;
  uint64_t untracked() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, HeldRequest> open_;
  std::vector<HeldRequest> ended_;
  uint64_t dropped_ = 0;
  uint64_t untracked_ = 0;
};

}  // namespace clrscope
