// The core end to end on real threads and real signals, without a CLR: threads register as
// the runtime's callbacks would, the sampler captures them, and the stream is read back.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <pthread.h>
#include <signal.h>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "core/native_symbols.h"
#include "core/platform.h"
#include "core/sampler.h"
#include "core/wire_writer.h"
#include "tests/sampler_test_parts.h"
#include "tests/wire_reader.h"

extern "C" {
// Exported (tests link with -rdynamic) so dladdr can name them.
__attribute__((noinline, visibility("default"))) uint64_t clrscope_test_spin_inner(uint64_t n) {
  volatile uint64_t x = 88172645463325252ull;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = x;
    v ^= v << 13;
    v ^= v >> 7;
    v ^= v << 17;
    x = v;
  }
  return x;
}
__attribute__((noinline, visibility("default"))) uint64_t clrscope_test_spin_outer(const std::atomic<bool>* stop) {
  uint64_t acc = 0;
  while (!stop->load(std::memory_order_relaxed)) acc += clrscope_test_spin_inner(100000);
  return acc;
}
// libc keeps no frame pointers: only its unwind tables lead from nanosleep back to here.
__attribute__((noinline, visibility("default"))) void clrscope_test_sleep_inner() {
  timespec ts{0, 2000000};
  nanosleep(&ts, nullptr);
}
// A stack `depth` frames deep (each frame kept: the call is not in tail position) over the spin.
__attribute__((noinline, visibility("default"))) uint64_t clrscope_test_descend(uint32_t depth, const std::atomic<bool>* stop);
// Called through a volatile pointer: the compiler would otherwise turn the recursion into a loop.
uint64_t (*volatile clrscope_test_descend_next)(uint32_t, const std::atomic<bool>*) = clrscope_test_descend;
uint64_t clrscope_test_descend(uint32_t depth, const std::atomic<bool>* stop) {
  if (depth == 0) return clrscope_test_spin_outer(stop);
  const uint64_t below = clrscope_test_descend_next(depth - 1, stop);
  return below + depth;
}
__attribute__((noinline, visibility("default"))) void clrscope_test_sleep_outer(const std::atomic<bool>* stop) {
  while (!stop->load(std::memory_order_relaxed)) clrscope_test_sleep_inner();
}
}

namespace clrscope {
namespace {

using testing::MemoryTransport;
using testing::NativeOnlyResolver;

// Process-wide, as in the profiler: installed once, never freed.
struct Harness : testing::SamplingParts {
  Harness() : SamplingParts(256) { set_sampling_shared(&shared); }
};

Harness& harness() {
  static Harness* h = new Harness;
  return *h;
}

// Every test samples this process through the process-wide parts, the capture signal installed.
class SamplerLinux : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(platform::install_capture(), platform::CaptureInstall::kOk); }
  // The parts active, CPU timers every `cpu_period_ns` on the threads the registry knows (0: none).
  void sample_process(uint64_t cpu_period_ns = 1000000) {
    shared.active.store(true);
    registry.configure_cpu_timers(cpu_period_ns != 0, cpu_period_ns);
  }
  SamplingShared& shared = harness().shared;
  ThreadRegistry& registry = harness().registry;
};

