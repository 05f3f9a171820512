#include "core/sampler.h"

#include <chrono>

#include "core/log.h"
#include "core/platform.h"

namespace clrscope {
namespace {
// CPU a thread may use after a wall capture and still count as not having run: the return
// from the signal handler and the re-entry into its blocking call cost a few microseconds.
constexpr uint64_t kIdleCpuNs = 20000;
}  // namespace

Sampler::Sampler(const SamplerConfig& config, SamplingShared* shared, FrameResolver* resolver,
                 std::unique_ptr<Transport> transport)
    : config_(config),
      shared_(shared),
      transport_(std::move(transport)),
      outbox_(transport_.get(), config.outbox_bytes),
      writer_(outbox_.buffer()),
      symbols_(
          resolver,
          [this](uint32_t id, const ResolvedFrame& f) {
            writer_.module(id, f.kind == wire::kManaged ? wire::kModuleManaged : wire::kModuleNative, f.mvid,
                           f.module_path.empty() ? f.module : f.module_path);
          },
          [this](uint32_t id, uint32_t module_id, const ResolvedFrame& f) {
            writer_.function(id, f.kind, module_id, f.token, f.name, f.file);
            // A frame is a function until IL offsets are looked up, so stacks name function ids
            // as frame ids and each function is its own frame, offset unknown.
            writer_.frame(id, id, wire::kOffsetNone, 0);
          }) {
  ids_.reserve(kMaxFrames + 1);
  outbox_.set_before_send([this] { writer_.close_batch(); });
}

Sampler::~Sampler() {
  if (thread_.joinable()) thread_.detach();
}

bool Sampler::start() {
  begin_stream();
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    return false;
  }
  return true;
}

void Sampler::begin_stream() {
  writer_.preamble();
  HelloRecord h;
  h.pid = platform::process_id();
  h.flags = (config_.cpu ? wire::kHelloCpu : 0u) | (config_.wall ? wire::kHelloWall : 0u) |
            (config_.attached ? wire::kHelloAttached : 0u);
  h.mono = platform::mono_now_ns();
  h.unix_ns = platform::unix_now_ns();
  h.interval_ns = static_cast<uint32_t>(config_.interval_ns);
  h.wall_threads_per_tick = config_.wall_threads_per_tick;
  h.runtime_version = config_.runtime_version;
  h.profiler_version = config_.profiler_version;
  writer_.hello(h);
  elided_id_ = symbols_.synthetic("[frames elided]");
  // Handlers walk native frames with the module table; have one before the first capture.
  platform::refresh_modules();
  last_stats_mono_ = h.mono;
  outbox_.flush();
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
  uint64_t next = platform::mono_now_ns() + config_.interval_ns;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_requested_) break;
    }
    tick(platform::mono_now_ns());
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
  if (!quiet()) end_stream(reason);
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

void Sampler::tick(uint64_t now) {
  if (quiet()) return;
  if (!handler_lost_ && !platform::capture_still_installed()) {
    // Another library took the signal over; keep the stream but stop asking for captures.
    handler_lost_ = true;
    log_line("another library replaced clrscope's signal handler; sampling stopped");
    shared_->registry->disarm_all();
    config_.wall = false;
  }
  platform::refresh_modules();
  emit_thread_events();
  if (config_.wall) request_wall_samples(now);
  drain_captures();
  emit_suspensions();
  if (counters_ != nullptr) counters_->publish(now);
  if (now - last_stats_mono_ >= 1000000000ull) emit_stats(now);
  if (!outbox_.within_capacity() || !outbox_.flush()) go_quiet();
}

void Sampler::end_stream(uint8_t reason) {
  shared_->registry->disarm_all();
  config_.wall = false;
  emit_thread_events();
  drain_captures();
  emit_suspensions();
  shared_->active.store(false, std::memory_order_release);
  const uint64_t now = platform::mono_now_ns();
  if (counters_ != nullptr) counters_->publish(now);
  emit_stats(now);
  writer_.end(now, reason);
  outbox_.drain(2000);
  // The profiler's own cost, for scripts/bench: time in the handler and the sampler thread's CPU
  // (this runs on the sampler thread when the stream ends normally).
  const uint64_t captures = shared_->captures.load(std::memory_order_relaxed);
  const uint64_t handler_ns = shared_->capture_ns.load(std::memory_order_relaxed);
  log_line("stream ended: %llu samples, %llu wall samples answered from idle threads' last stacks, %llu bytes sent; "
           "%llu captures took %.1f us each in the handler (%.1f ms in all); the sampler thread used %.1f ms of CPU",
           static_cast<unsigned long long>(samples_sent_), static_cast<unsigned long long>(wall_reused_),
           static_cast<unsigned long long>(outbox_.bytes_sent()), static_cast<unsigned long long>(captures),
           captures == 0 ? 0.0 : static_cast<double>(handler_ns) / 1000.0 / static_cast<double>(captures),
           static_cast<double>(handler_ns) / 1e6, static_cast<double>(platform::current_thread_cpu_ns()) / 1e6);
}

