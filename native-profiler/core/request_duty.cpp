#include "core/request_duty.h"

#include <algorithm>

namespace clrscope {

DutyPlan RequestDuty::next(uint64_t begun, uint64_t on_ns) const {
  const DutyPlan always{kCycleNs, 1.0};
  if (max_per_s_ == 0 || on_ns == 0) return always;
  const double rate = static_cast<double>(begun) * 1e9 / static_cast<double>(on_ns);
  if (rate <= max_per_s_) return always;
  const double share = max_per_s_ / rate;
  const double on = std::max(share * static_cast<double>(kCycleNs), static_cast<double>(kMinOnNs));
  return DutyPlan{static_cast<uint64_t>(on), share};
}

uint64_t RequestDuty::off_after(uint64_t listened_ns, double share) {
  if (share >= 1.0 || listened_ns >= kMaxCycleNs) return 0;
  const double off = static_cast<double>(listened_ns) * (1.0 - share) / share;
  return static_cast<uint64_t>(std::min(off, static_cast<double>(kMaxCycleNs - listened_ns)));
}

uint32_t default_request_budget(uint32_t cpus) { return RequestDuty::kPerCpuPerS * std::max<uint32_t>(cpus, 1); }

}  // namespace clrscope
