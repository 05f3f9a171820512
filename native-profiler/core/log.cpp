#include "core/log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "core/own_descriptor.h"
#include "core/platform.h"

namespace clrscope {
namespace {
std::mutex& log_mutex() {
  static std::mutex* mu = new std::mutex;  // leaked: logging may happen during exit
  return *mu;
}
FILE* g_log = nullptr;
// The log's descriptor, checked before each line (core/own_descriptor.h): a program that closed
// it and opened a file of its own at the number would otherwise get clrscope's lines.
OwnDescriptor* g_log_fd = nullptr;

// Once the descriptor is the program's, the stream over it is dropped without fclose (which
// would close the program's file); its buffer stays allocated, a few kilobytes.
bool log_usable() {
  if (g_log == nullptr) return false;
  if (g_log_fd->owned()) return true;
  g_log = nullptr;
  return false;
}
}  // namespace

void log_open_from_env() {
  const std::string path = platform::env("CLRSCOPE_LOG");
  if (path.empty()) return;
  std::lock_guard<std::mutex> lock(log_mutex());
  if (g_log != nullptr) return;
  const int fd = platform::open_append(path.c_str());
  if (fd < 0) return;
  auto* own = new OwnDescriptor(fd);
  FILE* f = own->state() == DescriptorState::kOwned ? platform::append_stream(own->fd()) : nullptr;
  if (f == nullptr) {
    own->close();
    delete own;
    return;
  }
  delete g_log_fd;
  g_log_fd = own;
  g_log = f;
}

void log_close() {
  std::lock_guard<std::mutex> lock(log_mutex());
  if (log_usable()) std::fclose(g_log);
  g_log = nullptr;
}

void log_line(const char* fmt, ...) {
  std::lock_guard<std::mutex> lock(log_mutex());
  if (!log_usable()) return;
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
