#include "core/sampler.h"

#include <chrono>
#include <stdexcept>

#include "core/injected_throw.h"
#include "core/log.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/sampler_rooms.h"
#include "core/sampling_shared.h"
#include "core/self_cost.h"
#include "core/tick_hook.h"
#include "core/transport.h"

namespace clrscope {
namespace {

// The sampler thread's CPU while it writes and sends, less what it spent naming code meanwhile
// (an event's frames are named as its emitter writes it): the writer's part of the cost.
class WriterCost {
 public:
  WriterCost() : cpu_(platform::current_thread_cpu_ns()), symbols_(own_cost(kCostSymbols)) {}
  ~WriterCost() {
    const uint64_t cpu = platform::current_thread_cpu_ns() - cpu_;
    const uint64_t symbols = own_cost(kCostSymbols) - symbols_;
    if (cpu > symbols) add_own_cost(kCostWriter, cpu - symbols);
  }
  WriterCost(const WriterCost&) = delete;
  WriterCost& operator=(const WriterCost&) = delete;

 private:
  uint64_t cpu_;
  uint64_t symbols_;
};

}  // namespace

Sampler::Sampler(const SamplerConfig& config, SamplingShared* shared, FrameResolver* resolver,
                 std::unique_ptr<Transport> transport)
    : config_(config), shared_(shared), transport_(std::move(transport)) {
  rooms_ = std::make_unique<Rooms>(config_, shared_, resolver, transport_.get());
}

Sampler::~Sampler() {
  if (thread_.joinable()) thread_.detach();
}

uint64_t Sampler::suspended_samples() const { return rooms_->async != nullptr ? rooms_->async->suspended_samples() : 0; }

bool Sampler::start() {
  begin_stream();
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    return false;
  }
  return true;
}

HelloRecord Sampler::hello_record(uint64_t mono) const {
  HelloRecord h;
  h.pid = platform::process_id();
  h.flags = (config_.cpu ? wire::kHelloCpu : 0u) | (config_.wall ? wire::kHelloWall : 0u) |
            (config_.attached ? wire::kHelloAttached : 0u) | (parts_.async != nullptr || parts_.heap != nullptr ? wire::kHelloAsync : 0u);
  h.mono = mono;
  h.unix_ns = platform::unix_now_ns();
  h.interval_ns = static_cast<uint32_t>(config_.interval_ns);
  h.wall_threads_per_tick = config_.wall_threads_per_tick;
  h.runtime_version = config_.runtime_version;
  h.profiler_version = config_.profiler_version;
  return h;
}

void Sampler::begin_stream() {
  Rooms& r = *rooms_;
  // Before anything is named: async call stacks keep the names of frames from the first one.
  register_emitters();
  r.stream.writer.preamble();
  const HelloRecord h = hello_record(platform::mono_now_ns());
  r.stream.writer.hello(h);
  if (tick_hook_ != nullptr) tick_hook_->on_begin(&r.stream.writer, transport_.get());
  r.drain.begin();
  // Handlers walk native frames with the module table; have one before the first capture.
  r.drain.refresh_modules();
  for (const auto& e : r.emitters) e->begin(h.mono);
  r.scan.begin(h.mono);
  r.stream.outbox.flush();
}

bool Sampler::stop(uint8_t end_reason, int timeout_ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) return finished_;
    stop_requested_ = true;
    end_reason_ = end_reason;
  }
  cv_.notify_all();
  if (!thread_.joinable()) return true;
  std::unique_lock<std::mutex> lock(mu_);
  // A sampler stuck inside the runtime (it symbolizes through it) must not hold up shutdown.
  if (cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return finished_; })) {
    lock.unlock();
    thread_.join();
    return true;
  }
  lock.unlock();
  thread_.detach();
  return false;
}

