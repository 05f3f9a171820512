// Stack capture on Windows. There are no signals to interrupt a thread with, so the sampler
// thread does the capture itself: it suspends the target, reads its registers, walks its stack
// in place through the portable record_capture, and resumes it. CPU samples ride along with
// wall samples (Windows has no per-thread CPU-time timers): a capture also carries CPU when
// the thread's CPU clock moved since its previous capture.
//
// Between SuspendThread and ResumeThread the target may hold any lock of the process: the
// heap's, the loader's, a CRT lock, one of the runtime's. So the code in that window allocates
// nothing, takes no lock and calls nothing that might: only system calls (GetThreadContext,
// GetThreadTimes, ReadProcessMemory, QueryPerformanceCounter) and record_capture/walk_frames,
// which are written for signal handlers and therefore qualify. In particular DbgHelp and
// RtlVirtualUnwind stay out of it (see module_table_windows.cpp).
#include <atomic>

#include "core/platform.h"
#include "core/sampling_shared.h"
#include "windows/win_common.h"

namespace clrscope::platform {
namespace {

// THREAD_BASIC_INFORMATION as ntdll returns it for ThreadBasicInformation (class 0); the SDK's
// user-mode headers do not declare it.
struct ThreadBasicInformation {
  LONG exit_status;
  PVOID teb_base;
  HANDLE client_process;
  HANDLE client_thread;
  ULONG_PTR affinity_mask;
  LONG priority;
  LONG base_priority;
};
using NtQueryInformationThreadFn = LONG(NTAPI*)(HANDLE, ULONG, PVOID, ULONG, PULONG);
constexpr ULONG kThreadBasicInformationClass = 0;

enum CpuMode : uint8_t { kCpuOff = 0, kCpuNeedsBaseline = 1, kCpuOn = 2 };

// What the sampler keeps per registry slot. `handle`, `tid` and `teb` belong to the sampler
// thread alone. `cpu` and `cpu_baseline` are written by arm/disarm (any thread, under the
// registry's mutex) and read by the sampler, so the slot's last_cpu_ns is only ever written by
// the sampler: arming leaves a baseline here for the sampler to adopt.
struct Target {
  uint32_t tid = 0;
  HANDLE handle = nullptr;
  uintptr_t teb = 0;
  std::atomic<uint8_t> cpu{kCpuOff};
  std::atomic<uint64_t> cpu_baseline{0};
};

NtQueryInformationThreadFn g_query_thread = nullptr;
std::atomic<bool> g_installed{false};
std::atomic<bool> g_quiet{false};
Target g_targets[kMaxThreads];
uint32_t g_sweep_cursor = 0;

// record_capture reads "the calling thread's CPU clock" as the capture finishes (the idle-thread
// test in sampler.cpp compares against it). On Linux the handler runs on the sampled thread;
// here the sampler runs it on the suspended thread's behalf, so for the length of a capture
// current_thread_cpu_ns, called on the sampler, reads the target's clock instead.
std::atomic<DWORD> g_capturing_for_tid{0};
HANDLE g_capturing_handle = nullptr;

WalkRegisters registers_from(const CONTEXT& ctx) {
#if defined(_M_X64) || defined(__x86_64__)
  return WalkRegisters{static_cast<uintptr_t>(ctx.Rip), static_cast<uintptr_t>(ctx.Rsp),
                       static_cast<uintptr_t>(ctx.Rbp)};
#elif defined(_M_ARM64) || defined(__aarch64__)
  return WalkRegisters{static_cast<uintptr_t>(ctx.Pc), static_cast<uintptr_t>(ctx.Sp),
                       static_cast<uintptr_t>(ctx.Fp)};
#else
#error "clrscope: no frame-pointer register mapping for this architecture"
#endif
}

void close_target(Target& t) {
  if (t.handle != nullptr) CloseHandle(t.handle);
  t.handle = nullptr;
  t.tid = 0;
  t.teb = 0;
}

// Opens the thread once and keeps the handle: it saves a system call per sample, and while it
// is open the thread id cannot be recycled for another thread.
bool open_target(Target& t, uint32_t tid) {
  if (t.handle != nullptr && t.tid == tid) return true;
  close_target(t);
  HANDLE h = OpenThread(THREAD_SUSPEND_RESUME | THREAD_GET_CONTEXT | THREAD_QUERY_INFORMATION, FALSE, tid);
  if (h == nullptr) return false;
  ThreadBasicInformation tbi{};
  // Thread ids are system-wide: the registry's may already name a thread of another process.
  if (GetProcessIdOfThread(h) != GetCurrentProcessId() ||
      g_query_thread(h, kThreadBasicInformationClass, &tbi, sizeof tbi, nullptr) < 0 || tbi.teb_base == nullptr) {
    CloseHandle(h);
    return false;
  }
  t.handle = h;
  t.tid = tid;
  t.teb = reinterpret_cast<uintptr_t>(tbi.teb_base);
  return true;
}

// Closes, one slot per call, handles whose thread has left the registry, so that a process
// with many short-lived threads does not accumulate handles to dead ones.
void sweep_one(ThreadRegistry& registry) {
  const uint32_t limit = registry.slot_limit();
  if (limit == 0) return;
  if (g_sweep_cursor >= limit) g_sweep_cursor = 0;
  const uint32_t i = g_sweep_cursor++;
  Target& t = g_targets[i];
  if (t.handle == nullptr) return;
  const ThreadSlot& s = registry.slot(i);
  if (s.state.load(std::memory_order_acquire) != ThreadSlot::kLive || s.os_tid.load(std::memory_order_acquire) != t.tid) {
    close_target(t);
  }
}

// The live stack of a suspended thread, from its TEB: StackLimit is the lowest committed
// address, so [limit, base) can be read without touching the guard page or uncommitted
// memory. ReadProcessMemory rather than a plain load: a thread terminated from elsewhere loses
// its TEB, and a failed read is an error code, not a fault. Lock-free (a system call).
bool live_stack(uintptr_t teb, uintptr_t* lo, uintptr_t* hi) {
  NT_TIB tib;
  SIZE_T got = 0;
  if (!ReadProcessMemory(GetCurrentProcess(), reinterpret_cast<const void*>(teb), &tib, sizeof tib, &got) ||
      got != sizeof tib) {
    return false;
  }
  *lo = reinterpret_cast<uintptr_t>(tib.StackLimit);
  *hi = reinterpret_cast<uintptr_t>(tib.StackBase);
  return *lo != 0 && *hi > *lo;
}

// Whether this capture also carries CPU time. Runs inside the suspended window (atomics only).
bool cpu_due(Target& t, ThreadSlot& slot, uint64_t cpu_now) {
  uint8_t mode = t.cpu.load(std::memory_order_acquire);
  if (mode == kCpuNeedsBaseline) {
    const uint64_t baseline = t.cpu_baseline.load(std::memory_order_relaxed);
    uint8_t expected = kCpuNeedsBaseline;
    // A compare-exchange, not a store: a disarm that raced with us must win.
    if (t.cpu.compare_exchange_strong(expected, kCpuOn, std::memory_order_acq_rel)) {
      slot.last_cpu_ns = baseline;
      mode = kCpuOn;
    } else {
      mode = expected;
    }
  }
  // GetThreadTimes advances in scheduler ticks, so most captures of a busy thread see either
  // no movement or a whole tick; the deltas still add up to the thread's CPU time.
  return mode == kCpuOn && cpu_now > slot.last_cpu_ns;
}

}  // namespace

uint64_t current_thread_cpu_ns() {
  HANDLE h = GetCurrentThread();
  if (g_capturing_for_tid.load(std::memory_order_relaxed) == GetCurrentThreadId()) h = g_capturing_handle;
  uint64_t ns = 0;
  win::thread_times_ns(h, &ns);
  return ns;
}

CaptureInstall install_capture() {
  if (g_installed.load(std::memory_order_acquire)) {
    g_quiet.store(false, std::memory_order_release);
    return CaptureInstall::kOk;
  }
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  FARPROC proc = ntdll != nullptr ? GetProcAddress(ntdll, "NtQueryInformationThread") : nullptr;
  if (proc == nullptr) return CaptureInstall::kFailed;
  // Through void(*)(): the one function-pointer type GCC lets us convert to any other silently.
  g_query_thread = reinterpret_cast<NtQueryInformationThreadFn>(reinterpret_cast<void (*)()>(proc));
  // Read the counter frequency now, in normal context, rather than on the first capture.
  mono_now_ns();
  g_quiet.store(false, std::memory_order_release);
  g_installed.store(true, std::memory_order_release);
  return CaptureInstall::kOk;
}

// No signal is involved on Windows.
int capture_signal_number() { return 0; }

// Captures happen on the sampler thread itself (suspend, read, resume); once it stops asking,
// nothing of ours runs on other threads.
bool uninstall_capture() {
  g_quiet.store(true, std::memory_order_release);
  return true;
}

// Nothing of ours runs on another thread: a capture is the sampler's own code.
bool capture_handlers_idle() { return true; }

uintptr_t current_thread_identity() { return static_cast<uintptr_t>(GetCurrentThreadId()); }

// Not used on Windows: idle threads are not told apart from the scheduler's view there yet.
uint64_t current_thread_switches() { return 0; }

bool thread_wait_state(uint32_t, bool*, uint64_t*) { return false; }

void quiesce_capture() { g_quiet.store(true, std::memory_order_release); }

// Nothing another library could take over.
bool capture_still_installed() { return true; }

bool arm_cpu_timer(ThreadSlot& slot, uint32_t slot_index, uint64_t interval_ns) {
  if (!g_installed.load(std::memory_order_acquire) || interval_ns == 0 || slot_index >= kMaxThreads) return false;
  const uint32_t tid = slot.os_tid.load(std::memory_order_acquire);
  if (tid == 0 || slot.wire_id.load(std::memory_order_acquire) == 0) return false;
  uint64_t cpu_now = 0;
  if (!thread_cpu_ns(tid, &cpu_now)) return false;
  Target& t = g_targets[slot_index];
  t.cpu_baseline.store(cpu_now, std::memory_order_relaxed);
  t.cpu.store(kCpuNeedsBaseline, std::memory_order_release);
  // No timer to keep; remember which side-table entry disarm must switch off.
  slot.timer = static_cast<uintptr_t>(slot_index) + 1;
  return true;
}

void disarm_cpu_timer(ThreadSlot& slot) {
  if (slot.timer != 0 && slot.timer <= kMaxThreads) {
    g_targets[slot.timer - 1].cpu.store(kCpuOff, std::memory_order_release);
  }
  slot.timer = 0;
}

bool request_wall_sample(ThreadSlot& slot, uint32_t slot_index) {
  SamplingShared* shared = sampling_shared();
  if (shared == nullptr || slot_index >= kMaxThreads || !g_installed.load(std::memory_order_acquire) ||
      g_quiet.load(std::memory_order_acquire)) {
    return false;
  }
  const uint32_t tid = slot.os_tid.load(std::memory_order_acquire);
  const uint32_t wire_id = slot.wire_id.load(std::memory_order_acquire);
  const DWORD self = GetCurrentThreadId();
  // A thread that suspends itself never resumes.
  if (tid == 0 || wire_id == 0 || tid == self) return false;

  sweep_one(*shared->registry);
  Target& t = g_targets[slot_index];
  if (!open_target(t, tid)) return false;

  if (SuspendThread(t.handle) == static_cast<DWORD>(-1)) {
    close_target(t);  // the thread has exited
    return false;
  }
  // ---- suspended: no allocation, no locks from here to ResumeThread ----
  CONTEXT ctx;
  ctx.ContextFlags = CONTEXT_CONTROL | CONTEXT_INTEGER;
  // SuspendThread only asks; GetThreadContext waits until the thread has actually stopped.
  bool ok = GetThreadContext(t.handle, &ctx) != 0;
  const WalkRegisters regs = ok ? registers_from(ctx) : WalkRegisters{0, 0, 0};
  uintptr_t lo = 0, hi = 0;
  // The stack the thread runs on now (a fiber switch moves it) must hold sp; otherwise a walk
  // could read memory that is not there.
  ok = ok && live_stack(t.teb, &lo, &hi) && regs.sp >= lo && regs.sp < hi;
  if (ok) {
    const uintptr_t known_lo = slot.stack_lo.load(std::memory_order_relaxed);
    const uintptr_t known_hi = slot.stack_hi.load(std::memory_order_acquire);
    if (known_hi != hi || known_lo > regs.sp) {
      slot.stack_lo.store(lo, std::memory_order_relaxed);
      slot.stack_hi.store(hi, std::memory_order_release);
    }
    uint64_t cpu_now = 0;
    uint8_t kinds = kCaptureWall;
    if (win::thread_times_ns(t.handle, &cpu_now) && cpu_due(t, slot, cpu_now)) kinds |= kCaptureCpu;
    g_capturing_handle = t.handle;
    g_capturing_for_tid.store(self, std::memory_order_relaxed);
    record_capture(*shared, slot_index, wire_id, kinds, cpu_now, regs, 0);
    g_capturing_for_tid.store(0, std::memory_order_relaxed);
  }
  ResumeThread(t.handle);
  // ---- resumed ----
  return ok;
}

}  // namespace clrscope::platform
