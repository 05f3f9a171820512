// Stack capture on Windows. There are no signals to interrupt a thread with, so the sampler
// thread does the capture itself: it suspends the target, reads its registers, copies the live
// part of its stack, resumes it, and only then walks the copy. CPU samples ride along with wall
// samples (Windows has no per-thread CPU-time timers): a capture also carries CPU when the
// thread's CPU clock moved since its previous capture.
//
// Between SuspendThread and ResumeThread the target may hold any lock of the process: the
// heap's, the loader's, a CRT lock, one of the runtime's (its code-heap and JIT locks), or the
// ntdll lock over dynamic function tables. So the code in that window allocates nothing, takes
// no lock and calls nothing that might: only system calls (GetThreadContext, GetThreadTimes,
// ReadProcessMemory) and a memcpy of the stack into a buffer set aside at install.
//
// The walk needs what cannot run in that window: RtlLookupFunctionEntry finds a pc's unwind
// data through the loader's module list and, for JIT-compiled code, through the callback the
// runtime registered for its code heaps (RtlInstallFunctionTableCallback), both behind locks.
// Windows x64 JIT code keeps no RBP frame chain, so frame pointers alone would lose most
// managed callers. Once the thread runs again those locks are only ever waited for, never held
// against us, and the copy cannot change under the walk. The unwind codes themselves are
// interpreted by x64_unwind.h, against the copy with every read bounds-checked (see there for
// why not RtlVirtualUnwind).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "core/capture_ring.h"
#include "core/frame_ring.h"
#include "core/platform.h"
#include "core/sampling_shared.h"
#include "windows/win_common.h"
#include "core/x64_unwind.h"

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

#if !defined(_M_X64) && !defined(__x86_64__)
#error "clrscope: the Windows walker unwinds x64 code only"
#endif

// The live part of a stack copied per capture: enough for thousands of managed frames. A
// deeper stack keeps its innermost kStackCopyBytes and is marked incomplete.
constexpr size_t kStackCopyBytes = 1u << 20;
// Set aside once at install: nothing may be allocated while a thread is suspended.
uint8_t* g_stack_copy = nullptr;
// Frames of one walk before they are cut to the capture's size (sampler thread only).
std::vector<uintptr_t> g_walk;

// Every Windows thread, the main one included, starts in ntdll!RtlUserThreadStart, which calls
// kernel32!BaseThreadInitThunk, which calls the thread's start routine: a walk that reaches
// either has found the thread's root.
struct CodeRange {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  bool holds(uintptr_t pc) const { return pc >= lo && pc < hi; }
};
CodeRange g_roots[2];

CodeRange function_range(const wchar_t* module, const char* name) {
  HMODULE m = GetModuleHandleW(module);
  FARPROC proc = m != nullptr ? GetProcAddress(m, name) : nullptr;
  if (proc == nullptr) return {};
  const auto pc = reinterpret_cast<uintptr_t>(proc);
  DWORD64 base = 0;
  const RUNTIME_FUNCTION* fn = RtlLookupFunctionEntry(pc, &base, nullptr);
  // Without an entry (a leaf thunk), its first bytes stand for it.
  if (fn == nullptr) return CodeRange{pc, pc + 16};
  return CodeRange{static_cast<uintptr_t>(base + fn->BeginAddress), static_cast<uintptr_t>(base + fn->EndAddress)};
}

win::UnwindRegs unwind_registers_from(const CONTEXT& ctx) {
  win::UnwindRegs r{};
  r.rip = ctx.Rip;
  const DWORD64 regs[16] = {ctx.Rax, ctx.Rcx, ctx.Rdx, ctx.Rbx, ctx.Rsp, ctx.Rbp, ctx.Rsi, ctx.Rdi,
                            ctx.R8,  ctx.R9,  ctx.R10, ctx.R11, ctx.R12, ctx.R13, ctx.R14, ctx.R15};
  for (int i = 0; i < 16; ++i) r.gpr[i] = regs[i];
  return r;
}