void Sampler::run() {
  platform::name_current_thread("clrscope");
  mark_own_thread();
  uint64_t next = platform::mono_now_ns() + config_.interval_ns;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_requested_) break;
    }
    const uint64_t began = platform::mono_now_ns();
    // A tick far behind its time: the machine is overloaded or the process was stopped.
    if (began > next + kSlowTickNs && began - last_slow_log_mono_ > kSlowLogEveryNs) {
      last_slow_log_mono_ = began;
      log_line("a sampler tick began %llu ms late", static_cast<unsigned long long>((began - next) / 1000000));
    }
    // Nothing may leave this thread as an exception: uncaught, it would end the program. A tick
    // that fails (memory exhausted, a bug) stops sampling; the program carries on.
    if (!guarded_tick(began)) break;
    if (quiet()) break;
    const uint64_t now = platform::mono_now_ns();
    // After a stall (machine overloaded, process stopped) restart the cadence instead of
    // firing a burst of ticks to catch up.
    if (next <= now) next = now + config_.interval_ns;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::nanoseconds(next - now), [this] { return stop_requested_; });
    }
    next += config_.interval_ns;
  }
  uint8_t reason;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reason = end_reason_;
  }
  if (!quiet()) {
    try {
      end_stream(reason);
    } catch (...) {
      log_line("the sampler failed while ending the stream; the program carries on");
    }
  }
  unmark_own_thread();
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
  }
  cv_.notify_all();
  if (quiet() && quiet_hook_) quiet_hook_();
}

bool Sampler::join() {
  if (!thread_.joinable() || thread_.get_id() == std::this_thread::get_id()) return false;
  thread_.join();
  return true;
}

bool Sampler::guarded_tick(uint64_t now) {
  const char* why = nullptr;
  try {
    if (injected_throw("SamplerTick")) throw std::runtime_error("injected");
    tick(now);
    return true;
  } catch (const std::bad_alloc&) {
    why = "out of memory";
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "unexpected exception";
  }
  log_line("the sampler failed (%s); sampling stopped, the program carries on", why);
  // Captures stop here: no timer fires and no wall request is sent any more.
  shared_->registry->disarm_all();
  config_.wall = false;
  return false;
}

void Sampler::tick(uint64_t now) {
  if (quiet()) return;
  Rooms& r = *rooms_;
  if (tick_hook_ != nullptr) tick_hook_->on_tick(now, transport_.get(), &r.stream.writer, &r.stream.outbox);
  const bool peer_done = transport_->peer_finished();
  // The program closed the stream's descriptor (or put a file of its own at its number): nothing
  // more goes out on it.
  if (transport_->loss().how != 0) {
    go_quiet();
    return;
  }
  if (peer_done) {
    finish_on_request();
    return;
  }
  if (!r.stream.signal_lost && !platform::capture_still_installed()) stop_captures_for_lost_signal(now);
  // Each phase's end: a tick that runs long says which phase it was (wall samples and the
  // counters block wait for it).
  uint64_t at[7];
  at[0] = platform::mono_now_ns();
  r.drain.refresh_modules();
  at[1] = platform::mono_now_ns();
  r.scan.scan_os(now);
  r.scan.announce();
  at[2] = platform::mono_now_ns();
  if (config_.wall) r.wall.request(now);
  at[3] = platform::mono_now_ns();
  r.drain.drain();
  r.unanswered.account(now, false);
  at[4] = platform::mono_now_ns();
  bool sent;
  {
    const WriterCost cost;
    flush_emitters(now, false, config_.wall);
    at[5] = platform::mono_now_ns();
    sent = r.stream.outbox.within_capacity() && r.stream.outbox.flush();
  }
  if (!sent) go_quiet();
  at[6] = platform::mono_now_ns();
  if (at[6] - now > kSlowTickNs && at[6] - last_slow_log_mono_ > kSlowLogEveryNs) {
    last_slow_log_mono_ = at[6];
    const auto ms = [](uint64_t ns) { return static_cast<unsigned long long>(ns / 1000000); };
    log_line("a sampler tick took %llu ms: hook %llu, modules %llu, threads %llu, wall requests %llu, "
             "captures %llu, emitters %llu, sending %llu",
             ms(at[6] - now), ms(at[0] - now), ms(at[1] - at[0]), ms(at[2] - at[1]), ms(at[3] - at[2]),
             ms(at[4] - at[3]), ms(at[5] - at[4]), ms(at[6] - at[5]));
  }
}

