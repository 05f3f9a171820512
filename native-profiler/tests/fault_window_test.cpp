// The runtime's SIGSEGV handler, for a fault it turns into an exception (a null dereference in
// managed code), starts on the thread's 16 KiB alternate signal stack and then runs the rest of
// its work on another stack (the thread's own) while its frames and the kernel's record of the
// fault stay live on the alternate one, to be returned through later. The kernel decides
// "already on the alternate stack" from the stack pointer alone, so a signal delivered in that
// window with SA_ONSTACK starts again at the top of the alternate stack, over those frames. This
// test makes the same window without the runtime: a handler on a guarded 16 KiB alternate stack
// keeps a pattern in its frame, moves to a stack of its own and spins there while the sampler
// captures the thread every millisecond of CPU, then comes back and checks the pattern before it
// returns through the kernel's frame. Runs in a child process (a death test): the capture handler
// is process-wide state, and the damage it looks for kills the process.
#include <gtest/gtest.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/platform.h"
#include "core/sampler.h"
#include "core/wire_writer.h"
#include "tests/sampler_test_parts.h"
#include "tests/wire_reader.h"

extern "C" {
// Named for the stream's symbols: the samples taken while the handler is away land here.
__attribute__((noinline, visibility("default"))) void clrscope_test_fault_window_away();
}

namespace clrscope {
namespace {

constexpr size_t kAltStack = 16384;
constexpr size_t kAwayStack = 65536;
constexpr unsigned char kPattern = 0x5C;
constexpr uint64_t kAwayNs = 2000000;

ucontext_t g_back;
ucontext_t g_away;
unsigned char* g_away_stack = nullptr;
std::atomic<uint32_t> g_windows{0};
std::atomic<uint32_t> g_damaged{0};

void on_fault_like(int, siginfo_t*, void*) {
  // The handler's own live frame, just below the kernel's record of the signal.
  volatile unsigned char live[1024];
  for (auto& b : live) b = kPattern;
  getcontext(&g_away);
  g_away.uc_stack.ss_sp = g_away_stack;
  g_away.uc_stack.ss_size = kAwayStack;
  g_away.uc_link = &g_back;
  makecontext(&g_away, clrscope_test_fault_window_away, 0);
  swapcontext(&g_back, &g_away);
  for (const auto& b : live) {
    if (b != kPattern) {
      g_damaged.fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  g_windows.fetch_add(1, std::memory_order_relaxed);
}

// The profiler's sampling parts in this child process, sampling every millisecond of CPU, as the
// engine sets them up; never freed (a signal may come at any moment until the process exits).
struct ChildSampler {
  testing::SamplingParts* parts = new testing::SamplingParts(1024);
  testing::MemoryTransport* transport = new testing::MemoryTransport;
  testing::NativeOnlyResolver resolver;
  std::unique_ptr<Sampler> sampler;
  // False when the signal could not be installed or the sampler thread not started.
  bool start() {
    set_sampling_shared(&parts->shared);
    if (platform::install_capture() != platform::CaptureInstall::kOk) return false;
    parts->shared.active.store(true);
    parts->registry.configure_cpu_timers(true, 1000000);
    SamplerConfig config;
    config.interval_ns = 1000000;
    sampler = std::make_unique<Sampler>(config, &parts->shared, &resolver, std::unique_ptr<Transport>(transport));
    return sampler->start();
  }
};

// Exit codes say what failed; 0 when no window was written over and the captures were taken.
int run() {
  ChildSampler child;
  if (!child.start()) return 1;
  testing::SamplingParts* parts = child.parts;
  testing::MemoryTransport* transport = child.transport;

  const int probe = SIGUSR2;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault_like;
  // As the runtime installs its SIGSEGV handler.
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(probe, &sa, nullptr) != 0) return 3;
  g_away_stack = static_cast<unsigned char*>(std::malloc(kAwayStack));

  std::thread faulter([&] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* mem = mmap(nullptr, page + kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    mprotect(mem, page, PROT_NONE);
    stack_t ss{};
    ss.ss_sp = static_cast<unsigned char*>(mem) + page;
    ss.ss_size = kAltStack;
    sigaltstack(&ss, nullptr);
    parts->registry.on_created(801);
    parts->registry.on_assigned_os_thread(801, platform::current_tid());
    parts->registry.on_name_changed(801, "faulter");
    const pid_t tid = static_cast<pid_t>(platform::current_tid());
    const uint64_t until = platform::mono_now_ns() + 600000000;
    while (platform::mono_now_ns() < until && g_damaged.load() == 0) syscall(SYS_tgkill, getpid(), tid, probe);
    parts->registry.on_destroyed(801);
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(mem, page + kAltStack);
  });
  faulter.join();
  child.sampler->stop(wire::kEndShutdown, 5000);

  testing::ReadStream s;
  {
    std::lock_guard<std::mutex> lock(transport->mu);
    s = testing::read_stream(transport->bytes);
  }
  size_t away_samples = 0;
  for (const auto& smp : s.samples) away_samples += s.stack_has(smp, "clrscope_test_fault_window_away") ? 1 : 0;
  std::printf("%u windows, %u damaged, %zu captures taken while away\n", g_windows.load(), g_damaged.load(),
              away_samples);
  std::fflush(stdout);
  if (g_damaged.load() != 0) return 4;
#if !defined(__SANITIZE_THREAD__)
  // ThreadSanitizer delivers signals at its own safe points, not inside another handler.
  if (g_windows.load() < 50) return 5;
  if (away_samples < 20) return 6;
#endif
  return 0;
}

TEST(FaultWindow, ACaptureWhileAFaultHandlerRunsOnAnotherStackLeavesItsFramesOnTheAlternateStackAlone) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(run()), ::testing::ExitedWithCode(0), "");
}

// The other half of the window: a capture delivered while the fault handler still runs on the
// alternate stack goes below its frames, where the kernel's signal frame and the capture handler
// do not fit next to a handler that uses most of the 16 KiB (the runtime's keeps two register
// contexts there): the kernel cannot deliver it and kills the process. clrscope puts its entry in
// front of such a handler, with the capture signal in its mask. Here a SIGSEGV handler on a
// guarded 16 KiB alternate stack keeps 8 KiB of it in use while it spins (10 KiB and the
// kernel's own SIGSEGV frame, 3.6 KiB with AVX-512's registers, did not fit), and either returns
// past the fault or, as the runtime's does for a managed exception, jumps out without returning
// (the capture signal then stays blocked until reopen_capture_signal_after_fault, which the
// runtime's ExceptionThrown callback calls).
namespace deep_fault {
std::atomic<uint32_t> g_faults{0};
std::atomic<bool> g_jump{false};
sigjmp_buf g_out;

void on_fault(int, siginfo_t*, void* uc) {
  volatile unsigned char deep[8192];
  for (size_t i = 0; i < sizeof deep; i += 64) deep[i] = static_cast<unsigned char>(i);
  const uint64_t until = platform::mono_now_ns() + kAwayNs;
  volatile uint64_t x = 1;
  do {
    for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ull + deep[(i * 64) % sizeof deep];
  } while (platform::mono_now_ns() < until);
  g_faults.fetch_add(1, std::memory_order_relaxed);
  if (g_jump.load(std::memory_order_relaxed)) {
    // As the runtime does before it dispatches the exception: SIGSEGV open again, nothing else.
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_UNBLOCK, &segv, nullptr);
    siglongjmp(g_out, 1);  // the rest of the mask is not restored
  }
  // Past the two-byte load that faulted.
  static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_RIP] += 2;
}