// Unwinds from the registers a thread stopped (or stands) with, handing each frame's pc to
// `frame` (leaf first); true when the walk reached the thread's root. The function-table
// lookups may take their locks: callers run this only where the walked thread cannot hold them
// (resumed, or the walking thread itself).
template <typename FrameSink>
bool unwind_walk(win::UnwindRegs r, const win::StackCopy& stack, FrameSink frame) {
  bool guessed = false;
  // A real stack of 1 MiB holds at most ~32 Ki frames of the smallest size; the bound ends a
  // walk that loops on a corrupt stack.
  for (uint32_t hop = 0; hop < (1u << 16); ++hop) {
    const uintptr_t pc = static_cast<uintptr_t>(r.rip);
    frame(pc);
    // A return address points after its call; step back into it to find the caller's function.
    const uintptr_t lookup = hop == 0 ? pc : pc - 1;
    if (g_roots[0].holds(lookup) || g_roots[1].holds(lookup)) return true;
    const uint64_t sp_before = r.gpr[win::kRsp];
    DWORD64 base = 0;
    const RUNTIME_FUNCTION* fn = RtlLookupFunctionEntry(lookup, &base, nullptr);
    bool ok = false;
    if (fn != nullptr) {
      const win::RuntimeFunction f{fn->BeginAddress, fn->EndAddress, fn->UnwindData};
      ok = win::unwind_frame(base, f, hop == 0, &r, stack);
    } else {
      // Only the leaf may be code without unwind data (a thunk); a return address outside
      // every function table means the walk read something that is not a frame.
      guessed = guessed || hop > 0;
      ok = win::unwind_leaf(&r, stack);
    }
    if (!ok) return false;
    // A zero return address ends a chain of real frames; after a guessed one it is just a
    // zero the walk found on the stack (seen once in 1,800 samples under Wine). Straight above
    // the leaf it ends no chain at all: a real thread's stack holds its start routine and
    // kernel32's and ntdll's thread entries (a one-frame "complete" stack in coreclr.dll was
    // seen under Wine on a starved machine, most likely a thread that had not run yet).
    if (r.rip == 0) return !guessed && hop > 0;
    // Frames lie at higher addresses as we move outwards; anything else is a loop or garbage.
    if (r.gpr[win::kRsp] <= sp_before) return false;
  }
  return false;
}

// Walks the copied stack of a suspended-then-resumed thread into g_walk (leaf first).
bool walk_copy(const CONTEXT& ctx, const win::StackCopy& stack) {
  g_walk.clear();
  return unwind_walk(unwind_registers_from(ctx), stack, [](uintptr_t pc) { g_walk.push_back(pc); });
}

