#include "core/self_cost.h"

namespace clrscope {
namespace {

// Each part on a cache line of its own: callbacks on many program threads add to one part,
// the signal handler to another.
struct alignas(64) Part {
  std::atomic<uint64_t> ns{0};
};
Part g_parts[kCostParts];
// Spans begun per part, for picking the ones that measure.
struct alignas(64) Count {
  std::atomic<uint64_t> n{0};
};
Count g_counts[kCostParts];
// On this thread: how deep in nested spans, whether the outermost measures, and the time of the
// spans nested in the current one.
thread_local uint32_t t_depth = 0;
thread_local bool t_measured = false;
thread_local uint64_t t_factor = kCostSampleEvery;
thread_local uint64_t t_inner = 0;

std::atomic<uint64_t> g_clock_floor_ns{0};

}  // namespace

uint64_t cost_clock_floor_ns() { return g_clock_floor_ns.load(std::memory_order_relaxed); }

void calibrate_cost_clock() {
  uint64_t least = UINT64_MAX;
  for (int i = 0; i < 64; ++i) {
    const uint64_t a = platform::current_thread_cpu_ns();
    const uint64_t b = platform::current_thread_cpu_ns();
    if (b >= a && b - a < least) least = b - a;
  }
  g_clock_floor_ns.store(least == UINT64_MAX ? 0 : least, std::memory_order_relaxed);
}

bool cost_span_measured(CostPart part) {
  if (part < 0 || part >= kCostParts) return false;
  return g_counts[part].n.fetch_add(1, std::memory_order_relaxed) % kCostSampleEvery == 0;
}

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

CostReading start_own_costs() {
  calibrate_cost_clock();
  return read_own_costs();
}

NestedCostSpan::NestedCostSpan(CostPart part, bool once) : part_(part), began_(0), outer_inner_(t_inner) {
  if (t_depth++ == 0) {
    t_measured = once || cost_span_measured(part);
    t_factor = once ? 1 : kCostSampleEvery;
  }
  if (!t_measured) return;
  began_ = platform::current_thread_cpu_ns();
  t_inner = 0;
}

NestedCostSpan::~NestedCostSpan() {
  --t_depth;
  if (began_ == 0) return;
  const uint64_t now = platform::current_thread_cpu_ns();
  const uint64_t floor = cost_clock_floor_ns();
  const uint64_t total = now > began_ + floor ? now - began_ - floor : 0;
  if (total > t_inner) add_own_cost(part_, (total - t_inner) * t_factor);
  t_inner = outer_inner_ + total;
}

}  // namespace clrscope