TEST_F(SamplerLinux, CapturesCpuOnTheSpinnerAndWallOnTheSleeper) {
  sample_process();

  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.runtime_version = "test";
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> spinner_cpu{0};
  std::atomic<uint64_t> sleeper_cpu{0};
  auto enter = [this](uint64_t id, const char* name) {
    registry.on_created(id);
    registry.on_assigned_os_thread(id, platform::current_tid());
    registry.on_name_changed(id, name);
  };
  ASSERT_TRUE(sampler.start());
  std::atomic<uint32_t> spinner_tid{0};
  std::thread spinner([&] {
    spinner_tid = platform::current_tid();
    enter(101, "spinner");
    clrscope_test_spin_outer(&stop);
    registry.on_destroyed(101);
    // The thread's whole CPU, read once no capture can come any more: samples count CPU from
    // the thread's start (its registration included, which a sanitized build makes slow), so
    // their sum can exceed a reading taken around the loop alone.
    spinner_cpu = platform::current_thread_cpu_ns();
  });
  std::thread sleeper([&] {
    enter(102, "sleeper");
    clrscope_test_sleep_outer(&stop);
    registry.on_destroyed(102);
    sleeper_cpu = platform::current_thread_cpu_ns();
  });
  // 400 ms, and until the spinner spent 300 ms of CPU (at most 5 s): beside busy threads, under
  // ThreadSanitizer, it got 90 ms in 400 and too few samples for the shares below to mean much.
  const uint64_t began = platform::mono_now_ns();
  while (spinner_tid.load() == 0) std::this_thread::yield();
  for (;;) {
    timespec step{0, 20000000};
    nanosleep(&step, nullptr);
    uint64_t cpu = 0;
    const uint64_t spent = platform::mono_now_ns() - began;
    if (!platform::thread_cpu_ns(spinner_tid.load(), &cpu)) break;
    if ((spent >= 400000000u && cpu >= 300000000u) || spent >= 5000000000u) break;
  }
  stop = true;
  spinner.join();
  sleeper.join();
  sampler.stop(wire::kEndShutdown, 5000);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(s.end_reason, wire::kEndShutdown);
  EXPECT_EQ(s.pid, platform::process_id());
  uint32_t spin_id = 0, sleep_id = 0;
  for (const auto& [id, name] : s.thread_names) {
    if (name == "spinner") spin_id = id;
    if (name == "sleeper") sleep_id = id;
  }
  ASSERT_NE(spin_id, 0u);
  ASSERT_NE(sleep_id, 0u);
  // Both ended (threads other tests left in the process may end during this one too).
  EXPECT_NE(std::find(s.ended_threads.begin(), s.ended_threads.end(), spin_id), s.ended_threads.end());
  EXPECT_NE(std::find(s.ended_threads.begin(), s.ended_threads.end(), sleep_id), s.ended_threads.end());

  uint64_t spin_cpu = 0, spin_cpu_walked = 0, spin_cpu_in_inner = 0, sleep_cpu = 0, sleep_wall = 0, sleep_wall_in_outer = 0;
  size_t cpu_samples = 0;
  for (const auto& smp : s.samples) {
    if (smp.thread_id == spin_id && (smp.flags & wire::kSampleCpu)) {
      ++cpu_samples;
      spin_cpu += smp.cpu_ns;
      if (s.stack_has(smp, "clrscope_test_spin_outer")) spin_cpu_walked += smp.cpu_ns;
      if (s.stack_has(smp, "clrscope_test_spin_inner") && s.stack_has(smp, "clrscope_test_spin_outer")) {
        spin_cpu_in_inner += smp.cpu_ns;
      }
    }
    if (smp.thread_id == sleep_id) {
      if (smp.flags & wire::kSampleCpu) sleep_cpu += smp.cpu_ns;
      if (smp.flags & wire::kSampleWall) {
        sleep_wall += smp.wall_ns;
        if (s.stack_has(smp, "clrscope_test_sleep_inner") && s.stack_has(smp, "clrscope_test_sleep_outer") &&
            !(smp.flags & wire::kSampleIncomplete)) {
          sleep_wall_in_outer += smp.wall_ns;
        }
      }
    }
  }
  // The kernel checks CPU timers on its scheduler tick (4 ms at HZ=250), so a 1 ms timer fires
  // at least once per 10 ms of the spinner's CPU even on a loaded machine. ThreadSanitizer is
  // the exception: it holds a signal back until the thread reaches one of its own safe points and
  // delivers one for many (26 deliveries over 400 ms of CPU in one CI run), so there only the sum
  // of the samples' CPU below says nothing was lost.
#if !defined(__SANITIZE_THREAD__)
  ASSERT_GT(cpu_samples, spinner_cpu.load() / 10000000u) << "a 1 ms CPU timer over the spinner's CPU time";
  ASSERT_GT(cpu_samples, 10u);
#else
  // Enough for the shares below to mean something (exactly 10 deliveries in one CI run).
  ASSERT_GE(cpu_samples, 4u);
#endif
  // CPU values come from the thread's own CPU clock: their sum is the CPU it spent, less the
  // last partial interval. Under ThreadSanitizer that interval is whatever CPU the thread spent
  // since the last signal the sanitizer let through (it holds them back, see above): one CI-like
  // run on a loaded machine summed 79.8% of the spinner's CPU.
#if !defined(__SANITIZE_THREAD__)
  EXPECT_GT(spin_cpu, spinner_cpu.load() * 8 / 10);
#else
  EXPECT_GT(spin_cpu, spinner_cpu.load() * 6 / 10);
#endif
  EXPECT_LE(spin_cpu, spinner_cpu.load());
  // Every CPU sample of the spinner is taken inside the outer loop, and most inside the inner
  // one: under ThreadSanitizer the outer loop's atomic load becomes a call into the sanitizer's
  // runtime (with a system call), which then takes a real share of the CPU.
  EXPECT_GT(spin_cpu_walked, spin_cpu * 9 / 10) << "stacks walked through the outer spin frame";
  EXPECT_GT(spin_cpu_in_inner, spin_cpu / 2) << "stacks walked through both spin frames";
  // A sleeping thread's CPU samples are the little CPU it used (mostly the handler answering its
  // wall requests: a few per cent of its life in a sanitized build), never more. Judged against
  // its own clock and life rather than the spinner's CPU, which a busy machine shrinks.
  EXPECT_LE(sleep_cpu, sleeper_cpu.load()) << "a sleeping thread's CPU samples add up to no more than its CPU";
  EXPECT_LT(sleeper_cpu.load(), sleep_wall / 10) << "the sleeper was asleep";
  EXPECT_GT(sleep_wall, 300000000u) << "wall samples cover the sleeper's life";
  EXPECT_GT(sleep_wall_in_outer, sleep_wall * 8 / 10);
  EXPECT_EQ(s.stats_samples, s.samples.size());
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

TEST_F(SamplerLinux, AbandonsWallRequestsAThreadCannotAnswerAndCapsThreadsPerTick) {
  sample_process(0);
  const uint64_t watchdog_before = shared.dropped_watchdog.load();

  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 5000000;
  config.cpu = false;
  config.wall_threads_per_tick = 3;
  config.watchdog_ns = 50000000;
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  ASSERT_TRUE(sampler.start());

  constexpr int kIdle = 9;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  std::vector<uint64_t> lifetimes(kIdle, 0);
  for (int k = 0; k < kIdle; ++k) {
    threads.emplace_back([&, k] {
      const uint64_t id = 300 + static_cast<uint64_t>(k);
      registry.on_created(id);
      registry.on_assigned_os_thread(id, platform::current_tid());
      registry.on_name_changed(id, "idle-" + std::to_string(k));
      const uint64_t t0 = platform::mono_now_ns();
      clrscope_test_sleep_outer(&stop);
      lifetimes[static_cast<size_t>(k)] = platform::mono_now_ns() - t0;
      registry.on_destroyed(id);
    });
  }
  // A thread that never answers: the capture signal stays blocked, as in a thread stopped by a
  // debugger. Its requests must be abandoned, not waited on.
  threads.emplace_back([&] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, platform::capture_signal_number());
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    registry.on_created(399);
    registry.on_assigned_os_thread(399, platform::current_tid());
    registry.on_name_changed(399, "masked");
    clrscope_test_sleep_outer(&stop);
    registry.on_destroyed(399);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  });
  timespec run{0, 500000000};
  nanosleep(&run, nullptr);
  stop = true;
  for (auto& t : threads) t.join();
  sampler.stop(wire::kEndShutdown, 5000);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  uint32_t masked = 0;
  std::map<uint32_t, uint64_t> wall_by_thread;
  for (const auto& [id, name] : s.thread_names) {
    if (name == "masked") masked = id;
  }
  ASSERT_NE(masked, 0u);
  size_t masked_samples = 0;
  for (const auto& smp : s.samples) {
    if (smp.thread_id == masked) ++masked_samples;
    wall_by_thread[smp.thread_id] += smp.wall_ns;
  }
  EXPECT_EQ(masked_samples, 0u);
  EXPECT_GE(shared.dropped_watchdog.load() - watchdog_before, 3u) << "abandoned requests are counted";
  // With 10 threads and 3 per tick each thread is visited every few ticks, and each sample
  // carries the wall time since its previous one: the sums still cover the threads' lives.
  uint64_t shortest = UINT64_MAX;
  for (uint64_t l : lifetimes) shortest = std::min(shortest, l);
  for (const auto& [id, name] : s.thread_names) {
    if (name.rfind("idle-", 0) != 0) continue;
    EXPECT_GT(wall_by_thread[id], shortest * 7 / 10) << name;
    EXPECT_LT(wall_by_thread[id], shortest * 13 / 10 + 50000000) << name;
  }
  // At most 3 requests per 5 ms tick over ~0.5 s.
  size_t wall_samples = 0;
  for (const auto& smp : s.samples) wall_samples += (smp.flags & wire::kSampleWall) ? 1 : 0;
  EXPECT_LE(wall_samples, 3u * 130u);
}

