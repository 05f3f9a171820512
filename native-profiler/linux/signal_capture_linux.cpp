// Stack capture by signal on Linux: a per-thread CPU-time timer for CPU samples and a queued
// signal from the sampler thread for wall samples, both answered by one handler that walks
// the interrupted frame chain into the capture ring.
//
// Which signal: never SIGPROF by default. SIGPROF belongs to the program (setitimer profiling,
// gperftools, a profiler of its own); a program that resets it to SIG_DFL would be killed by a
// timer signal already on its way, and one with its own handler would receive ours. clrscope
// takes SIGURG when nobody handles it: its default action is to ignore, so a capture signal
// that outlives clrscope's handler (the program reset the disposition, or a queued request
// arrives late) does nothing at all; the kernel only raises it for out-of-band socket data to
// a process that asked with F_SETOWN, which our handler passes on to the previous disposition.
// When SIGURG is taken, a free real-time signal from the middle of the range is used instead.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/platform.h"
#include "core/sampling_shared.h"
#include "core/self_cost.h"
#include "linux/fault_handlers_linux.h"

namespace clrscope::platform {
namespace {

int g_signal = 0;
struct sigaction g_previous;
std::atomic<bool> g_quiet{false};
// Handlers running right now: the library must not be unloaded under one.
std::atomic<int> g_in_handler{0};
std::atomic<uint64_t> g_nested_count{0};
std::atomic<uint64_t> g_nested_least_room{UINT64_MAX};

WalkRegisters registers_from(const ucontext_t* uc) {
#if defined(__x86_64__)
  return WalkRegisters{static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]),
                       static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]),
                       static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP])};
#elif defined(__aarch64__)
  return WalkRegisters{static_cast<uintptr_t>(uc->uc_mcontext.pc), static_cast<uintptr_t>(uc->uc_mcontext.sp),
                       static_cast<uintptr_t>(uc->uc_mcontext.regs[29])};
#else
#error "clrscope: no frame-pointer register mapping for this architecture"
#endif
}

// A capture arriving inside another handler that runs on the alternate stack (the runtime's
// SIGSEGV handler before it moves to the thread's own stack, or another library's) lands right
// below that handler's frames, on the same stack. How close such a capture came to that stack's
// end is the margin the runtime's 16 KiB leaves us.
void note_nested(const ucontext_t* uc, uintptr_t sp) {
  const auto lo = reinterpret_cast<uintptr_t>(uc->uc_stack.ss_sp);
  if ((uc->uc_stack.ss_flags & SS_DISABLE) || uc->uc_stack.ss_size == 0 || sp < lo || sp - lo >= uc->uc_stack.ss_size) {
    return;
  }
  g_nested_count.fetch_add(1, std::memory_order_relaxed);
  const uint64_t room = sp - lo;
  uint64_t least = g_nested_least_room.load(std::memory_order_relaxed);
  while (room < least && !g_nested_least_room.compare_exchange_weak(least, room, std::memory_order_relaxed)) {
  }
}

void chain_to_previous(int sig, siginfo_t* si, void* uc) {
  // A signal that is not ours (another profiler's timer, a kill from outside) goes to whoever
  // had the signal before us; with no previous handler it is swallowed rather than killing
  // the process through the default action.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, si, uc);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(sig);
  }
}

void on_capture_signal(int sig, siginfo_t* si, void* uc) {
  // seq_cst: the module table's reclaimer reads this count after retiring a table; a handler
  // that loads the table after this increment is then either counted or sees the new table.
  g_in_handler.fetch_add(1, std::memory_order_seq_cst);
  const int saved_errno = errno;
  CaptureTicket ticket;
  const bool ours = si != nullptr && (si->si_code == SI_TIMER || si->si_code == SI_QUEUE) &&
                    unpack_ticket(reinterpret_cast<uint64_t>(si->si_value.sival_ptr), &ticket);
  if (!ours) {
    chain_to_previous(sig, si, uc);
  } else if (!g_quiet.load(std::memory_order_relaxed) && uc != nullptr) {
    SamplingShared* shared = sampling_shared();
    if (shared != nullptr) {
      const CostSpan cost(kCostHandler);
      const auto* context = static_cast<const ucontext_t*>(uc);
      const WalkRegisters regs = registers_from(context);
      note_nested(context, regs.sp);
      const uint64_t cpu = (ticket.kinds & kCaptureCpu) ? current_thread_cpu_ns() : 0;
      record_capture(*shared, ticket.slot, ticket.wire_id, ticket.kinds, cpu, regs, current_thread_identity());
    }
  }
  errno = saved_errno;
  g_in_handler.fetch_sub(1, std::memory_order_seq_cst);
}