void Sampler::go_quiet() {
  log_line("the workstation stopped reading (%s); sampling stopped, the program carries on",
           outbox_.broken() ? "connection closed" : "send buffer full");
  quiet_.store(true, std::memory_order_relaxed);
  shared_->active.store(false, std::memory_order_release);
  shared_->registry->disarm_all();
  platform::quiesce_capture();
}

void Sampler::emit_thread_events() {
  events_.clear();
  shared_->registry->take_events(&events_);
  for (const ThreadEvent& e : events_) {
    switch (e.kind) {
      case ThreadEvent::kStarted:
      case ThreadEvent::kRenamed:
        writer_.thread(e.wire_id, e.os_tid, e.clr_thread_id, e.mono, e.name);
        if (announced_.size() <= e.wire_id) announced_.resize(e.wire_id + 1024, false);
        announced_[e.wire_id] = true;
        break;
      case ThreadEvent::kEnded:
        writer_.thread_end(e.wire_id, e.mono);
        wall_memo_.erase(e.wire_id);
        break;
    }
  }
}

void Sampler::request_wall_samples(uint64_t now) {
  ThreadRegistry& reg = *shared_->registry;
  const uint32_t limit = reg.slot_limit();
  if (limit == 0) return;
  uint32_t asked = 0;
  // One pass over the slots at most, starting where the last tick stopped: with more live
  // threads than the per-tick cap, each is sampled every few ticks and its value covers the
  // whole time since its previous sample.
  const uint32_t start = wall_cursor_;
  for (uint32_t k = 0; k < limit && asked < config_.wall_threads_per_tick; ++k) {
    const uint32_t i = (start + k) % limit;
    ThreadSlot& s = reg.slot(i);
    if (s.state.load(std::memory_order_acquire) != ThreadSlot::kLive) continue;
    const uint32_t wire_id = s.wire_id.load(std::memory_order_acquire);
    if (wire_id == 0 || s.os_tid.load(std::memory_order_acquire) == 0) continue;
    if (wire_id >= announced_.size() || !announced_[wire_id]) continue;
    if (s.pending_wall_ns.load(std::memory_order_acquire) != 0) {
      if (now - s.wall_requested_mono < config_.watchdog_ns) continue;
      // Abandon the old request; if the handler runs later it finds nothing to record.
      if (s.pending_wall_ns.exchange(0, std::memory_order_acq_rel) != 0) {
        shared_->dropped_watchdog.fetch_add(1, std::memory_order_relaxed);
      }
    }
    ++asked;
    wall_cursor_ = i + 1;
    if (reuse_idle_stack(s, wire_id, now)) continue;
    const uint64_t wall = now > s.last_wall_mono ? now - s.last_wall_mono : 1;
    s.wall_requested_mono = now;
    s.pending_wall_ns.store(wall, std::memory_order_release);
    if (platform::request_wall_sample(s, i)) {
      s.last_wall_mono = now;
    } else {
      s.pending_wall_ns.store(0, std::memory_order_release);
    }
  }
}

