// Clocks, ids, text conversion and the environment on Windows.
#include <atomic>

#include "core/platform.h"
#include "windows/win_common.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002  // Windows 10 1803+; older headers lack it
#endif

namespace clrscope {
namespace win {

std::string utf8_from_wide(const wchar_t* s, size_t units) {
  if (s == nullptr || units == 0) return std::string();
  const int n = WideCharToMultiByte(CP_UTF8, 0, s, static_cast<int>(units), nullptr, 0, nullptr, nullptr);
  if (n <= 0) return std::string();
  std::string out(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, s, static_cast<int>(units), &out[0], n, nullptr, nullptr);
  return out;
}

std::wstring wide_from_utf8(const std::string& s) {
  if (s.empty()) return std::wstring();
  const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
  if (n <= 0) return std::wstring();
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), &out[0], n);
  return out;
}

bool thread_times_ns(HANDLE thread, uint64_t* out) {
  FILETIME created, exited, kernel, user;
  if (thread == nullptr || !GetThreadTimes(thread, &created, &exited, &kernel, &user)) return false;
  const uint64_t k = (static_cast<uint64_t>(kernel.dwHighDateTime) << 32) | kernel.dwLowDateTime;
  const uint64_t u = (static_cast<uint64_t>(user.dwHighDateTime) << 32) | user.dwLowDateTime;
  *out = (k + u) * 100;
  return true;
}

}  // namespace win

namespace platform {
namespace {

// The counter frequency is fixed at boot. Cached through an atomic rather than a function-local
// static: a static's initialisation guard is a lock, and mono_now_ns runs while a target
// thread is suspended.
std::atomic<int64_t> g_qpc_hz{0};

int64_t qpc_hz() {
  int64_t hz = g_qpc_hz.load(std::memory_order_relaxed);
  if (hz == 0) {
    LARGE_INTEGER f;
    hz = QueryPerformanceFrequency(&f) && f.QuadPart > 0 ? f.QuadPart : 1;
    g_qpc_hz.store(hz, std::memory_order_relaxed);
  }
  return hz;
}

// FILETIME counts 100 ns intervals since 1601-01-01.
constexpr uint64_t kUnixEpochAsFileTime = 116444736000000000ull;

}  // namespace

uint64_t mono_now_ns() {
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  const uint64_t ticks = static_cast<uint64_t>(c.QuadPart);
  const uint64_t hz = static_cast<uint64_t>(qpc_hz());
  // Split so that ticks * 1e9 cannot overflow after a long uptime.
  return ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
}

uint64_t unix_now_ns() {
  FILETIME ft;
  GetSystemTimePreciseAsFileTime(&ft);
  const uint64_t t = (static_cast<uint64_t>(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;
  return t > kUnixEpochAsFileTime ? (t - kUnixEpochAsFileTime) * 100 : 0;
}

uint32_t current_tid() { return static_cast<uint32_t>(GetCurrentThreadId()); }
// GetCurrentThreadId reads the thread's own block: nothing to remember.
uint32_t current_tid_remembered() { return current_tid(); }
uint32_t process_id() { return static_cast<uint32_t>(GetCurrentProcessId()); }

uint64_t process_cpu_ns() {
  FILETIME created, exited, kernel, user;
  if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) return 0;
  const auto ns = [](const FILETIME& f) { return ((static_cast<uint64_t>(f.dwHighDateTime) << 32) | f.dwLowDateTime) * 100; };
  return ns(kernel) + ns(user);
}

// GetThreadTimes charges run time per clock interrupt (QueryThreadCycleTime would be exact but
// is not implemented by Wine 8, and cycles are not nanoseconds anyway), so a thread can run for
// a while without its clock moving: Windows never answers a wall sample from an idle thread's
// previous stack (thread_wait_state says nothing there).
bool thread_cpu_ns(uint32_t tid, uint64_t* out) {
  HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, tid);
  if (h == nullptr) return false;
  // Thread ids are system-wide: after the thread exits its id may name a thread of another
  // process, whose clock says nothing about ours.
  const bool ok = GetProcessIdOfThread(h) == GetCurrentProcessId() && win::thread_times_ns(h, out);
  CloseHandle(h);
  return ok;
}

uint32_t usable_cpus() {
  DWORD_PTR process = 0, system = 0;
  if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system) || process == 0) return 1;
  uint32_t n = 0;
  for (; process != 0; process &= process - 1) ++n;
  return n;  // of the process's group; enough for a budget
}

void name_current_thread(const char* name) {
  // SetThreadDescription exists from Windows 10 1607; look it up rather than require it.
  using SetDescription = HRESULT(WINAPI*)(HANDLE, PCWSTR);
  HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
  FARPROC proc = kernel != nullptr ? GetProcAddress(kernel, "SetThreadDescription") : nullptr;
  if (proc == nullptr) return;
  wchar_t wide[64];
  size_t i = 0;
  for (; name[i] != '\0' && i + 1 < 64; ++i) wide[i] = static_cast<wchar_t>(static_cast<unsigned char>(name[i]));
  wide[i] = L'\0';
  reinterpret_cast<SetDescription>(reinterpret_cast<void (*)()>(proc))(GetCurrentThread(), wide);
}

void sleep_until_mono_ns(uint64_t deadline) {
  // Sleep() rounds up to the system timer tick (15.6 ms unless someone raised the resolution);
  // a high-resolution waitable timer wakes on time without changing the process's timer rate.
  HANDLE timer = CreateWaitableTimerExW(nullptr, nullptr, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                        TIMER_MODIFY_STATE | SYNCHRONIZE);
  for (;;) {
    const uint64_t now = mono_now_ns();
    if (now >= deadline) break;
    const uint64_t left = deadline - now;
    if (timer != nullptr) {
      LARGE_INTEGER due;
      due.QuadPart = -static_cast<LONGLONG>((left + 99) / 100);  // negative: relative, 100 ns units
      if (SetWaitableTimer(timer, &due, 0, nullptr, nullptr, FALSE)) {
        WaitForSingleObject(timer, INFINITE);
        continue;
      }
    }
    Sleep(static_cast<DWORD>((left + 999999) / 1000000));
  }
  if (timer != nullptr) CloseHandle(timer);
}

std::string file_name_of(const std::string& path) {
  // Loader paths use '\', paths from the runtime or a user may use '/'.
  const size_t sep = path.find_last_of("/\\");
  return sep == std::string::npos ? path : path.substr(sep + 1);
}

std::string env(const char* name) {
  // The process environment block, not the C runtime's copy taken at its start-up (the runtime
  // reads its own CORECLR_* settings the same way). UTF-8, because AF_UNIX socket paths are
  // UTF-8 on Windows and every other string we pass on is too.
  const std::wstring wname = win::wide_from_utf8(name == nullptr ? std::string() : std::string(name));
  if (wname.empty()) return std::string();
  std::wstring value(256, L'\0');
  for (int attempt = 0; attempt < 4; ++attempt) {
    const DWORD n = GetEnvironmentVariableW(wname.c_str(), &value[0], static_cast<DWORD>(value.size()));
    if (n == 0) return std::string();
    if (n < value.size()) return win::utf8_from_wide(value.data(), n);
    value.assign(n, L'\0');  // n is the size needed, terminator included; it may grow meanwhile
  }
  return std::string();
}

}  // namespace platform
}  // namespace clrscope
