#include "core/self_cost.h"

namespace clrscope {
namespace {

// Each part on a cache line of its own: callbacks on many program threads add to one part,
// the signal handler to another.
struct alignas(64) Part {
  std::atomic<uint64_t> ns{0};
};
Part g_parts[kCostParts];
// Time of spans nested in the current one on this thread.
thread_local uint64_t t_inner = 0;

}  // namespace

void add_own_cost(CostPart part, uint64_t ns) {
  if (part < 0 || part >= kCostParts) return;
  g_parts[part].ns.fetch_add(ns, std::memory_order_relaxed);
}

uint64_t own_cost(CostPart part) {
  if (part < 0 || part >= kCostParts) return 0;
  return g_parts[part].ns.load(std::memory_order_relaxed);
}

CostReading read_own_costs() {
  CostReading r;
  for (int p = 0; p < kCostParts; ++p) r.parts[p] = own_cost(static_cast<CostPart>(p));
  r.process_cpu_ns = platform::process_cpu_ns();
  return r;
}

NestedCostSpan::NestedCostSpan(CostPart part) : part_(part), began_(platform::mono_now_ns()), outer_inner_(t_inner) {
  t_inner = 0;
}

NestedCostSpan::~NestedCostSpan() {
  const uint64_t total = platform::mono_now_ns() - began_;
  add_own_cost(part_, total > t_inner ? total - t_inner : 0);
  t_inner = outer_inner_ + total;
}

}  // namespace clrscope