bool disposition_free(int sig) {
  struct sigaction cur;
  if (sigaction(sig, nullptr, &cur) != 0) return false;
  if (cur.sa_flags & SA_SIGINFO) return false;
  return cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN;
}

int choose_signal() {
  const std::string forced = env("CLRSCOPE_SIGNAL");
  if (!forced.empty()) {
    const int s = std::atoi(forced.c_str());
    return s > 0 && s < NSIG && s != SIGKILL && s != SIGSTOP ? s : 0;
  }
  if (disposition_free(SIGURG)) return SIGURG;
  // Well clear of the real-time signals glibc and CoreCLR reserve at the bottom of the range.
  for (int s = SIGRTMIN + 8; s < SIGRTMAX - 2; ++s) {
    if (disposition_free(s)) return s;
  }
  return 0;
}

}  // namespace

CaptureInstall install_capture() {
  if (g_signal != 0) return CaptureInstall::kOk;
  const int sig = choose_signal();
  if (sig == 0) return CaptureInstall::kSignalTaken;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_capture_signal;
  // SA_RESTART: a sampled thread blocked in a system call resumes it instead of seeing EINTR.
  // No SA_ONSTACK, as the runtime's own activation signal (SIGRTMIN) has none: the runtime's
  // SIGSEGV handler starts on the thread's alternate stack and, for a fault it turns into an
  // exception (a null dereference), goes on running on the thread's own stack while its frames
  // and the kernel's record of the fault stay live on the alternate one. The kernel decides
  // "already on the alternate stack" from the stack pointer alone, so an SA_ONSTACK capture
  // arriving then starts again at that stack's top, over those frames ("stack smashing
  // detected", or a SIGSEGV when the handler returns through them). On the thread's own stack a
  // capture takes what the runtime's activation signal takes; a thread that is already on its
  // alternate stack (inside a fault handler) gets the capture below that handler's frames, where
  // it is counted (note_nested) and reads one frame.
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  // Every asynchronous signal waits until the handler returns: the runtime's activation signal
  // delivered inside a capture finds no managed code to suspend at, and one on top of a capture
  // that ran on a small stack (a fault handler's) could overflow it. Held back, it arrives
  // microseconds later on the managed code it was sent to interrupt. Fault signals stay open:
  // one raised while blocked kills the process without a handler.
  sigfillset(&sa.sa_mask);
  for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&sa.sa_mask, fault);
  if (sigaction(sig, &sa, &g_previous) != 0) return CaptureInstall::kFailed;
  hold_capture_during_fault_handlers(sig);
  g_signal = sig;
  g_quiet.store(false, std::memory_order_release);
  return CaptureInstall::kOk;
}

int capture_signal_number() { return g_signal; }

