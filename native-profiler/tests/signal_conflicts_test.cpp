// Living with other users of signals. Each case runs in a fresh child process (a death test):
// the capture handler is process-wide state.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/platform.h"
#include "core/sampler.h"
#include "core/wire_writer.h"
#include "tests/sampler_test_parts.h"
#include "tests/wire_reader.h"

namespace clrscope {
namespace {

void foreign_handler(int) {}

void install_foreign(int sig) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = foreign_handler;
  sigaction(sig, &sa, nullptr);
}

class SignalConflicts : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(SignalConflicts, LeavesSigprofToTheProgramAndTakesSigurg) {
  EXPECT_EXIT(
      {
        struct sigaction before;
        struct sigaction after;
        sigaction(SIGPROF, nullptr, &before);
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        sigaction(SIGPROF, nullptr, &after);
        std::_Exit(platform::capture_signal_number() == SIGURG && after.sa_handler == before.sa_handler ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SignalConflicts, TakesARealTimeSignalWhenSigurgIsTaken) {
  EXPECT_EXIT(
      {
        install_foreign(SIGURG);
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        const int sig = platform::capture_signal_number();
        struct sigaction cur;
        sigaction(SIGURG, nullptr, &cur);
        // Ours went to a real-time signal; theirs is untouched.
        std::_Exit(sig >= SIGRTMIN && sig <= SIGRTMAX && cur.sa_handler == foreign_handler ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

// A program that resets the capture signal to its default while timers are armed and
// captures are in flight: SIGURG's default action is to ignore, so nothing dies.
TEST_F(SignalConflicts, SurvivesTheProgramResettingTheCaptureSignal) {
  EXPECT_EXIT(
      {
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        signal(platform::capture_signal_number(), SIG_DFL);
        // A queued capture request with a ticket, as the sampler sends them, and timer ticks.
        for (int i = 0; i < 100; ++i) raise(platform::capture_signal_number());
        std::_Exit(platform::capture_still_installed() ? 3 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SignalConflicts, SwallowsAStraySignalInsteadOfDying) {
  EXPECT_EXIT(
      {
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        // A kill from outside carries no capture ticket: with no previous handler to pass it to,
        // it is dropped rather than taking the default action (terminate).
        raise(platform::capture_signal_number());
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SignalConflicts, NoticesWhenAnotherLibraryReplacesTheHandler) {
  EXPECT_EXIT(
      {
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        if (!platform::capture_still_installed()) std::_Exit(2);
        install_foreign(platform::capture_signal_number());
        std::_Exit(platform::capture_still_installed() ? 3 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A handler that passes every signal on to the one it replaced, as Go's runtime does with
// signals it did not ask for.
struct sigaction g_replaced;
volatile sig_atomic_t g_passed_on = 0;

void passing_handler(int sig, siginfo_t* si, void* uc) {
  ++g_passed_on;
  if (g_replaced.sa_flags & SA_SIGINFO) g_replaced.sa_sigaction(sig, si, uc);
}

TEST_F(SignalConflicts, GivesTheSignalBackToItsPreviousOwnerAtDetach) {
  EXPECT_EXIT(
      {
        install_foreign(SIGURG);
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        const int sig = platform::capture_signal_number();
        if (platform::uninstall_capture() != platform::CaptureRemoval::kRemoved) std::_Exit(2);
        struct sigaction cur;
        sigaction(sig, nullptr, &cur);
        std::_Exit(!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
}

// A library that took the signal over after clrscope keeps it at the detach, and clrscope's
// handler, which it passes signals on to, stays callable (the engine then stays loaded).
TEST_F(SignalConflicts, LeavesASignalTakenOverToItsNewOwnerAtDetach) {
  EXPECT_EXIT(
      {
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        const int sig = platform::capture_signal_number();
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = passing_handler;
        sa.sa_flags = SA_SIGINFO;
        sigaction(sig, &sa, &g_replaced);
        if (platform::uninstall_capture() != platform::CaptureRemoval::kTakenOver) std::_Exit(2);
        struct sigaction cur;
        sigaction(sig, nullptr, &cur);
        if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != passing_handler) std::_Exit(3);
        // Passed on to clrscope's quiet handler, which has no owner from before to give them to.
        for (int i = 0; i < 10; ++i) raise(sig);
        std::_Exit(g_passed_on == 10 ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

// The stream says when sampling stopped because the handler was replaced: STATS carries the
// time, and no sample is taken after it. Run in a child (below): the exit code says what failed.
int sampling_stops_with_the_handler() {
  auto* parts = new testing::SamplingParts(64);
  set_sampling_shared(&parts->shared);
  if (platform::install_capture() != platform::CaptureInstall::kOk) return 1;
  parts->shared.active.store(true);
  parts->registry.configure_cpu_timers(false, 0);
  auto* transport = new testing::MemoryTransport;
  testing::NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 2000000;
  config.cpu = false;
  Sampler sampler(config, &parts->shared, &resolver, std::unique_ptr<Transport>(transport));
  if (!sampler.start()) return 2;
  parts->registry.on_created(501);
  parts->registry.on_assigned_os_thread(501, platform::current_tid());
  timespec ts{0, 100000000};
  nanosleep(&ts, nullptr);
  const uint64_t before = platform::mono_now_ns();
  install_foreign(platform::capture_signal_number());
  const uint64_t after = platform::mono_now_ns();
  nanosleep(&ts, nullptr);
  parts->registry.on_destroyed(501);
  sampler.stop(wire::kEndShutdown, 5000);
  testing::ReadStream s;
  {
    std::lock_guard<std::mutex> lock(transport->mu);
    s = testing::read_stream(transport->bytes);
  }
  if (s.samples.empty()) return 3;  // it did sample before
  const uint64_t lost = s.stats_signal_lost_mono;
  if (lost < before) return 4;
  if (lost > after + 20000000) return 5;  // noticed within a few ticks
  for (const auto& smp : s.samples) {
    if (smp.mono > lost) return 6;
  }
  return 0;
}

TEST_F(SignalConflicts, TheStreamSaysWhenSamplingStoppedForAReplacedHandler) {
  EXPECT_EXIT(std::_Exit(sampling_stops_with_the_handler()), ::testing::ExitedWithCode(0), "");
}

TEST_F(SignalConflicts, RespectsAnExplicitChoice) {
  EXPECT_EXIT(
      {
        const int wanted = SIGRTMIN + 10;
        setenv("CLRSCOPE_SIGNAL", std::to_string(wanted).c_str(), 1);
        if (platform::install_capture() != platform::CaptureInstall::kOk) std::_Exit(1);
        std::_Exit(platform::capture_signal_number() == wanted ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}


// Not under ThreadSanitizer: it runs signal handlers itself, later, from its own code, so no stop
// finds the thread in the kernel's signal frame and the handler below it.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
// A detach while a thread is stopped inside the capture handler (a debugger holds it there):
// uninstall_capture must say a handler is busy rather than let the library go, and the thread,
// let go later, leaves the handler and runs on. A tracer process stops the sampled thread at
// moments of its choosing until it finds it below the stack pointer of its spinning loop, where
// only a signal's frame and our handler can be (the loop calls nothing).
namespace stopped_in_handler {
uintptr_t g_spin_sp = 0;

// In the forked tracer: system calls only (the process it was forked from has threads).
int trace_until_inside(pid_t tid, int report_fd, int resume_fd) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) return 10;
  uintptr_t highest = 0;
  for (int attempt = 0; attempt < 20000; ++attempt) {
    if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return 11;
    for (int polls = 0;; ++polls) {
      int status = 0;
      const pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
      if (got == 0) {
        // The interrupt can be consumed by a signal's stop that came first: ask again now and then.
        if (polls > 200000) return 12;
        if (polls % 1000 == 999 && ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return 11;
        timespec wait{0, 100000};
        nanosleep(&wait, nullptr);
        continue;
      }
      if (got != tid || !WIFSTOPPED(status)) return 12;
      if ((status >> 16) == PTRACE_EVENT_STOP) break;
      // A signal on its way to the thread (a capture request): let it through, and stop it again.
      if (ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<uintptr_t>(WSTOPSIG(status)))) != 0) return 13;
      if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return 11;
    }
    user_regs_struct regs{};
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return 14;
    // Below the loop's stack pointer by more than its red zone: in the handler, or stopped right
    // where the kernel put its frame, before its first instruction (the highest stack pointer
    // seen there). Only a stop well below that is past the handler's count of itself.
    const bool in_signal = regs.rsp + 512 < g_spin_sp;
    if (in_signal && regs.rsp > highest) highest = regs.rsp;
    if (in_signal && regs.rsp + 256 < highest) {
      // The process being traced says whether the handler counts itself yet: an instrumented
      // build's prologue may call deeper before it does ('r': go on looking).
      char c = 'y';
      if (write(report_fd, &c, 1) != 1) return 15;
      if (read(resume_fd, &c, 1) != 1) return 16;
      if (c != 'r') return ptrace(PTRACE_DETACH, tid, nullptr, nullptr) == 0 ? 0 : 17;
    }
    if (ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) return 18;
    if (in_signal) {
      // At the handler's door: let it run a few microseconds into it before the next stop.
      timespec t0{}, t{};
      clock_gettime(CLOCK_MONOTONIC, &t0);
      const long spin_ns = 1000L + (attempt % 20) * 1000L;
      do {
        clock_gettime(CLOCK_MONOTONIC, &t);
      } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < spin_ns);
    } else {
      timespec gap{0, static_cast<long>((attempt * 7919L) % 400000L)};
      nanosleep(&gap, nullptr);
    }
  }
  char c = 'n';
  if (write(report_fd, &c, 1) != 1) return 19;
  return 20;
}

// In the death test's child: the exit code says what failed.
int run() {
  auto* parts = new testing::SamplingParts(256);
  set_sampling_shared(&parts->shared);
  if (platform::install_capture() != platform::CaptureInstall::kOk) return 1;
  parts->shared.active.store(true);
  parts->registry.configure_cpu_timers(true, 1000000);
  auto* transport = new testing::MemoryTransport;
  testing::NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  Sampler sampler(config, &parts->shared, &resolver, std::unique_ptr<Transport>(transport));
  if (!sampler.start()) return 2;

  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread spinner([&] {
    parts->registry.on_created(601);
    parts->registry.on_assigned_os_thread(601, platform::current_tid());
    // The loop below calls nothing, so its stack pointer is this one throughout.
    uintptr_t sp = 0;
    asm volatile("mov %%rsp, %0" : "=r"(sp));
    g_spin_sp = sp;
    tid = static_cast<pid_t>(platform::current_tid());
    volatile uint64_t x = 1;
    while (!stop.load(std::memory_order_relaxed)) x = x * 6364136223846793005ull + 1;
    parts->registry.on_destroyed(601);
  });
  while (tid.load() == 0) std::this_thread::yield();

  // The rest decides the exit code; the spinner is stopped and joined whatever it says.
  auto detach_while_stopped = [&]() -> int {
    int report[2], resume[2];
    if (pipe(report) != 0 || pipe(resume) != 0) return 4;
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // where Yama asks for it
    const pid_t tracer = fork();
    if (tracer == 0) _exit(trace_until_inside(tid.load(), report[1], resume[0]));
    for (;;) {
      char found = 0;
      if (read(report[0], &found, 1) != 1 || found != 'y') {
        int status = 0;
        waitpid(tracer, &status, 0);
        return WIFEXITED(status) ? 100 + WEXITSTATUS(status) : 5;
      }
      if (!platform::capture_handlers_idle()) break;  // held inside: the count says so
      char retry = 'r';
      if (write(resume[1], &retry, 1) != 1) return 6;
    }
    // What the engine's detach does once the sampler stopped asking.
    parts->registry.disarm_all();
    const platform::CaptureRemoval removal = platform::uninstall_capture();
    const bool busy_while_stopped = !platform::capture_handlers_idle();
    char go = 'g';
    if (write(resume[1], &go, 1) != 1) return 6;
    int status = 0;
    if (waitpid(tracer, &status, 0) != tracer || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 7;
    if (removal != platform::CaptureRemoval::kHandlerBusy) return 8;
    if (!busy_while_stopped) return 9;
    // Let go, the thread leaves the handler.
    for (int i = 0; i < 500; ++i) {
      if (platform::capture_handlers_idle()) return 0;
      timespec ts{0, 10000000};
      nanosleep(&ts, nullptr);
    }
    return 10;
  };
  const int code = detach_while_stopped();
  stop = true;
  spinner.join();
  sampler.stop(wire::kEndShutdown, 5000);
  return code;
}
}  // namespace stopped_in_handler

TEST_F(SignalConflicts, ADetachWhileAThreadIsStoppedInsideTheHandlerSaysTheHandlerIsBusy) {
  EXPECT_EXIT(std::_Exit(stopped_in_handler::run()), ::testing::ExitedWithCode(0), "");
}
#endif


// The sampler thread's tick failing (memory exhausted, a bug; injected here) must not end the
// process, as an exception leaving a thread would: sampling stops, the stream still ends, and the
// threads sampled before are left without timers.
int sampler_fails_and_the_process_lives() {
  setenv("CLRSCOPE_INJECT_THROW", "SamplerTick", 1);
  auto* parts = new testing::SamplingParts(64);
  set_sampling_shared(&parts->shared);
  if (platform::install_capture() != platform::CaptureInstall::kOk) return 1;
  parts->shared.active.store(true);
  parts->registry.configure_cpu_timers(true, 1000000);
  auto* transport = new testing::MemoryTransport;
  testing::NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 2000000;
  Sampler sampler(config, &parts->shared, &resolver, std::unique_ptr<Transport>(transport));
  parts->registry.on_created(701);
  parts->registry.on_assigned_os_thread(701, platform::current_tid());
  if (!sampler.start()) return 2;
  timespec ts{0, 200000000};
  nanosleep(&ts, nullptr);
  sampler.stop(wire::kEndShutdown, 5000);
  parts->registry.on_destroyed(701);
  testing::ReadStream s;
  {
    std::lock_guard<std::mutex> lock(transport->mu);
    s = testing::read_stream(transport->bytes);
  }
  return s.ended ? 0 : 3;
}

TEST_F(SignalConflicts, ASamplerThatFailsStopsSamplingAndLeavesTheProcessAlive) {
  EXPECT_EXIT(std::_Exit(sampler_fails_and_the_process_lives()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace clrscope