// The walk into the capture's frames: the innermost frames, and when the stack is deeper than
// the capture holds, its outermost kTailFrames after an elision, as the Linux walker keeps them.
void fill_frames(Capture* c) {
  const size_t total = g_walk.size();
  if (total <= kMaxFrames) {
    std::copy(g_walk.begin(), g_walk.end(), c->frames);
    c->count = static_cast<uint32_t>(total);
    c->gap_at = 0;
    c->elided = 0;
    return;
  }
  const size_t head = kMaxFrames - kTailFrames;
  std::copy(g_walk.begin(), g_walk.begin() + head, c->frames);
  std::copy(g_walk.end() - kTailFrames, g_walk.end(), c->frames + head);
  c->count = kMaxFrames;
  c->gap_at = static_cast<uint32_t>(head);
  c->elided = static_cast<uint32_t>(total - kMaxFrames);
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

// The calling thread's own stack (an event's, core/event_capture.cpp), with the sampler's
// unwinder: Windows code keeps no frame-pointer chain (the runtime's own C++ uses rbp as a
// register like any other), so frame pointers would wander off through its frames. The thread
// is the one walking, so its frames above this one stay as they are while they are read: the
// live stack serves as the copy, and the function-table lookups may take their locks.
WalkResult walk_own_stack(uintptr_t stack_hi, const ModuleSnapshot*, uintptr_t* out, uint32_t max_frames,
                          uint32_t tail_keep, uintptr_t* sp) {
  WalkResult result{0, 0, 0, false, 0, {}};
  CONTEXT ctx;
  RtlCaptureContext(&ctx);
  *sp = static_cast<uintptr_t>(ctx.Rsp);
  if (max_frames == 0 || ctx.Rsp >= stack_hi) return result;
  const win::StackCopy stack{ctx.Rsp, reinterpret_cast<const uint8_t*>(ctx.Rsp), stack_hi - ctx.Rsp};
  FrameRing ring(out, max_frames, tail_keep);
  result.complete = unwind_walk(unwind_registers_from(ctx), stack, [&ring](uintptr_t pc) { ring.push(pc); });
  ring.finish(&result);
  return result;
}

uint64_t current_thread_cpu_ns() {
  uint64_t ns = 0;
  win::thread_times_ns(GetCurrentThread(), &ns);
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
  if (g_stack_copy == nullptr) {
    // Never freed: a library being unloaded cannot know that no capture is under way.
    g_stack_copy = static_cast<uint8_t*>(VirtualAlloc(nullptr, kStackCopyBytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE));
    if (g_stack_copy == nullptr) return CaptureInstall::kFailed;
    g_walk.reserve(4096);
  }
  g_roots[0] = function_range(L"ntdll.dll", "RtlUserThreadStart");
  g_roots[1] = function_range(L"kernel32.dll", "BaseThreadInitThunk");
  g_quiet.store(false, std::memory_order_release);
  g_installed.store(true, std::memory_order_release);
  return CaptureInstall::kOk;
}

// No signal is involved on Windows.
int capture_signal_number() { return 0; }

// Captures happen on the sampler thread itself (suspend, read, resume); once it stops asking,
// nothing of ours runs on other threads.
CaptureRemoval uninstall_capture() {
  g_quiet.store(true, std::memory_order_release);
  return CaptureRemoval::kRemoved;
}

// Nothing of ours runs on another thread: a capture is the sampler's own code.
bool capture_handlers_idle() { return true; }

NestedCaptures nested_captures() { return NestedCaptures{0, 0}; }

uintptr_t current_thread_identity() { return static_cast<uintptr_t>(GetCurrentThreadId()); }

// Not used on Windows: idle threads are not told apart from the scheduler's view there yet.
uint64_t current_thread_switches() { return 0; }

bool thread_wait_state(uint32_t, bool*, uint64_t*) { return false; }

void quiesce_capture() { g_quiet.store(true, std::memory_order_release); }

// Nothing another library could take over.
bool capture_still_installed() { return true; }

// Captures suspend the thread: no signal to block, or to open again.
bool capture_signal_blocked(uint32_t) { return false; }
void reopen_capture_signal_after_fault() {}

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
  const uintptr_t sp = ok ? static_cast<uintptr_t>(ctx.Rsp) : 0;
  uintptr_t lo = 0, hi = 0;
  // The stack the thread runs on now (a fiber switch moves it) must hold sp; otherwise the copy
  // could read memory that is not there. [StackLimit, StackBase) is committed, so [sp, hi) is.
  ok = ok && live_stack(t.teb, &lo, &hi) && sp >= lo && sp < hi;
  uint64_t cpu_now = 0;
  uint8_t kinds = kCaptureWall;
  size_t copied = 0;
  if (ok) {
    copied = std::min<size_t>(hi - sp, kStackCopyBytes);
    std::memcpy(g_stack_copy, reinterpret_cast<const void*>(sp), copied);
    if (win::thread_times_ns(t.handle, &cpu_now) && cpu_due(t, slot, cpu_now)) kinds |= kCaptureCpu;
  }
  ResumeThread(t.handle);
  // ---- resumed ----
  if (!ok) return false;
  const uintptr_t known_lo = slot.stack_lo.load(std::memory_order_relaxed);
  const uintptr_t known_hi = slot.stack_hi.load(std::memory_order_acquire);
  if (known_hi != hi || known_lo > sp) {
    slot.stack_lo.store(lo, std::memory_order_relaxed);
    slot.stack_hi.store(hi, std::memory_order_release);
  }
  uint32_t index = 0;
  Capture* c = claim_capture(*shared, slot_index, wire_id, kinds, cpu_now, sp, &index);
  if (c == nullptr) return true;
  const win::StackCopy stack{sp, g_stack_copy, copied};
  const bool complete = walk_copy(ctx, stack);
  fill_frames(c);
  c->complete = complete;
  c->bounds_known = true;
  // The CPU clock as the thread stopped: the sampler's idle test compares the next reading with
  // it (on Linux the handler reads it on the thread itself, after its own cost).
  c->thread_cpu_after = (c->kinds & kCaptureWall) ? cpu_now : 0;
  commit_capture(*shared, index, c->mono);
  return true;
}

}  // namespace clrscope::platform
