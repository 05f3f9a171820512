// The capture signal held off while the runtime's fault handler runs on the alternate stack.
//
// The runtime's SIGSEGV handler runs on the thread's 16 KiB alternate signal stack (SA_ONSTACK),
// with a register context or two on it, and then, for a fault it turns into a managed exception
// (a null dereference), carries on on the thread's own stack without returning. A capture
// delivered while the thread is still on that stack goes right below the handler's frames, and
// the kernel's signal frame (3.4 kB with AVX-512 state) and the capture handler do not fit in
// what is left: the kernel kills the process with SIGSEGV (seen in hardware-faults.test.ts,
// every run). The runtime keeps its own activation signal out of that window by naming it in the
// handler's sa_mask; clrscope does the same for its capture signal, by putting its own entry in
// front of each fault handler that runs on the alternate stack: the same flags, the runtime's
// mask plus the capture signal, and a call of the runtime's handler.
//
// The mask is the kernel's to restore when the handler returns. The runtime's handler does not
// return from a managed exception: it unblocks SIGSEGV and its activation signal itself, and the
// capture signal would stay blocked on that thread for good. So the entry notes, per thread,
// when it was the one that blocked it (the interrupted code had it open), and the runtime's
// ExceptionThrown callback, which comes next on that thread, on its own stack, with nothing left
// to return to on the alternate stack, opens it again (reopen_capture_signal_after_fault). A
// signal the program itself had blocked stays blocked.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "core/log.h"
#include "core/platform.h"
#include "linux/fault_handlers_linux.h"

namespace clrscope::platform {
namespace {

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
constexpr int kMaxSignal = 65;

using Handler = void (*)(int, siginfo_t*, void*);
std::atomic<Handler> g_targets[kMaxSignal];
struct sigaction g_replaced[kMaxSignal];
bool g_wrapped[kMaxSignal];
int g_capture_signal = 0;

// Threads whose capture signal the entry blocked and whose handler did not return: a fixed,
// lock-free set of thread ids (open addressing), usable from a signal handler.
constexpr uint32_t kReopenSlots = 4096;
constexpr uint32_t kProbes = 64;
std::atomic<uint32_t> g_reopen[kReopenSlots];
// Entries in the set: ExceptionThrown, on every exception of the program, looks no further while
// it is zero (no fault handler is in flight or left a signal closed).
std::atomic<uint32_t> g_reopen_count{0};
std::atomic<uint64_t> g_reopen_lost{0};

uint32_t slot_of(uint32_t tid, uint32_t probe) { return (tid * 2654435761u + probe) % kReopenSlots; }

void note_blocked(uint32_t tid) {
  for (uint32_t p = 0; p < kProbes; ++p) {
    std::atomic<uint32_t>& s = g_reopen[slot_of(tid, p)];
    uint32_t expected = 0;
    if (s.load(std::memory_order_relaxed) == tid) return;
    if (s.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) {
      g_reopen_count.fetch_add(1, std::memory_order_release);
      return;
    }
  }
  g_reopen_lost.fetch_add(1, std::memory_order_relaxed);
}

bool take_blocked(uint32_t tid) {
  if (g_reopen_count.load(std::memory_order_acquire) == 0) return false;
  for (uint32_t p = 0; p < kProbes; ++p) {
    std::atomic<uint32_t>& s = g_reopen[slot_of(tid, p)];
    // Plain loads first: only a slot holding this thread is worth a compare-and-swap.
    if (s.load(std::memory_order_relaxed) != tid) continue;
    uint32_t expected = tid;
    if (s.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
      g_reopen_count.fetch_sub(1, std::memory_order_release);
      return true;
    }
  }
  return false;
}

std::atomic<uint64_t> g_safe_load_faults{0};

extern "C" __attribute__((visibility("hidden"))) void clrscope_fault_entry(int sig, siginfo_t* si, void* uc) {
  // A heap walk's load that faulted (safe_load_linux.cpp): not the program's fault, and returning
  // resumes at the load's failure exit.
  if ((sig == SIGSEGV || sig == SIGBUS) && recover_safe_load(uc)) return;
  const Handler target = sig > 0 && sig < kMaxSignal ? g_targets[sig].load(std::memory_order_acquire) : nullptr;
  const auto* context = static_cast<const ucontext_t*>(uc);
  uint32_t tid = 0;
  if (context != nullptr && g_capture_signal != 0 && sigismember(&context->uc_sigmask, g_capture_signal) == 0) {
    tid = static_cast<uint32_t>(syscall(SYS_gettid));
    note_blocked(tid);
  }
  if (target != nullptr) target(sig, si, uc);
  // Returned: the kernel restores the interrupted mask itself.
  if (tid != 0) take_blocked(tid);
}

}  // namespace

void hold_capture_during_fault_handlers(int capture_signal) {
  g_capture_signal = capture_signal;
  for (const int sig : kFaultSignals) {
    if (g_wrapped[sig]) continue;
    struct sigaction cur;
    if (sigaction(sig, nullptr, &cur) != 0) continue;
    // Only a handler that runs on the alternate stack has a window to protect.
    if (!(cur.sa_flags & SA_SIGINFO) || !(cur.sa_flags & SA_ONSTACK) || cur.sa_sigaction == nullptr) continue;
    if (cur.sa_sigaction == clrscope_fault_entry) continue;
    g_targets[sig].store(cur.sa_sigaction, std::memory_order_release);
    struct sigaction ours = cur;
    ours.sa_sigaction = clrscope_fault_entry;
    sigaddset(&ours.sa_mask, capture_signal);
    if (sigaction(sig, &ours, &g_replaced[sig]) != 0) continue;
    g_wrapped[sig] = true;
    log_line("signal %d's handler runs on the alternate stack: the capture signal waits while it runs", sig);
  }
}

bool release_fault_handlers() {
  bool all_back = true;
  for (const int sig : kFaultSignals) {
    if (!g_wrapped[sig]) continue;
    struct sigaction cur;
    if (sigaction(sig, nullptr, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == clrscope_fault_entry) {
      sigaction(sig, &g_replaced[sig], nullptr);
      g_wrapped[sig] = false;
    } else {
      // Another library installed its handler over ours since, and may pass faults on to ours.
      all_back = false;
    }
  }
  return all_back;
}

void safe_load_faults_add() { g_safe_load_faults.fetch_add(1, std::memory_order_relaxed); }
uint64_t safe_load_faults() { return g_safe_load_faults.load(std::memory_order_relaxed); }

bool safe_loads_ready() { return g_wrapped[SIGSEGV]; }

uint32_t wrapped_fault_handlers() {
  uint32_t n = 0;
  for (const int sig : kFaultSignals) n += g_wrapped[sig] ? 1 : 0;
  return n;
}

void reopen_capture_signal_after_fault() {
  if (g_capture_signal == 0) return;
  if (!take_blocked(current_tid_remembered())) return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, g_capture_signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace clrscope::platform
