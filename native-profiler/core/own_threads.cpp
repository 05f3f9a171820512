#include "core/own_threads.h"

#include <atomic>

#include "core/platform.h"

namespace clrscope {
namespace {

// A handful at most; a fixed table of atomics needs no lock and no allocation.
constexpr int kMaxOwn = 8;
std::atomic<uint32_t> g_own[kMaxOwn];

}  // namespace

void mark_own_thread() {
  const uint32_t tid = platform::current_tid();
  for (auto& slot : g_own) {
    uint32_t expected = 0;
    if (slot.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) return;
  }
}

void unmark_own_thread() {
  const uint32_t tid = platform::current_tid();
  for (auto& slot : g_own) {
    uint32_t expected = tid;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  }
}

bool is_own_thread(uint32_t tid) {
  for (const auto& slot : g_own) {
    if (slot.load(std::memory_order_acquire) == tid) return tid != 0;
  }
  return false;
}

}  // namespace clrscope
