#pragma once
// How much of the time the DiagnosticSource bridge listens for HTTP requests (README,
// "Requests"). While it listens, ASP.NET Core builds an Activity for every request and the bridge
// writes two self-describing events with their properties fetched: about 60 µs of the program's
// CPU a request on a 2-core machine (scripts/bench/RESULTS.md), more than the whole work of the
// cheapest endpoints. So past a budget of requests a second the bridge listens for a window of
// each cycle only, sized for it to see the budget's requests a second on average; below the
// budget it listens all the time and every request is recorded. The windows are sent
// (REQUEST_WINDOW), so a reader knows the share of the time its counts stand for.
#include <cstdint>

namespace clrscope {

struct DutyPlan {
  uint64_t on_ns;  // the next window
  double share;    // of the time the bridge may listen; 1: all the time
  bool always() const { return share >= 1.0; }
};

// A window is followed by a drain: the session keeps listening until the requests begun in the
// window have ended (up to kMaxDrainNs), so that a slow request is not cut more often than a fast
// one and the latencies keep their shape. Starts during the drain are not tracked but cost the
// same, so the time off that follows is sized from the window and its drain together.
class RequestDuty {
 public:
  static constexpr uint64_t kCycleNs = 1'000'000'000;
  // While listening all the time, how often the count of this second's requests is looked at:
  // a load that starts is followed within this long (at its full cost until then).
  static constexpr uint64_t kCheckNs = 20'000'000;
  // Shorter windows would hold too few requests to measure the rate by, and would start and
  // stop the bridge's session (each a managed EventSource command) more often than it pays.
  static constexpr uint64_t kMinOnNs = 10'000'000;
  static constexpr uint64_t kMaxDrainNs = 1'000'000'000;
  static constexpr uint64_t kMaxCycleNs = 60'000'000'000;
  // The default budget, per CPU the process may run on: at ~60 µs a request, about half a
  // percent of those CPUs.
  static constexpr uint32_t kPerCpuPerS = 83;

  // `max_per_s` 0: no budget, the bridge listens all the time.
  explicit RequestDuty(uint32_t max_per_s) : max_per_s_(max_per_s) {}

  // Listening all the time: whether `begun` requests in the current second spend its budget. A
  // burst within the budget (a page's requests at once) is heard whole; a second's worth past it
  // ends the second's listening.
  bool spent(uint64_t begun) const { return max_per_s_ != 0 && begun > max_per_s_; }

  // In a window planned `on_ns` long: whether `begun` requests spend its share of the budget.
  bool window_spent(uint64_t begun, uint64_t on_ns) const {
    return max_per_s_ != 0 && static_cast<double>(begun) >= static_cast<double>(max_per_s_) * static_cast<double>(on_ns) / 1e9;
  }

  // After listening `on_ns` (the window alone), in which `begun` requests began: the next plan.
  DutyPlan next(uint64_t begun, uint64_t on_ns) const;

  // How long to stay off after listening `listened_ns` (the window and its drain).
  static uint64_t off_after(uint64_t listened_ns, double share);

  uint32_t max_per_s() const { return max_per_s_; }

 private:
  uint32_t max_per_s_;
};

// The budget for a process that may run on `cpus` CPUs.
uint32_t default_request_budget(uint32_t cpus);

}  // namespace clrscope