CaptureRemoval uninstall_capture() {
  g_quiet.store(true, std::memory_order_release);
  if (g_signal == 0) return CaptureRemoval::kRemoved;
  const bool faults_back = release_fault_handlers();
  if (!capture_still_installed()) return CaptureRemoval::kTakenOver;
  // Ignoring a signal discards its pending instances, so a request already queued cannot reach
  // whatever comes next.
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(g_signal, &ignore, nullptr);
  // A signal delivered just before may still be between the kernel and our first instruction;
  // ask for the count to stay at zero for a while, not once.
  int quiet_checks = 0;
  for (int i = 0; i < 2000 && quiet_checks < 20; ++i) {
    quiet_checks = g_in_handler.load(std::memory_order_seq_cst) == 0 ? quiet_checks + 1 : 0;
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
  sigaction(g_signal, &g_previous, nullptr);
  g_signal = 0;
  // A handler still running (its thread stopped in it, by a debugger or SIGSTOP) is in our
  // code: the caller must not let the library be unloaded.
  if (quiet_checks < 20) return CaptureRemoval::kHandlerBusy;
  return faults_back ? CaptureRemoval::kRemoved : CaptureRemoval::kFaultHandlerTakenOver;
}

bool capture_handlers_idle() { return g_in_handler.load(std::memory_order_seq_cst) == 0; }

NestedCaptures nested_captures() {
  const uint64_t count = g_nested_count.load(std::memory_order_relaxed);
  const uint64_t least = g_nested_least_room.load(std::memory_order_relaxed);
  return NestedCaptures{count, count == 0 || least == UINT64_MAX ? 0 : least};
}

uintptr_t current_thread_identity() { return static_cast<uintptr_t>(pthread_self()); }

uint64_t current_thread_switches() {
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
  return static_cast<uint64_t>(ru.ru_nvcsw) + static_cast<uint64_t>(ru.ru_nivcsw);
}

void quiesce_capture() { g_quiet.store(true, std::memory_order_release); }

bool capture_still_installed() {
  if (g_signal == 0) return true;  // nothing installed, nothing to lose
  struct sigaction cur;
  if (sigaction(g_signal, nullptr, &cur) != 0) return false;
  return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_capture_signal;
}

bool capture_signal_blocked(uint32_t tid) {
  if (g_signal == 0) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/status", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[4096];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = 0;
  // "SigBlk:\t0000000000000000": the mask in hex, bit s-1 for signal s.
  const char* at = std::strstr(text, "\nSigBlk:");
  if (at == nullptr) return false;
  const unsigned long long mask = std::strtoull(at + 8, nullptr, 16);
  return g_signal <= 64 && ((mask >> (g_signal - 1)) & 1ull) != 0;
}

bool arm_cpu_timer(ThreadSlot& slot, uint32_t slot_index, uint64_t interval_ns) {
  if (g_signal == 0 || interval_ns == 0) return false;
  const uint32_t tid = slot.os_tid.load(std::memory_order_acquire);
  const uint32_t wire_id = slot.wire_id.load(std::memory_order_acquire);
  if (tid == 0 || wire_id == 0) return false;
  uint64_t cpu_now = 0;
  if (!thread_cpu_ns(tid, &cpu_now)) return false;
  slot.last_cpu_ns.store(cpu_now, std::memory_order_relaxed);

  struct sigevent sev;
  std::memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = g_signal;
  sev._sigev_un._tid = static_cast<pid_t>(tid);
  sev.sigev_value.sival_ptr =
      reinterpret_cast<void*>(pack_ticket(CaptureTicket{kCaptureCpu, slot_index, wire_id}));
  const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);
  timer_t timer;
  if (timer_create(clock, &sev, &timer) != 0) return false;
  struct itimerspec its;
  its.it_interval.tv_sec = static_cast<time_t>(interval_ns / 1000000000ull);
  its.it_interval.tv_nsec = static_cast<long>(interval_ns % 1000000000ull);
  its.it_value = its.it_interval;
  if (timer_settime(timer, 0, &its, nullptr) != 0) {
    timer_delete(timer);
    return false;
  }
  slot.timer = reinterpret_cast<uintptr_t>(timer);
  return true;
}

void disarm_cpu_timer(ThreadSlot& slot) {
  timer_delete(reinterpret_cast<timer_t>(slot.timer));
  slot.timer = 0;
}

bool request_wall_sample(ThreadSlot& slot, uint32_t slot_index) {
  if (g_signal == 0) return false;
  const uint32_t tid = slot.os_tid.load(std::memory_order_acquire);
  const uint32_t wire_id = slot.wire_id.load(std::memory_order_acquire);
  if (tid == 0 || wire_id == 0) return false;
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = g_signal;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_ptr = reinterpret_cast<void*>(pack_ticket(CaptureTicket{kCaptureWall, slot_index, wire_id}));
  // Queued to one thread of our own process, carrying the ticket that tells the handler what
  // to record; tgkill cannot carry a value.
  return syscall(SYS_rt_tgsigqueueinfo, getpid(), static_cast<pid_t>(tid), g_signal, &info) == 0;
}

}  // namespace clrscope::platform