__attribute__((noinline)) void fault_once() {
  void* volatile nowhere = nullptr;
  void* base = nowhere;
  // 8b 00, two bytes: the handler steps over them.
  asm volatile("movl (%%rax), %%eax" : "+a"(base) : : "memory");
}

[[maybe_unused]] bool capture_blocked_here() {
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, nullptr, &cur);
  return sigismember(&cur, platform::capture_signal_number()) == 1;
}

int run() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;  // as the runtime installs its SIGSEGV handler, before any profiler
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, nullptr) != 0) return 1;

  ChildSampler child;
  if (!child.start()) return 2;
  testing::SamplingParts* parts = child.parts;

  std::atomic<int> code{0};
  std::thread faulter([&] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* mem = mmap(nullptr, page + kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    mprotect(mem, page, PROT_NONE);
    stack_t ss{};
    ss.ss_sp = static_cast<unsigned char*>(mem) + page;
    ss.ss_size = kAltStack;
    sigaltstack(&ss, nullptr);
    parts->registry.on_created(811);
    parts->registry.on_assigned_os_thread(811, platform::current_tid());
    const uint64_t until = platform::mono_now_ns() + 300000000;
    while (platform::mono_now_ns() < until) fault_once();
#if !defined(__SANITIZE_ADDRESS__)
    // Out of the handler without returning: the capture signal stays blocked, then opens again.
    // (Not under AddressSanitizer: its no-return hook before siglongjmp asks pthread_getattr_np
    // for the stack and waits forever on a lock the interrupted code may hold.)
    g_jump = true;
    for (int i = 0; i < 50; ++i) {
      if (sigsetjmp(g_out, 0) == 0) fault_once();
      if (!capture_blocked_here()) code = 10;  // the entry blocked it while the handler ran
      platform::reopen_capture_signal_after_fault();
      if (capture_blocked_here()) code = 11;
    }
    // A signal the program blocked itself stays blocked.
    sigset_t own;
    sigemptyset(&own);
    sigaddset(&own, platform::capture_signal_number());
    pthread_sigmask(SIG_BLOCK, &own, nullptr);
    if (sigsetjmp(g_out, 0) == 0) fault_once();
    platform::reopen_capture_signal_after_fault();
    if (!capture_blocked_here()) code = 12;
    pthread_sigmask(SIG_UNBLOCK, &own, nullptr);
#endif
    parts->registry.on_destroyed(811);
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  });
  faulter.join();
  child.sampler->stop(wire::kEndShutdown, 5000);
  std::printf("%u faults handled on the alternate stack\n", g_faults.load());
  std::fflush(stdout);
  if (code.load() != 0) return code.load();
  return g_faults.load() >= 40 ? 0 : 4;
}
}  // namespace deep_fault

TEST(FaultWindow, NoCaptureIsDeliveredWhileAFaultHandlerRunsOnTheAlternateStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(deep_fault::run()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace clrscope

extern "C" void clrscope_test_fault_window_away() {
  // Spins where signal_handler_worker would run the runtime's exception dispatch.
  const uint64_t until = clrscope::platform::mono_now_ns() + clrscope::kAwayNs;
  volatile uint64_t x = 1;
  do {
    for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ull + 1;
  } while (clrscope::platform::mono_now_ns() < until);
}