// Threads registering, running and leaving while the sampler ticks every millisecond with CPU
// timers and wall requests: the registry's slots are reused under the sampler and the signal
// handler. Under ThreadSanitizer (native-profiler/build-tsan) this is the test that exercises
// the slot fields the runtime's threads, the sampler and the handler share.
TEST_F(SamplerLinux, ThreadsComingAndGoingWhileSampledAreAllAnnouncedAndEnded) {
  sample_process();

  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  ASSERT_TRUE(sampler.start());

  constexpr int kWorkers = 6;
  constexpr int kLives = 40;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([this, w] {
      for (int life = 0; life < kLives; ++life) {
        // One runtime thread per life, as a thread pool that retires and creates threads would.
        std::thread t([this, w, life] {
          const uint64_t id = 1000 + static_cast<uint64_t>(w * kLives + life);
          registry.on_created(id);
          registry.on_assigned_os_thread(id, platform::current_tid());
          registry.on_name_changed(id, "churn-" + std::to_string(w * kLives + life));
          clrscope_test_spin_inner(200000);
          clrscope_test_sleep_inner();
          registry.on_destroyed(id);
        });
        t.join();
      }
    });
  }
  for (auto& t : workers) t.join();
  sampler.stop(wire::kEndShutdown, 5000);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  EXPECT_TRUE(s.ended);
  size_t churn = 0;
  for (const auto& [id, name] : s.thread_names) churn += name.rfind("churn-", 0) == 0 ? 1 : 0;
  EXPECT_EQ(churn, static_cast<size_t>(kWorkers * kLives)) << "every thread announced with its name";
  EXPECT_GE(s.ended_threads.size(), static_cast<size_t>(kWorkers * kLives)) << "every thread ended";
  EXPECT_EQ(s.stats_samples, s.samples.size());
}

}  // namespace
}  // namespace clrscope

#include "core/async_tracker.h"

