// Thread exit through a pthread key's destructor, which runs on the exiting thread while its
// thread-local storage is still there.
#include <pthread.h>

#include <atomic>

#include "core/thread_exit.h"

namespace clrscope {
namespace platform {
namespace {

pthread_key_t g_key;
pthread_once_t g_once = PTHREAD_ONCE_INIT;
bool g_key_made = false;
std::atomic<void (*)(void*)> g_on_exit{nullptr};

void run_on_exit(void* value) {
  void (*on_exit)(void*) = g_on_exit.load(std::memory_order_acquire);
  if (on_exit != nullptr && value != nullptr) on_exit(value);
}

void make_key() { g_key_made = pthread_key_create(&g_key, run_on_exit) == 0; }

}  // namespace

bool watch_thread_exit(void (*on_exit)(void*), void* value) {
  g_on_exit.store(on_exit, std::memory_order_release);
  pthread_once(&g_once, make_key);
  return g_key_made && pthread_setspecific(g_key, value) == 0;
}

}  // namespace platform
}  // namespace clrscope
