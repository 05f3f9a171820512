#pragma once
// The DiagnosticSource bridge's own EventPipe session, and the thread that turns it off and on
// when the program serves more requests a second than the budget (core/request_duty.h).
//
// Why a thread of its own: starting or stopping a session that names a managed EventSource runs
// that EventSource's command on the calling thread, which makes the thread a managed one. The
// sampler thread must never be (it signals managed threads and must not be suspended with them),
// so the bridge's thread is marked as the profiler's own and left out of the profile.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "clr/corprof.h"
#include "core/request_duty.h"

namespace clrscope {

class RequestTracker;

class RequestBridge {
 public:
  RequestBridge(clr::ICorProfilerInfo12* info, RequestTracker* tracker, uint32_t max_per_s);
  ~RequestBridge();

  // Starts listening now, on the caller's thread (Initialize, or the attach's): at a launch no
  // managed code has run yet, so the bridge's EventSource is enabled as it is created. Then the
  // thread starts: it measures the rate against a budget, and at a detach it is the one that
  // stops the session. False when the runtime refused the session (logged).
  bool start();

  // Stops the thread. At a detach the thread stops the session and the caller waits for it for
  // good (our code is about to be unloaded); at shutdown the session stays and the caller waits a
  // second at most (the thread may be inside the runtime's EventPipe, which is shutting down).
  void stop(bool detaching);

 private:
  void run();
  // Sleeps until `deadline` (monotonic ns); false when told to stop.
  bool sleep_until(uint64_t deadline);
  bool listen();
  void quiet();

  clr::ICorProfilerInfo12* info_;
  RequestTracker* tracker_;
  RequestDuty duty_;
  clr::EVENTPIPE_SESSION session_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool quiet_at_exit_ = false;
  bool finished_ = false;  // the thread has left run()
};

}  // namespace clrscope
