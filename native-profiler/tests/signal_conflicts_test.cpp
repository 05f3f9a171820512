// Living with other users of signals. Each case runs in a fresh child process (a death test):
// the capture handler is process-wide state.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <cstring>

#include "core/platform.h"
#include "core/sampler.h"
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

}  // namespace
}  // namespace clrscope
