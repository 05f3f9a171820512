/* libtorture_helpers.so: what the torture program cannot do safely from managed code: signal
   dispositions and handlers, per-thread signal masks, fork, and questions about the address
   space. Every function is called through P/Invoke from Clrscope.Targets.Torture.Native. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "torture_spin.h"

/* ---- SIGPROF owned by the program ---- */

/* Counts by si_code of every SIGPROF the program's own handler received. */
static volatile long g_counts[6];
enum { kKernel, kTimer, kQueue, kTkill, kUser, kOther };

static void counting_handler(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)uc;
  int k = kOther;
  switch (si->si_code) {
    case SI_KERNEL: k = kKernel; break; /* setitimer's ITIMER_PROF */
    case SI_TIMER: k = kTimer; break;   /* a POSIX timer (timer_create), someone else's */
    case SI_QUEUE: k = kQueue; break;   /* sigqueue / rt_tgsigqueueinfo, someone else's */
    case SI_TKILL: k = kTkill; break;
    case SI_USER: k = kUser; break;
  }
  __atomic_add_fetch(&g_counts[k], 1, __ATOMIC_RELAXED);
}

static int set_sigprof(void (*handler)(int), int with_info) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  if (with_info) {
    sa.sa_sigaction = counting_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
  } else {
    sa.sa_handler = handler;
  }
  return sigaction(SIGPROF, &sa, NULL) == 0 ? 0 : errno;
}

int torture_sigprof_default(void) { return set_sigprof(SIG_DFL, 0); }
int torture_sigprof_ignore(void) { return set_sigprof(SIG_IGN, 0); }
int torture_sigprof_count(void) { return set_sigprof(NULL, 1); }

/* 0: SIG_DFL, 1: SIG_IGN, 2: our counting handler, 3: someone else's handler. */
int torture_sigprof_disposition(void) {
  struct sigaction cur;
  if (sigaction(SIGPROF, NULL, &cur) != 0) return -1;
  if (cur.sa_flags & SA_SIGINFO) return cur.sa_sigaction == counting_handler ? 2 : 3;
  if (cur.sa_handler == SIG_DFL) return 0;
  if (cur.sa_handler == SIG_IGN) return 1;
  return 3;
}

void torture_sigprof_counts(long* out6) {
  for (int i = 0; i < 6; ++i) out6[i] = __atomic_load_n(&g_counts[i], __ATOMIC_RELAXED);
}

/* The process's own profiling timer (ITIMER_PROF: SIGPROF per `usec` of process CPU time). */
int torture_itimer_prof(long usec) {
  struct itimerval it;
  memset(&it, 0, sizeof it);
  it.it_interval.tv_sec = usec / 1000000;
  it.it_interval.tv_usec = usec % 1000000;
  it.it_value = it.it_interval;
  return setitimer(ITIMER_PROF, &it, NULL) == 0 ? 0 : errno;
}

/* ---- Signal masks ---- */

static __thread sigset_t t_saved;

/* Blocks every signal on the calling thread; with `spare_runtime`, all but the ones the
   runtime needs to stay correct while managed code runs: its activation signal (SIGRTMIN,
   used to suspend a thread for a GC) and the synchronous fault signals (which the kernel
   delivers even when blocked, by killing the process). */
int torture_block_signals(int spare_runtime) {
  sigset_t all;
  sigfillset(&all);
  if (spare_runtime) {
    sigdelset(&all, SIGRTMIN);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGTRAP);
  }
  return pthread_sigmask(SIG_BLOCK, &all, &t_saved);
}

int torture_restore_signals(void) { return pthread_sigmask(SIG_SETMASK, &t_saved, NULL); }

/* How many signals the calling thread has blocked (of 1..64). */
int torture_blocked_count(void) {
  sigset_t cur;
  if (pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0) return -1;
  int n = 0;
  for (int s = 1; s < 65; ++s) n += sigismember(&cur, s) == 1;
  return n;
}

/* ---- CPU work in native code ---- */

__attribute__((noinline)) uint64_t torture_native_spin(uint64_t iterations) {
  uint64_t h = 0x5;
  for (uint64_t i = 0; i < iterations; ++i) h = torture_mix(h, i);
  return h;
}

/* ---- fork ---- */

