#include "shim/requests_bridge.h"

#include <algorithm>
#include <chrono>

#include "core/log.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/request_tracker.h"
#include "shim/requests_session.h"

namespace clrscope {

using namespace clr;

namespace {
// How often a drain looks whether the window's requests have all ended.
constexpr uint64_t kDrainStepNs = 5'000'000;
}  // namespace

RequestBridge::RequestBridge(ICorProfilerInfo12* info, RequestTracker* tracker, uint32_t max_per_s)
    : info_(info), tracker_(tracker), duty_(max_per_s) {}

RequestBridge::~RequestBridge() { stop(true); }

bool RequestBridge::listen() {
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config = requests_provider_config();
  EVENTPIPE_SESSION session = 0;
  const HRESULT hr = info_->EventPipeStartSession(1, &config, 0, &session);
  if (FAILED(hr)) {
    log_line("no DiagnosticSource bridge session (0x%08x): no requests from now on", static_cast<unsigned>(hr));
    return false;
  }
  session_ = session;
  return true;
}

void RequestBridge::quiet() {
  if (session_ != 0) info_->EventPipeStopSession(session_);
  session_ = 0;
}

bool RequestBridge::start() {
  tracker_->listen_from(platform::mono_now_ns(), duty_.max_per_s());
  if (!listen()) return false;
  if (duty_.max_per_s() == 0) {
    log_line("requests: every request recorded (no budget)");
  } else {
    log_line("requests: past %u a second the bridge listens part of the time", duty_.max_per_s());
  }
  // Also without a budget: the detach's stop of the session is a session command too, and
  // would otherwise run on the sampler thread.
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    log_line("could not start the requests thread; the bridge listens all the time");
  }
  return true;
}

bool RequestBridge::sleep_until(uint64_t deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stopping_) return false;
    const uint64_t now = platform::mono_now_ns();
    if (now >= deadline) return true;
    cv_.wait_for(lock, std::chrono::nanoseconds(deadline - now));
  }
}

void RequestBridge::run() {
  platform::name_current_thread("clrscope-reqs");
  // Before the first session command makes this a managed thread: the runtime's announcement of
  // it is then left out of the profile (shim/profiler_callback.cpp).
  mark_own_thread();
  // The start of the current window, or of the current second while listening all the time.
  uint64_t since = platform::mono_now_ns();
  uint64_t begun_at = tracker_->begun_total();
  bool always = true;
  DutyPlan plan{RequestDuty::kCycleNs, 1.0};
  uint64_t windows = 0;
  uint64_t random = since | 1;
  // No budget: nothing to look at until the stop.
  if (duty_.max_per_s() == 0) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stopping_; });
  }
  while (duty_.max_per_s() != 0) {
    // Both ways the count is looked at every kCheckNs: a load that grows within a window (a
    // program warming up) ends it once the window's share of the budget is heard.
    const uint64_t end = always ? since + RequestDuty::kCycleNs : since + plan.on_ns;
    if (!sleep_until(std::min(platform::mono_now_ns() + RequestDuty::kCheckNs, end))) break;
    const uint64_t closed = platform::mono_now_ns();
    const uint64_t begun = tracker_->begun_total() - begun_at;
    const uint64_t per_s = begun * 1'000'000'000ull / std::max<uint64_t>(closed - since, 1);
    if (always && !duty_.spent(begun)) {
      if (closed >= end) {
        since = closed;
        begun_at += begun;
      }
      continue;
    }
    if (!always && closed < end && !duty_.window_spent(begun, plan.on_ns)) continue;
    plan = duty_.next(begun, closed - since);
    if (plan.always()) {
      if (!always) log_line("requests: %llu a second, within the budget: the bridge listens all the time",
                            static_cast<unsigned long long>(per_s));
      always = true;
      since = closed;
      begun_at += begun;
      continue;
    }
    if (always) log_line("requests: %llu a second, past the budget: the bridge listens %.1f%% of the time",
                         static_cast<unsigned long long>(per_s), plan.share * 100.0);
    always = false;
    tracker_->stop_listening(closed);
    const uint64_t drain_until = closed + RequestDuty::kMaxDrainNs;
    bool stopping = false;
    while (tracker_->in_flight() > 0) {
      const uint64_t now = platform::mono_now_ns();
      if (now >= drain_until) break;
      if (!sleep_until(std::min(now + kDrainStepNs, drain_until))) {
        stopping = true;
        break;
      }
    }
    if (stopping) break;  // the stream's end sends the window and its requests still in flight
    quiet();
    const uint64_t quiet_at = platform::mono_now_ns();
    tracker_->cut_open(quiet_at);
    ++windows;
    // The window as planned and its drain: listening all the time lasted until a second's budget
    // was spent, maybe for minutes, and charging that would keep the bridge off for a minute.
    const uint64_t listened = std::min(closed - since, plan.on_ns) + (quiet_at - closed);
    // Off for 75-125% of the time the share asks, at random: windows a whole number of seconds
    // apart would see the same phase of a program's periodic work every time.
    random ^= random << 13;
    random ^= random >> 7;
    random ^= random << 17;
    const uint64_t off = RequestDuty::off_after(listened, plan.share) / 1024 * (768 + random % 513);
    if (!sleep_until(quiet_at + off)) break;
    since = platform::mono_now_ns();
    begun_at = tracker_->begun_total();
    tracker_->listen_from(since, duty_.max_per_s());
    if (!listen()) {
      // Refused (logged): a window with nothing in it, closed now, and no more.
      tracker_->stop_listening(platform::mono_now_ns());
      tracker_->cut_open(platform::mono_now_ns());
      break;
    }
  }
  bool quiet_now = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    quiet_now = quiet_at_exit_;
  }
  if (quiet_now) quiet();
  // The session commands' own cost (each runs the bridge EventSource's command, managed code):
  // the benchmark cannot see it under its machine's noise, so it is said here.
  log_line("requests: %llu listening windows closed; %.1f ms of CPU on the requests thread",
           static_cast<unsigned long long>(windows), static_cast<double>(platform::current_thread_cpu_ns()) / 1e6);
  unmark_own_thread();
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  cv_.notify_all();
}

void RequestBridge::stop(bool detaching) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    quiet_at_exit_ = detaching;
    cv_.notify_all();
    if (thread_.joinable() && !detaching) {
      // At shutdown the session stays: a session command now would run managed code on the
      // thread shutting the runtime down, and the process is ending anyway.
      if (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return finished_; })) {
        lock.unlock();
        log_line("the requests thread is still inside the runtime at shutdown; left to end with the process");
        thread_.detach();
        return;
      }
    }
  }
  if (thread_.joinable()) {
    thread_.join();
  } else if (detaching) {
    quiet();  // no thread was ever started: this caller's thread, then
  }
}

}  // namespace clrscope
