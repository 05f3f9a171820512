#include "core/log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "core/platform.h"

namespace clrscope {
namespace {
std::mutex& log_mutex() {
  static std::mutex* mu = new std::mutex;  // leaked: logging may happen during exit
  return *mu;
}
FILE* g_log = nullptr;
// Append, and keep the file out of child processes. glibc spells the latter 'e' (O_CLOEXEC);
// the Microsoft C runtime spells it 'N' and rejects modes it does not know.
#if defined(_WIN32)
constexpr const char kAppendPrivate[] = "aN";
#else
constexpr const char kAppendPrivate[] = "ae";
#endif
}  // namespace

void log_open_from_env() {
  const std::string path = platform::env("CLRSCOPE_LOG");
  if (path.empty()) return;
  std::lock_guard<std::mutex> lock(log_mutex());
  if (g_log == nullptr) g_log = std::fopen(path.c_str(), kAppendPrivate);
}

void log_close() {
  std::lock_guard<std::mutex> lock(log_mutex());
  if (g_log != nullptr) std::fclose(g_log);
  g_log = nullptr;
}

void log_line(const char* fmt, ...) {
  std::lock_guard<std::mutex> lock(log_mutex());
  if (g_log == nullptr) return;
  std::fprintf(g_log, "[clrscope %u/%u %.3f] ", platform::process_id(), platform::current_tid(),
               static_cast<double>(platform::mono_now_ns()) / 1e9);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(g_log, fmt, args);
  va_end(args);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

}  // namespace clrscope