namespace clrscope {
namespace {

std::vector<uint8_t> operation_begin(uint32_t id, const char* name) {
  std::vector<uint8_t> b = {static_cast<uint8_t>(id), static_cast<uint8_t>(id >> 8), 0, 0};
  for (const char* p = name; *p != '\0'; ++p) b.insert(b.end(), {static_cast<uint8_t>(*p), 0});
  b.insert(b.end(), 10, 0);  // NUL, RelatedContext
  return b;
}

std::vector<uint8_t> wait_begin(uint32_t awaited, uint32_t awaiter) {
  std::vector<uint8_t> b(20, 0);
  b[0] = 1;
  b[8] = static_cast<uint8_t>(awaited);
  b[12] = 2;
  b[16] = static_cast<uint8_t>(awaiter);
  return b;
}

// Async call stacks end to end without a CLR: a thread raises the TPL events a three-level
// chain raises (names, await edges, then its box's execution), spins inside the box and then
// outside it; the stream names the box's task on the samples taken inside, and TASK records
// carry the chain to its root.
TEST_F(SamplerLinux, SamplesTakenInAnAsyncBoxNameItsTaskAndTheChainIsDefined) {
  sample_process();

  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.wall = false;
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  AsyncTracker tracker(&registry);
  sampler.attach_async(&tracker, false);
  ASSERT_TRUE(sampler.start());

  std::atomic<int> phase{0};  // 1: inside the box, 2: after it
  std::thread worker([&] {
    registry.on_created(3001);
    registry.on_assigned_os_thread(3001, platform::current_tid());
    registry.on_name_changed(3001, "async-worker");
    auto feed = [&](uint32_t id, const std::vector<uint8_t>& b) { tracker.on_event(id, b.data(), b.size()); };
    feed(tpl_events::kTraceOperationBegin, operation_begin(8, "Async: <Outer>d__4"));
    feed(tpl_events::kTraceOperationBegin, operation_begin(20, "Async: <Middle>d__5"));
    feed(tpl_events::kTraceOperationBegin, operation_begin(30, "Async: <Inner>d__6"));
    feed(tpl_events::kTaskWaitBegin, wait_begin(30, 20));
    feed(tpl_events::kTaskWaitBegin, wait_begin(20, 8));
    feed(tpl_events::kTraceSynchronousWorkBegin, {30, 0, 0, 0, 2, 0, 0, 0});
    // Each side spins for 150 ms of CPU and until 15 captures were taken, whichever is later (at
    // most 3 s of CPU): the kernel checks CPU timers only on a tick that finds the thread running,
    // so beside other busy threads a 1 ms timer can fire a few times in 150 ms of CPU.
    auto spin_side = [this] {
      const uint64_t start = platform::current_thread_cpu_ns();
      const uint64_t captures = shared.captures.load();
      for (;;) {
        const uint64_t spent = platform::current_thread_cpu_ns() - start;
        if ((spent >= 150000000ull && shared.captures.load() - captures >= 15) || spent >= 3000000000ull) break;
        clrscope_test_spin_inner(100000);
      }
    };
    phase = 1;
    spin_side();
    feed(tpl_events::kTraceSynchronousWorkEnd, {2, 0, 0, 0});
    phase = 2;
    spin_side();
    registry.on_destroyed(3001);
  });
  worker.join();
  sampler.stop(wire::kEndShutdown, 5000);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  EXPECT_TRUE(s.ended);
  EXPECT_NE(s.hello_flags & wire::kHelloAsync, 0u);
  uint32_t worker_id = 0;
  for (const auto& [id, name] : s.thread_names) {
    if (name == "async-worker") worker_id = id;
  }
  ASSERT_NE(worker_id, 0u);
  size_t in_box = 0, outside = 0;
  for (const auto& smp : s.samples) {
    if (smp.thread_id != worker_id || !(smp.flags & wire::kSampleCpu)) continue;
    if (smp.task == 30) ++in_box;
    else if (smp.task == 0) ++outside;
    else ADD_FAILURE() << "a sample names task " << smp.task;
  }
  // What is checked here is which task the samples name, not their rate
  // (CapturesCpuOnTheSpinnerAndWallOnTheSleeper checks that): enough of them on each side to mean
  // something. Beside a CPU burner, 150 ms of CPU alone gave 4-6 samples a side.
  EXPECT_GE(in_box, 10u);
  EXPECT_GE(outside, 10u);
  ASSERT_EQ(s.tasks.count(30), 1u);
  ASSERT_EQ(s.tasks.count(20), 1u);
  ASSERT_EQ(s.tasks.count(8), 1u);
  EXPECT_EQ(s.tasks.at(30).awaiter, 20u);
  EXPECT_EQ(s.tasks.at(20).awaiter, 8u);
  EXPECT_EQ(s.tasks.at(8).awaiter, 0u);
  EXPECT_EQ(s.strings.at(s.tasks.at(30).name_id), "<Inner>d__6");
  EXPECT_EQ(s.strings.at(s.tasks.at(20).name_id), "<Middle>d__5");
  EXPECT_EQ(s.strings.at(s.tasks.at(8).name_id), "<Outer>d__4");
  EXPECT_EQ(s.task_records, 3u) << "each task defined once while its chain did not change";
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// Plays the runtime's view of code: the outer spin loop is "managed" (as a JIT-compiled method
// that allocates), everything else native.
class OuterIsManagedResolver final : public FrameResolver {
 public:
  void resolve(uintptr_t pc, ResolvedFrame* out) override {
    if (!resolve_native(pc, out)) {
      out->kind = 2;
      out->name = "[unknown]";
      return;
    }
    if (out->name == "clrscope_test_spin_outer") out->kind = 0;
  }
};

size_t frame_index(const testing::ReadStream& s, const testing::ReadSample& smp, const std::string& name) {
  for (size_t i = 0; i < smp.frames.size(); ++i) {
    const testing::ReadFunction* fn = s.function_of(smp.frames[i]);
    if (fn != nullptr && fn->name == name) return i;
  }
  return SIZE_MAX;
}

// The [GC] frame end to end without a CLR: a registered thread spins while its slot says it
// performs a collection (as between the runtime's GarbageCollectionStarted and
// GarbageCollectionFinished on it), then spins on outside it; a thread the runtime never
// reported, named as server GC names its heaps' threads, spins throughout; another unreported
// thread with an ordinary name spins too.
TEST_F(SamplerLinux, SamplesOfACollectingThreadAndOfACollectorThreadCarryTheGcFrame) {
  sample_process();

  auto* transport = new MemoryTransport;
  OuterIsManagedResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  ASSERT_TRUE(sampler.start());

  std::atomic<bool> stop_collecting{false}, stop{false};
  std::atomic<uint64_t> collect_from{0}, collect_to{0}, after_from{0};
  std::atomic<uint32_t> allocating_tid{0};
  std::thread allocating([&] {
    allocating_tid = platform::current_tid();
    registry.on_created(501);
    registry.on_assigned_os_thread(501, platform::current_tid());
    registry.on_name_changed(501, "allocating");
    ASSERT_TRUE(registry.set_collecting(platform::current_tid(), true));
    collect_from = platform::mono_now_ns();
    clrscope_test_spin_outer(&stop_collecting);
    // Samples before this reading found the flag set, samples after the next one found it clear:
    // the handler runs on this thread, between two of its instructions.
    collect_to = platform::mono_now_ns();
    registry.set_collecting(platform::current_tid(), false);
    after_from = platform::mono_now_ns();
    clrscope_test_spin_outer(&stop);
    registry.on_destroyed(501);
  });
  auto unreported = [&](const char* name) {
    pthread_setname_np(pthread_self(), name);
    clrscope_test_spin_outer(&stop);
  };
  std::thread collector(unreported, ".NET Server GC");
  std::thread plain(unreported, "plain-native");
  // The sampler looks for unreported threads every 250 ms. Each phase lasts 600 ms and until three
  // CPU captures of the allocating thread were taken in it (at most 5 s): four spinning threads on
  // a busy 2-core machine, under ThreadSanitizer's late signals (a wall request's pending signal
  // absorbs the CPU timer's), left a phase without a CPU sample.
  auto phase = [&] {
    uint32_t index = 0, wire_id = 0;
    while (!registry.slot_of_tid(allocating_tid.load(), &index, &wire_id)) std::this_thread::yield();
    const std::atomic<uint64_t>& last_cpu = registry.slot(index).last_cpu_ns;
    const uint64_t began = platform::mono_now_ns();
    uint64_t seen = last_cpu.load();
    int captures = 0;
    while (platform::mono_now_ns() - began < 5000000000u) {
      timespec step{0, 2000000};
      nanosleep(&step, nullptr);
      const uint64_t now_cpu = last_cpu.load();
      if (now_cpu != seen) {
        seen = now_cpu;
        ++captures;
      }
      if (platform::mono_now_ns() - began >= 600000000u && captures >= 3) break;
    }
  };
  while (allocating_tid.load() == 0) std::this_thread::yield();
  phase();
  stop_collecting = true;
  phase();
  stop = true;
  allocating.join();
  collector.join();
  plain.join();
  sampler.stop(wire::kEndShutdown, 5000);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  uint32_t allocating_id = 0, collector_id = 0, plain_id = 0;
  for (const auto& [id, name] : s.thread_names) {
    if (name == "allocating") allocating_id = id;
    if (name == ".NET Server GC") collector_id = id;
    if (name == "plain-native") plain_id = id;
  }
  ASSERT_NE(allocating_id, 0u);
  ASSERT_NE(collector_id, 0u) << "the collector thread was found in the OS's list";
  ASSERT_NE(plain_id, 0u);
  size_t in_collection = 0, after = 0, collector_samples = 0, plain_samples = 0;
  for (const auto& smp : s.samples) {
    const size_t gc = frame_index(s, smp, "[GC]");
    if (smp.thread_id == allocating_id && (smp.flags & wire::kSampleCpu)) {
      const size_t outer = frame_index(s, smp, "clrscope_test_spin_outer");
      if (smp.mono > collect_from && smp.mono < collect_to) {
        ++in_collection;
        ASSERT_NE(gc, SIZE_MAX) << "a sample taken while the thread collected has the frame";
        if (outer != SIZE_MAX) {
          EXPECT_EQ(gc + 1, outer) << "right above the innermost managed frame";
        } else {
          EXPECT_EQ(gc, smp.frames.size() - 1) << "no managed frame: at the root";
        }
        // Exactly one.
        EXPECT_EQ(std::count_if(smp.frames.begin(), smp.frames.end(),
                                [&](uint32_t f) { return s.function_of(f) != nullptr && s.function_of(f)->name == "[GC]"; }),
                  1);
      }
      if (smp.mono > after_from) {
        ++after;
        EXPECT_EQ(gc, SIZE_MAX) << "a sample after the collection has none";
      }
    }
    if (smp.thread_id == collector_id) {
      ++collector_samples;
      EXPECT_EQ(gc, smp.frames.size() - 1) << "a collector thread's samples all have it at the root";
    }
    if (smp.thread_id == plain_id) {
      ++plain_samples;
      EXPECT_EQ(gc, SIZE_MAX) << "an ordinary native thread has none";
    }
  }
  // At least one sample in each part, so that each check above was made. No more is asked: four
  // spinning threads on a loaded 2-core machine get few timer ticks each, and ThreadSanitizer
  // delivers one signal for many (see the first test).
  EXPECT_GE(in_collection, 1u);
  EXPECT_GE(after, 1u);
  EXPECT_GE(collector_samples, 1u);
  EXPECT_GE(plain_samples, 1u);
  const testing::ReadFunction* gc_function = nullptr;
  for (const auto& [id, fn] : s.functions) {
    if (fn.name == "[GC]") gc_function = &fn;
  }
  ASSERT_NE(gc_function, nullptr);
  EXPECT_EQ(gc_function->kind, wire::kSynthetic);
}


// The runtime gives each of its threads a 16 KiB alternate signal stack (a guard page below it)
// for its fault handlers. These tests put a spinning thread on such a stack, sample it every
// millisecond, and have another thread send it SIGRTMIN (the runtime's activation signal)
// handled by a handler of the test's own.
struct AltStackRun {
  testing::ReadStream stream;
  uint32_t thread_id = 0;  // the spinner's, in the stream
  size_t samples = 0;      // the spinner's
  size_t deepest = 0;      // bytes of the alternate stack ever written
  size_t thread_stack = 0;  // bytes of the thread's own stack written below the spinning code's caller
};

// Fills `size` bytes of the stack below the caller with a pattern and returns their lowest address.
constexpr unsigned char kPaint = 0xC3;
__attribute__((noinline)) uintptr_t paint_stack_below(size_t size) {
  auto* area = static_cast<volatile unsigned char*>(__builtin_alloca(size));
  for (size_t i = 0; i < size; ++i) area[i] = kPaint;
  return reinterpret_cast<uintptr_t>(area);
}
constexpr size_t kRuntimeAltStack = 16384;

AltStackRun run_on_alt_stack(void (*probe_handler)(int, siginfo_t*, void*), int probe_flags, uint64_t send_gap_ns,
                             uint64_t run_ns) {
  AltStackRun out;
  SamplingShared& shared = harness().shared;
  ThreadRegistry& registry = harness().registry;
  shared.active.store(true);
  registry.configure_cpu_timers(true, 1000000);
  const int probe = SIGRTMIN;
  struct sigaction sa, previous;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = probe_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | probe_flags;
  sigemptyset(&sa.sa_mask);
  if (sigaction(probe, &sa, &previous) != 0) return out;

  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.runtime_version = "test";
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  if (!sampler.start()) return out;

  std::atomic<bool> stop_sending{false}, stop_spinning{false};
  std::atomic<uint32_t> spinner_tid{0};
  std::atomic<size_t> deepest{0};
  std::atomic<size_t> thread_stack{0};
  std::thread spinner([&] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* mem = mmap(nullptr, page + kRuntimeAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    mprotect(mem, page, PROT_NONE);
    auto* base = static_cast<unsigned char*>(mem) + page;
    std::memset(base, 0xA5, kRuntimeAltStack);
    stack_t ss{};
    ss.ss_sp = base;
    ss.ss_size = kRuntimeAltStack;
    sigaltstack(&ss, nullptr);
    registry.on_created(501);
    registry.on_assigned_os_thread(501, platform::current_tid());
    registry.on_name_changed(501, "alt-stack spinner");
    spinner_tid = platform::current_tid();
    constexpr size_t kPainted = 65536;
    const auto painted_lo = paint_stack_below(kPainted);
    const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    clrscope_test_spin_outer(&stop_spinning);
    registry.on_destroyed(501);
    // Plain loads: no call may run below here before the painted area is read.
    const auto* painted = reinterpret_cast<const volatile unsigned char*>(painted_lo);
    size_t untouched_below = 0;
    while (untouched_below < kPainted && painted[untouched_below] == kPaint) ++untouched_below;
    thread_stack = here - (painted_lo + untouched_below);
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    size_t untouched = 0;
    while (untouched < kRuntimeAltStack && base[untouched] == 0xA5) ++untouched;
    deepest = kRuntimeAltStack - untouched;
    munmap(mem, page + kRuntimeAltStack);
  });
  std::thread sender([&] {
    while (spinner_tid.load() == 0 && !stop_sending.load()) std::this_thread::yield();
    const auto tid = static_cast<pid_t>(spinner_tid.load());
    while (!stop_sending.load(std::memory_order_relaxed)) {
      if (tid != 0) syscall(SYS_tgkill, getpid(), tid, probe);
      // Paced by spinning: a thread kept busy taking signals back to back would take nothing else.
      const uint64_t until = platform::mono_now_ns() + send_gap_ns;
      while (platform::mono_now_ns() < until) {
      }
    }
  });
  timespec run{static_cast<time_t>(run_ns / 1000000000u), static_cast<long>(run_ns % 1000000000u)};
  nanosleep(&run, nullptr);
  stop_sending = true;
  sender.join();  // before the spinner leaves its stack: no signal may reach a thread gone
  stop_spinning = true;
  spinner.join();
  sampler.stop(wire::kEndShutdown, 5000);
  sigaction(probe, &previous, nullptr);

  out.stream = testing::read_stream(transport->bytes);
  for (const auto& [id, name] : out.stream.thread_names) {
    if (name == "alt-stack spinner") out.thread_id = id;
  }
  for (const auto& smp : out.stream.samples) out.samples += smp.thread_id == out.thread_id ? 1 : 0;
  out.deepest = deepest.load();
  out.thread_stack = thread_stack.load();
  return out;
}

// Captures run on the thread's own stack, as the runtime's activation signal does, never on the
// alternate stack: that one may hold a fault handler's live frames while the thread runs
// elsewhere (fault_window_test.cpp). The activation-like signals sent meanwhile run on the
// thread's stack too, so nothing at all may touch the alternate stack.
void on_probe_signal(int, siginfo_t*, void*) {}

TEST_F(SamplerLinux, CapturesLeaveTheAlternateStackUntouched) {
  const AltStackRun run = run_on_alt_stack(on_probe_signal, 0, 20000, 600000000);
  ASSERT_NE(run.thread_id, 0u);
  // What a capture takes of the thread's own stack (with the spinning code's few frames, the
  // kernel's red zone and its signal frame): the price of leaving the alternate stack alone.
  std::printf("alternate stack: %zu of %zu bytes written; %zu captures; %zu bytes of the thread's stack at the deepest\n",
              run.deepest, kRuntimeAltStack, run.samples, run.thread_stack);
#if !defined(__SANITIZE_THREAD__)
  EXPECT_GE(run.samples, 20u);
#endif
  EXPECT_EQ(run.deepest, 0u) << "a capture ran on the alternate stack";
}

// The other order: a capture reaching a thread inside another handler on its alternate stack.
// The kernel puts it right below that handler's frames; the capture reads nothing of the stack
// it cannot bound (one frame, the interrupted pc) and says how close it came to the stack's end.
void on_long_probe_signal(int, siginfo_t*, void*) {
  const uint64_t until = platform::mono_now_ns() + 200000;
  while (platform::mono_now_ns() < until) {
  }
}

TEST_F(SamplerLinux, ACaptureReachingAThreadInsideAnotherHandlerOnItsAlternateStackIsCountedWithItsRoom) {
  const platform::NestedCaptures before = platform::nested_captures();
  const AltStackRun run = run_on_alt_stack(on_long_probe_signal, SA_ONSTACK, 300000, 500000000);
  const platform::NestedCaptures after = platform::nested_captures();
  ASSERT_NE(run.thread_id, 0u);
  std::printf("%llu captures inside the other handler; the least room left %llu of %zu bytes\n",
              static_cast<unsigned long long>(after.count - before.count),
              static_cast<unsigned long long>(after.least_room), kRuntimeAltStack);
#if !defined(__SANITIZE_THREAD__)
  // ThreadSanitizer delivers signals at its own safe points, never inside another handler.
  EXPECT_GE(after.count - before.count, 5u);
  EXPECT_GT(after.least_room, 0u);
  EXPECT_LT(after.least_room, kRuntimeAltStack);
#endif
  EXPECT_TRUE(run.stream.ended);
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// A thread that blocks the capture signal its whole life takes no capture; its CPU still comes
// in, from its clock, under a frame that says why, and its stack from before it blocked.
TEST_F(SamplerLinux, TheCpuOfAThreadThatBlocksTheSignalComesInUnderAFrameSayingSo) {
  sample_process();
  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.runtime_version = "test";
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  ASSERT_TRUE(sampler.start());

  std::atomic<bool> stop{false};
  std::atomic<bool> blocked{false};
  std::atomic<uint64_t> blocked_cpu{0};
  std::thread masked([&] {
    registry.on_created(901);
    registry.on_assigned_os_thread(901, platform::current_tid());
    registry.on_name_changed(901, "masked");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    const uint64_t from = platform::current_thread_cpu_ns();
    blocked = true;
    clrscope_test_spin_outer(&stop);
    blocked_cpu = platform::current_thread_cpu_ns() - from;
    // Still blocked while it ends: what it spent last must come in before the end too.
    sampler.stop(wire::kEndShutdown, 5000);
    registry.on_destroyed(901);
  });
  while (!blocked.load()) std::this_thread::yield();
  const uint64_t began = platform::mono_now_ns();
  while (platform::mono_now_ns() - began < 600000000u) {
    timespec step{0, 20000000};
    nanosleep(&step, nullptr);
  }
  stop = true;
  masked.join();

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  uint32_t id = 0;
  for (const auto& [tid, name] : s.thread_names) {
    if (name == "masked") id = tid;
  }
  ASSERT_NE(id, 0u);
  uint64_t charged = 0, said = 0;
  for (const auto& smp : s.samples) {
    if (smp.thread_id != id || !(smp.flags & wire::kSampleCpu)) continue;
    charged += smp.cpu_ns;
    if (s.stack_has(smp, "[CPU without a stack: signal blocked]")) said += smp.cpu_ns;
  }
  std::printf("blocked: %.1f ms of CPU, %.1f ms in its samples, %.1f ms of them saying the signal was blocked\n",
              static_cast<double>(blocked_cpu.load()) / 1e6, static_cast<double>(charged) / 1e6,
              static_cast<double>(said) / 1e6);
  // Before it blocked it may have been captured (registration), so the samples hold a little more.
  EXPECT_GE(static_cast<double>(charged), 0.97 * static_cast<double>(blocked_cpu.load()));
  EXPECT_LE(static_cast<double>(charged), 1.03 * static_cast<double>(blocked_cpu.load()) + 20e6);
  EXPECT_GE(static_cast<double>(said), 0.95 * static_cast<double>(blocked_cpu.load()));
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// A thread whose every walk is dear (100,000 frames: milliseconds) sampled at 1 ms: its CPU timer
// counts the handler's time too, so without pacing it fired again as each walk ended and the
// thread did little else (a .NET program of 1.5 s took 166 s at --interval 1). Paced
// (core/walk_pacing.h), the handler takes about a tenth of the thread's time, and the ticks it
// skipped lose no CPU: the samples still add up to the thread's CPU.
TEST_F(SamplerLinux, AThreadWithAStackTooDeepToWalkEveryTickIsWalkedLessOftenAndLosesNoCpu) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer's own record of each thread's calls overflows far short of 100,000 frames,
  // and it delivers signals inside its runtime, whose frames end the walk after a few.
  GTEST_SKIP() << "not under ThreadSanitizer";
#endif
  constexpr uint32_t kDepth = 100000;
  sample_process();
  auto* transport = new MemoryTransport;
  NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.wall = false;
  config.runtime_version = "test";
  Sampler sampler(config, &shared, &resolver, std::unique_ptr<Transport>(transport));
  ASSERT_TRUE(sampler.start());
  const uint64_t paused_before = shared.paused_ticks.load();
  const uint64_t handler_before = shared.capture_ns.load();

  std::atomic<bool> stop{false};
  std::atomic<bool> deep{false};
  std::atomic<uint64_t> deep_cpu{0};
  std::atomic<uint32_t> deep_tid{0};
  auto body = [&] {
    registry.on_created(951);
    registry.on_assigned_os_thread(951, platform::current_tid());
    registry.on_name_changed(951, "deep");
    deep_tid = platform::current_tid();
    deep = true;
    clrscope_test_descend(kDepth, &stop);
    registry.on_destroyed(951);
    deep_cpu = platform::current_thread_cpu_ns();
  };
  // 100,000 frames of 32 bytes or more, on a stack of its own (a sanitized build's frames are larger).
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256u << 20);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<decltype(body)*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &body), 0);
  pthread_attr_destroy(&attr);
  while (!deep.load()) std::this_thread::yield();
  // Until the thread has spent 400 ms of CPU (at most 10 s); 1.5 s under AddressSanitizer, whose
  // walks of this stack took 24 ms each in CI (a pause of 240 ms: 3 samples in 400 ms).
#if defined(__SANITIZE_ADDRESS__)
  constexpr uint64_t kRunCpuNs = 1500000000u;
#else
  constexpr uint64_t kRunCpuNs = 400000000u;
#endif
  const uint64_t began = platform::mono_now_ns();
  for (;;) {
    timespec step{0, 20000000};
    nanosleep(&step, nullptr);
    uint64_t cpu = 0;
    if (!platform::thread_cpu_ns(deep_tid.load(), &cpu)) break;
    if (cpu >= kRunCpuNs || platform::mono_now_ns() - began >= 10000000000u) break;
  }
  stop = true;
  pthread_join(thread, nullptr);
  sampler.stop(wire::kEndShutdown, 5000);
  const uint64_t handler_ns = shared.capture_ns.load() - handler_before;
  const uint64_t paused = shared.paused_ticks.load() - paused_before;

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  uint32_t id = 0;
  for (const auto& [tid, name] : s.thread_names) {
    if (name == "deep") id = tid;
  }
  ASSERT_NE(id, 0u);
  uint64_t charged = 0, at_bottom = 0, elided = 0;
  size_t samples = 0;
  for (const auto& smp : s.samples) {
    if (smp.thread_id != id || !(smp.flags & wire::kSampleCpu)) continue;
    ++samples;
    charged += smp.cpu_ns;
    if (s.stack_has(smp, "clrscope_test_spin_outer")) at_bottom += smp.cpu_ns;
    if (smp.flags & wire::kSampleElided) ++elided;
  }
  const double cpu = static_cast<double>(deep_cpu.load());
  std::printf("deep: %.1f ms of CPU in %zu samples (%.1f ms), %llu ticks paused, %.1f ms in the handler\n", cpu / 1e6,
              samples, static_cast<double>(charged) / 1e6, static_cast<unsigned long long>(paused),
              static_cast<double>(handler_ns) / 1e6);
  EXPECT_GT(paused, 0u) << "the walks were dear enough to pace";
  EXPECT_GE(samples, 4u);
  EXPECT_EQ(elided, samples) << "every stack of 100,000 frames is marked elided";
  // The handler's time (monotonic, so a preempted handler counts more) against the thread's CPU:
  // about a tenth, with room for a loaded machine.
  EXPECT_LT(static_cast<double>(handler_ns), 0.25 * cpu);
  // Nothing lost: the samples carry the thread's CPU but its last stretch after the final walk.
  EXPECT_LE(static_cast<double>(charged), cpu);
  EXPECT_GT(static_cast<double>(charged), 0.7 * cpu);
  EXPECT_GT(static_cast<double>(at_bottom), 0.9 * static_cast<double>(charged)) << "the samples are the spin's";
}

}  // namespace
}  // namespace clrscope
