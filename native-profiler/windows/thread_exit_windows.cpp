// Thread exit through a fiber-local storage slot's callback, which Windows runs on the exiting
// thread (for threads without fibers, once, at exit).
#include <atomic>

#include "core/thread_exit.h"
#include "windows/win_common.h"

namespace clrscope {
namespace platform {
namespace {

std::atomic<void (*)(void*)> g_on_exit{nullptr};
std::atomic<DWORD> g_index{FLS_OUT_OF_INDEXES};

VOID WINAPI run_on_exit(PVOID value) {
  void (*on_exit)(void*) = g_on_exit.load(std::memory_order_acquire);
  if (on_exit != nullptr && value != nullptr) on_exit(value);
}

}  // namespace

bool watch_thread_exit(void (*on_exit)(void*), void* value) {
  g_on_exit.store(on_exit, std::memory_order_release);
  DWORD index = g_index.load(std::memory_order_acquire);
  if (index == FLS_OUT_OF_INDEXES) {
    const DWORD made = FlsAlloc(run_on_exit);
    if (made == FLS_OUT_OF_INDEXES) return false;
    DWORD expected = FLS_OUT_OF_INDEXES;
    if (!g_index.compare_exchange_strong(expected, made)) FlsFree(made);
    index = g_index.load(std::memory_order_acquire);
  }
  return FlsSetValue(index, value) != FALSE;
}

}  // namespace platform
}  // namespace clrscope