void Sampler::end_stream(uint8_t reason) {
  Rooms& r = *rooms_;
  // Captures already taken go first, so that only what no capture brought in is charged here.
  r.drain.drain();
  r.unanswered.account(platform::mono_now_ns(), true);
  shared_->registry->disarm_all();
  const bool wall = config_.wall;
  config_.wall = false;
  r.scan.announce();
  r.drain.drain();
  shared_->active.store(false, std::memory_order_release);
  const uint64_t now = platform::mono_now_ns();
  // Everything the emitters still hold, whatever a tick's bounds; async operations' time only if
  // wall sampling was on as the stream began to close.
  const WriterCost cost;
  flush_emitters(now, true, wall);
  if (tick_hook_ != nullptr) tick_hook_->on_end(now, &r.stream.writer);
  r.stream.writer.end(now, reason);
  r.stream.outbox.drain(2000);
  if (transport_->loss().how != 0) report_lost_connection();
  log_totals();
}

void Sampler::log_totals() {
  const Rooms& r = *rooms_;
  // The profiler's own cost, for scripts/bench: time in the handler and the sampler thread's CPU
  // (this runs on the sampler thread when the stream ends normally).
  const uint64_t captures = shared_->captures.load(std::memory_order_relaxed);
  const uint64_t handler_ns = shared_->capture_ns.load(std::memory_order_relaxed);
  log_line("stream ended: %llu samples, %llu wall samples answered from idle threads' last stacks, %llu bytes sent; "
           "%llu captures took %.1f us each in the handler (%.1f ms in all); the sampler thread used %.1f ms of CPU; "
           "%llu bytes of unwind tables copied",
           static_cast<unsigned long long>(r.stream.samples_sent), static_cast<unsigned long long>(r.wall.reused()),
           static_cast<unsigned long long>(r.stream.outbox.bytes_sent()), static_cast<unsigned long long>(captures),
           captures == 0 ? 0.0 : static_cast<double>(handler_ns) / 1000.0 / static_cast<double>(captures),
           static_cast<double>(handler_ns) / 1e6, static_cast<double>(platform::current_thread_cpu_ns()) / 1e6,
           static_cast<unsigned long long>(platform::unwind_copy_bytes()));
  const uint64_t paused = shared_->paused_ticks.load(std::memory_order_relaxed);
  if (paused != 0) {
    log_line("%llu CPU ticks fell in the pause after a walk that took long (a very deep stack); their CPU went "
             "with the next sample", static_cast<unsigned long long>(paused));
  }
  const platform::NestedCaptures nested = platform::nested_captures();
  if (nested.count != 0) {
    log_line("%llu captures reached a thread inside another signal handler on its alternate stack; the least room "
             "left there was %llu bytes",
             static_cast<unsigned long long>(nested.count), static_cast<unsigned long long>(nested.least_room));
  }
  r.unanswered.log_totals();
  for (const auto& e : r.emitters) e->log_totals();
}

void Sampler::finish_on_request() {
  // The reader asked for a clean end, or went away (a closed connection reads the same): an
  // attached profiler detaches after it (the quiet hook), one loaded at startup stays loaded and
  // silent.
  end_stream(config_.attached ? wire::kEndDetach : wire::kEndRequested);
  transport_->finish();
  log_line(rooms_->stream.outbox.broken() ? "the workstation stopped reading (connection closed); sampling stopped, the program carries on"
                            : "the workstation asked the stream to end; sampling stopped, the program carries on");
  quiet_.store(true, std::memory_order_relaxed);
  platform::quiesce_capture();
  if (tick_hook_ != nullptr) tick_hook_->on_quiet();
}

void Sampler::go_quiet() {
  if (transport_->loss().how != 0) {
    report_lost_connection();
  } else {
    log_line("the workstation stopped reading (%s); sampling stopped, the program carries on",
             rooms_->stream.outbox.broken() ? "connection closed" : "send buffer full");
  }
  quiet_.store(true, std::memory_order_relaxed);
  shared_->active.store(false, std::memory_order_release);
  shared_->registry->disarm_all();
  platform::quiesce_capture();
  if (tick_hook_ != nullptr) tick_hook_->on_quiet();
}

void Sampler::stop_captures_for_lost_signal(uint64_t now) {
  // The program (or a library) took the signal over; keep the stream but stop asking for
  // captures.
  rooms_->stream.signal_lost = true;
  rooms_->stream.signal_lost_mono = now;
  log_line("the program replaced clrscope's signal handler; sampling stopped");
  shared_->registry->disarm_all();
  config_.wall = false;
}

void Sampler::flush_emitters(uint64_t now, bool last, bool wall) {
  const FlushPoint at{now, last, wall};
  for (const auto& e : rooms_->emitters) e->flush(at);
}

}  // namespace clrscope