/* fork(); the child spins `child_iterations` rounds (long enough for a timer or a queued
   signal to reach it) and leaves with _exit(code). The parent returns the child's exit status,
   or -1 - signal when a signal killed it, or -1000 - errno when fork or waitpid failed. */
int torture_fork_exit(int code, uint64_t child_iterations) {
  pid_t pid = fork();
  if (pid < 0) return -1000 - errno;
  if (pid == 0) {
    volatile uint64_t h = torture_native_spin(child_iterations);
    (void)h;
    _exit(code);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1000 - errno;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -1 - WTERMSIG(status);
  return -999;
}

/* ---- The address space ---- */

/* 1 when the byte at `addr` can be read, 0 when reading it would fault (unmapped, or mapped
   PROT_NONE as the gaps inside a loaded library are): the kernel does the read for us. */
int torture_is_readable(uintptr_t addr) {
  char byte;
  struct iovec local = {&byte, 1};
  struct iovec remote = {(void*)addr, 1};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1) return 1;
  return errno == EFAULT ? 0 : -1;
}

struct hdr_query {
  uintptr_t addr;
  uintptr_t hdr;
};

static int find_hdr(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct hdr_query* q = data;
  int inside = 0;
  uintptr_t hdr = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    const uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) inside = 1;
    if (ph->p_type == PT_GNU_EH_FRAME) hdr = lo;
  }
  if (!inside) return 0;
  q->hdr = hdr;
  return 1;
}

/* The unwind table header (.eh_frame_hdr) of the loaded object that holds `addr`, or 0. */
uintptr_t torture_eh_frame_hdr_of(uintptr_t addr) {
  struct hdr_query q = {addr, 0};
  dl_iterate_phdr(find_hdr, &q);
  return q.hdr;
}

/* ---- A signal taken over after the profiler, as a Go c-shared library takes SIGURG ---- */

static struct sigaction g_urg_replaced;
static volatile long g_urg_own;    /* SIGURGs the program raised at itself, seen by its handler */
static volatile long g_urg_passed; /* the others, passed on to the handler it replaced */

/* Counts its own signals and passes every other one on to whoever had SIGURG before (Go's
   runtime does that with signals it did not ask for): a profiler whose handler it replaced
   may still be called long after it stopped profiling. */
static void passing_urg_handler(int sig, siginfo_t* si, void* uc) {
  if (si != NULL && si->si_code == SI_TKILL && si->si_pid == getpid()) {
    __atomic_add_fetch(&g_urg_own, 1, __ATOMIC_RELAXED);
    return;
  }
  __atomic_add_fetch(&g_urg_passed, 1, __ATOMIC_RELAXED);
  if (g_urg_replaced.sa_flags & SA_SIGINFO) {
    if (g_urg_replaced.sa_sigaction != NULL) g_urg_replaced.sa_sigaction(sig, si, uc);
  } else if (g_urg_replaced.sa_handler != SIG_DFL && g_urg_replaced.sa_handler != SIG_IGN) {
    g_urg_replaced.sa_handler(sig);
  }
}

int torture_take_sigurg(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = passing_urg_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  return sigaction(SIGURG, &sa, &g_urg_replaced) == 0 ? 0 : errno;
}

/* `own` raise()s (counted by the handler) and `queued` sigqueue()s (passed on), on this thread. */
int torture_send_sigurg(int own, int queued) {
  for (int i = 0; i < own; ++i) {
    if (raise(SIGURG) != 0) return errno;
  }
  union sigval v;
  v.sival_ptr = NULL;
  for (int i = 0; i < queued; ++i) {
    if (sigqueue(getpid(), SIGURG, v) != 0) return errno;
  }
  return 0;
}

/* [own seen, passed on]; then 0: SIG_DFL, 1: SIG_IGN, 2: the passing handler, 3: someone else's. */
int torture_sigurg_state(long* out2) {
  out2[0] = __atomic_load_n(&g_urg_own, __ATOMIC_RELAXED);
  out2[1] = __atomic_load_n(&g_urg_passed, __ATOMIC_RELAXED);
  struct sigaction cur;
  if (sigaction(SIGURG, NULL, &cur) != 0) return -1;
  if (cur.sa_flags & SA_SIGINFO) return cur.sa_sigaction == passing_urg_handler ? 2 : 3;
  if (cur.sa_handler == SIG_DFL) return 0;
  if (cur.sa_handler == SIG_IGN) return 1;
  return 3;
}