// A thread whose CPU clock has moved no further since its last wall capture than the return
// from that capture costs has not run since: it is still where the capture found it (a thread
// that did real work in between used more than kIdleCpuNs). Answering from the memo spares
// a blocked thread a wake-up, a signal frame and a walk every tick, which is most of what wall
// sampling costs in a process with many idle threads.
bool Sampler::reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, uint64_t now) {
  auto it = wall_memo_.find(wire_id);
  if (it == wall_memo_.end()) return false;
  uint64_t cpu = 0;
  if (!platform::thread_cpu_ns(s.os_tid.load(std::memory_order_acquire), &cpu)) return false;
  const WallMemo& m = it->second;
  if (cpu < m.thread_cpu_after || cpu - m.thread_cpu_after >= kIdleCpuNs) return false;
  const uint16_t n = static_cast<uint16_t>(m.frames.size());
  if (!outbox_.room_for_sample(WireWriter::sample_size(n))) {
    ++dropped_buffer_full_;
    return true;
  }
  const uint64_t wall = now > s.last_wall_mono ? now - s.last_wall_mono : 1;
  writer_.sample(now, wire_id, static_cast<uint8_t>(wire::kSampleWall | m.flags), 0, wall, m.frames.data(), n);
  s.last_wall_mono = now;
  ++samples_sent_;
  ++wall_reused_;
  return true;
}

void Sampler::drain_captures() {
  shared_->ring->drain([this](const Capture& c) { emit_capture(c); });
}

void Sampler::emit_capture(const Capture& c) {
  if (c.wire_id >= announced_.size() || !announced_[c.wire_id]) {
    // The thread's THREAD record was queued after this tick took the events; take them again.
    emit_thread_events();
    if (c.wire_id >= announced_.size() || !announced_[c.wire_id]) {
      shared_->dropped_other.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  if (!c.bounds_known) {
    ThreadSlot& s = shared_->registry->slot(c.slot);
    uintptr_t lo = 0, hi = 0;
    if (s.wire_id.load(std::memory_order_acquire) == c.wire_id && platform::stack_bounds_containing(c.sp, &lo, &hi)) {
      s.stack_lo.store(lo, std::memory_order_relaxed);
      s.stack_hi.store(hi, std::memory_order_release);
    }
  }
  ids_.clear();
  for (uint32_t i = 0; i < c.count; ++i) {
    if (c.elided != 0 && i == c.gap_at) ids_.push_back(elided_id_);
    // Return addresses point after the call; step back into it so the call's own function and
    // line are found (the leaf pc is exact already).
    const uintptr_t pc = i == 0 ? c.frames[i] : c.frames[i] - 1;
    ids_.push_back(symbols_.function_for_pc(pc));
  }
  // A chain that ends in a thread-start frame reached the root even though the chain's end
  // could not be read; a lone leaf says nothing either way.
  const bool complete =
      c.bounds_known && (c.complete || (ids_.size() >= 2 && symbols_.is_thread_root(ids_.back())));
  uint8_t flags = 0;
  if (c.kinds & kCaptureCpu) flags |= wire::kSampleCpu;
  if (c.kinds & kCaptureWall) flags |= wire::kSampleWall;
  if (!complete) flags |= wire::kSampleIncomplete;
  if (c.elided != 0) flags |= wire::kSampleElided;
  const uint16_t n = static_cast<uint16_t>(ids_.size());
  if (!outbox_.room_for_sample(WireWriter::sample_size(n))) {
    ++dropped_buffer_full_;
    return;
  }
  writer_.sample(c.mono, c.wire_id, flags, c.cpu_ns, c.wall_ns, ids_.data(), n);
  ++samples_sent_;
  if (c.kinds & kCaptureWall) {
    WallMemo& m = wall_memo_[c.wire_id];
    m.thread_cpu_after = c.thread_cpu_after;
    m.flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
    m.frames.assign(ids_.begin(), ids_.end());
  }
}

void Sampler::emit_suspensions() {
  if (suspensions_ == nullptr) return;
  suspension_batch_.clear();
  suspensions_->take(&suspension_batch_);
  // Pauses are few and are what a GC view is made of: kept like definitions, not dropped like
  // samples when the reader lags.
  for (const SuspensionRecord& r : suspension_batch_) writer_.suspension(r);
}

void Sampler::emit_stats(uint64_t now) {
  StatsRecord st;
  st.mono = now;
  st.samples = samples_sent_;
  st.dropped_ring_full = shared_->dropped_ring_full.load(std::memory_order_relaxed);
  st.dropped_buffer_full = dropped_buffer_full_;
  st.dropped_watchdog = shared_->dropped_watchdog.load(std::memory_order_relaxed);
  st.dropped_other = shared_->dropped_other.load(std::memory_order_relaxed);
  writer_.stats(st);
  last_stats_mono_ = now;
}

}  // namespace clrscope
