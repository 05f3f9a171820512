#include "core/sampler.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/gc_frame.h"
#include "core/injected_throw.h"
#include "core/log.h"
#include "core/module_history.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/thread_names.h"

namespace clrscope {
namespace {
// CPU a thread may use between the end of a wall capture and blocking again and still count as
// returning to the wait it was captured in: the return from the handler and the re-entry into
// the interrupted call cost a few microseconds.
constexpr uint64_t kReturnCpuNs = 20000;
// A thread whose stack bounds stay unknown after this many probes is sampled without them
// (leaf only, marked incomplete) rather than carrying its values forever.
constexpr uint32_t kMaxProbes = 3;
// How often the OS's thread list is compared with the threads the runtime reported.
constexpr uint64_t kOsScanNs = 250000000;
// Between taking a capture and naming its frames: the walk stopped before a thread's root,
// which a thread-start frame at its end may still excuse.
constexpr uint8_t kWalkUnrooted = 0x80;
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
            if (async_ != nullptr) {
              if (async_function_names_.size() <= id) async_function_names_.resize(id + 1);
              async_function_names_[id] = f.name;
            }
          },
          [this](uint32_t frame_id, uint32_t function_id, uint8_t offset_kind, uint32_t offset) {
            if (async_ != nullptr) {
              if (async_names_.size() <= frame_id) async_names_.resize(frame_id + 1);
              async_names_[frame_id] =
                  function_id < async_function_names_.size() ? async_function_names_[function_id] : std::string();
            }
            writer_.frame(frame_id, function_id, offset_kind, offset);
          }),
      resolver_(resolver),
      messages_([this](const std::string& text) { return string_id(text); }) {
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
            (config_.attached ? wire::kHelloAttached : 0u) | (async_ != nullptr ? wire::kHelloAsync : 0u);
  h.mono = platform::mono_now_ns();
  h.unix_ns = platform::unix_now_ns();
  h.interval_ns = static_cast<uint32_t>(config_.interval_ns);
  h.wall_threads_per_tick = config_.wall_threads_per_tick;
  h.runtime_version = config_.runtime_version;
  h.profiler_version = config_.profiler_version;
  writer_.hello(h);
  if (tick_hook_ != nullptr) tick_hook_->on_begin(&writer_, transport_.get());
  elided_id_ = symbols_.synthetic("[frames elided]");
  unloaded_id_ = symbols_.synthetic("[unloaded native code]");
  // Handlers walk native frames with the module table; have one before the first capture.
  refresh_modules();
  last_stats_mono_ = h.mono;
  // Threads the runtime does not report are looked for shortly after the start, once an
  // attach has had the chance to register the ones it does.
  next_os_scan_mono_ = h.mono + kOsScanNs;
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
  if (tick_hook_ != nullptr) tick_hook_->on_tick(now, transport_.get(), &writer_, &outbox_);
  if (transport_->peer_finished()) {
    finish_on_request();
    return;
  }
  if (!handler_lost_ && !platform::capture_still_installed()) {
    // The program (or a library) took the signal over; keep the stream but stop asking for
    // captures.
    handler_lost_ = true;
    handler_lost_mono_ = now;
    log_line("the program replaced clrscope's signal handler; sampling stopped");
    shared_->registry->disarm_all();
    config_.wall = false;
  }
  // Each phase's end: a tick that runs long says which phase it was (wall samples and the
  // counters block wait for it).
  uint64_t at[7];
  at[0] = platform::mono_now_ns();
  refresh_modules();
  at[1] = platform::mono_now_ns();
  if (now >= next_os_scan_mono_) scan_os_threads(now);
  emit_thread_events();
  at[2] = platform::mono_now_ns();
  if (config_.wall) request_wall_samples(now);
  at[3] = platform::mono_now_ns();
  drain_captures();
  account_unanswered_cpu(now, false);
  if (async_ != nullptr && config_.wall) emit_suspended_ops(now, kSuspendedPerTick);
  if (live_ != nullptr) emit_live_set(now, false);
  at[4] = platform::mono_now_ns();
  emit_suspensions();
  if (counters_ != nullptr) counters_->publish(now);
  if (now - last_stats_mono_ >= 1000000000ull) emit_stats(now);
  at[5] = platform::mono_now_ns();
  if (!outbox_.within_capacity() || !outbox_.flush()) go_quiet();
  at[6] = platform::mono_now_ns();
  if (at[6] - now > kSlowTickNs && at[6] - last_slow_log_mono_ > kSlowLogEveryNs) {
    last_slow_log_mono_ = at[6];
    const auto ms = [](uint64_t ns) { return static_cast<unsigned long long>(ns / 1000000); };
    log_line("a sampler tick took %llu ms: hook %llu, modules %llu, threads %llu, wall requests %llu, "
             "captures %llu, counters %llu, sending %llu",
             ms(at[6] - now), ms(at[0] - now), ms(at[1] - at[0]), ms(at[2] - at[1]), ms(at[3] - at[2]),
             ms(at[4] - at[3]), ms(at[5] - at[4]), ms(at[6] - at[5]));
  }
}

void Sampler::end_stream(uint8_t reason) {
  // Captures already taken go first, so that only what no capture brought in is charged here.
  drain_captures();
  account_unanswered_cpu(platform::mono_now_ns(), true);
  shared_->registry->disarm_all();
  const bool wall = config_.wall;
  config_.wall = false;
  emit_thread_events();
  drain_captures();
  emit_suspensions();
  shared_->active.store(false, std::memory_order_release);
  const uint64_t now = platform::mono_now_ns();
  // Every operation's suspended time up to the end, whatever the per-tick bound.
  if (async_ != nullptr && wall) emit_suspended_ops(now, AsyncTracker::kOpSlots);
  if (live_ != nullptr) emit_live_set(now, true);
  if (counters_ != nullptr) counters_->publish(now);
  emit_stats(now);
  if (tick_hook_ != nullptr) tick_hook_->on_end(now, &writer_);
  writer_.end(now, reason);
  outbox_.drain(2000);
  // The profiler's own cost, for scripts/bench: time in the handler and the sampler thread's CPU
  // (this runs on the sampler thread when the stream ends normally).
  const uint64_t captures = shared_->captures.load(std::memory_order_relaxed);
  const uint64_t handler_ns = shared_->capture_ns.load(std::memory_order_relaxed);
  log_line("stream ended: %llu samples, %llu wall samples answered from idle threads' last stacks, %llu bytes sent; "
           "%llu captures took %.1f us each in the handler (%.1f ms in all); the sampler thread used %.1f ms of CPU; "
           "%llu bytes of unwind tables copied",
           static_cast<unsigned long long>(samples_sent_), static_cast<unsigned long long>(wall_reused_),
           static_cast<unsigned long long>(outbox_.bytes_sent()), static_cast<unsigned long long>(captures),
           captures == 0 ? 0.0 : static_cast<double>(handler_ns) / 1000.0 / static_cast<double>(captures),
           static_cast<double>(handler_ns) / 1e6, static_cast<double>(platform::current_thread_cpu_ns()) / 1e6,
           static_cast<unsigned long long>(platform::unwind_copy_bytes()));
  const platform::NestedCaptures nested = platform::nested_captures();
  if (nested.count != 0) {
    log_line("%llu captures reached a thread inside another signal handler on its alternate stack; the least room "
             "left there was %llu bytes",
             static_cast<unsigned long long>(nested.count), static_cast<unsigned long long>(nested.least_room));
  }
  if (unanswered_samples_ != 0) {
    log_line("%.1f ms of CPU came without a capture (threads that blocked the signal, or were not captured), in %llu "
             "samples charged to each thread's last stack",
             static_cast<double>(unanswered_cpu_ns_) / 1e6, static_cast<unsigned long long>(unanswered_samples_));
  }
  log_line("%llu event samples sent, %llu events lost (thread unknown or event ring full)",
           static_cast<unsigned long long>(events_sent_),
           static_cast<unsigned long long>(shared_->dropped_events.load(std::memory_order_relaxed)));
  if (messages_.kept() != 0) {
    log_line("exception messages: %llu distinct kept, %llu sent as \"%s\" past the cap of %llu",
             static_cast<unsigned long long>(messages_.kept()), static_cast<unsigned long long>(messages_.overflowed()),
             MessageTable::kOverflowText, static_cast<unsigned long long>(MessageTable::kMaxMessages));
  }
  if (live_ != nullptr) {
    const LiveHeapCounts c = live_->counts();
    log_line("live heap: %llu handles made, %llu freed after their object was collected, %llu of another type; "
             "%llu samples not tracked (table of %u full), %llu refused; %llu sweeps took %.1f us each (%.1f ms in all, "
             "the longest %.1f us); %llu live sets sent",
             static_cast<unsigned long long>(c.tracked), static_cast<unsigned long long>(c.collected),
             static_cast<unsigned long long>(c.other_type), static_cast<unsigned long long>(c.dropped),
             live_->capacity(), static_cast<unsigned long long>(c.refused), static_cast<unsigned long long>(c.sweeps),
             c.sweeps == 0 ? 0.0 : static_cast<double>(c.sweep_ns) / 1000.0 / static_cast<double>(c.sweeps),
             static_cast<double>(c.sweep_ns) / 1e6, static_cast<double>(c.sweep_max_ns) / 1000.0,
             static_cast<unsigned long long>(live_sets_));
  }
}

void Sampler::finish_on_request() {
  // The reader asked for a clean end, or went away (a closed connection reads the same): an
  // attached profiler detaches after it (the quiet hook), one loaded at startup stays loaded and
  // silent.
  end_stream(config_.attached ? wire::kEndDetach : wire::kEndRequested);
  transport_->finish();
  log_line(outbox_.broken() ? "the workstation stopped reading (connection closed); sampling stopped, the program carries on"
                            : "the workstation asked the stream to end; sampling stopped, the program carries on");
  quiet_.store(true, std::memory_order_relaxed);
  platform::quiesce_capture();
  if (tick_hook_ != nullptr) tick_hook_->on_quiet();
}

void Sampler::go_quiet() {
  log_line("the workstation stopped reading (%s); sampling stopped, the program carries on",
           outbox_.broken() ? "connection closed" : "send buffer full");
  quiet_.store(true, std::memory_order_relaxed);
  shared_->active.store(false, std::memory_order_release);
  shared_->registry->disarm_all();
  platform::quiesce_capture();
  if (tick_hook_ != nullptr) tick_hook_->on_quiet();
}

std::string Sampler::display_name(const ThreadEvent& e, const std::string& os_name) const {
  if (!e.name.empty() || e.os_tid == 0) return e.name;
  // The runtime names a thread to the profiler only when managed code sets Thread.Name; its
  // own threads (and every thread named before an attach) are named to the OS alone.
  return name_from_os(os_name.empty() ? platform::os_thread_name(e.os_tid) : os_name,
                      e.os_tid == platform::process_id(), platform::os_thread_name(platform::process_id()));
}

void Sampler::emit_thread_events() {
  events_.clear();
  shared_->registry->take_events(&events_);
  for (const ThreadEvent& e : events_) {
    switch (e.kind) {
      case ThreadEvent::kStarted:
      case ThreadEvent::kRenamed: {
        const std::string os_name =
            e.kind == ThreadEvent::kStarted && e.os_tid != 0 ? platform::os_thread_name(e.os_tid) : std::string();
        writer_.thread(e.wire_id, e.os_tid, e.clr_thread_id, e.mono, display_name(e, os_name));
        if (announced_.size() <= e.wire_id) announced_.resize(e.wire_id + 1024, false);
        if (e.kind == ThreadEvent::kStarted) {
          ThreadState& t = threads_[e.wire_id];
          if (!announced_[e.wire_id]) t.last_wall_mono = e.mono;
          // A native thread the runtime took in: from now on wall-sampled like any managed one.
          t.native = e.native;
          // By the OS name the runtime gave it, not the one shown: Thread.Name cannot make a
          // program's thread a collector.
          t.gc_thread = is_gc_thread_name(os_name);
        }
        announced_[e.wire_id] = true;
        break;
      }
      case ThreadEvent::kEnded:
        if (e.final_cpu_ns != 0 && config_.cpu) emit_final_cpu(e);
        writer_.thread_end(e.wire_id, e.mono);
        threads_.erase(e.wire_id);
        break;
    }
  }
}

void Sampler::scan_os_threads(uint64_t now) {
  next_os_scan_mono_ = now + kOsScanNs;
  if (!config_.cpu || handler_lost_) return;
  if (!platform::list_os_threads(&os_threads_)) return;
  os_threads_.erase(std::remove_if(os_threads_.begin(), os_threads_.end(),
                                   [](const OsThread& t) { return is_own_thread(t.tid); }),
                    os_threads_.end());
  // At a launch every thread belongs to the recording from its birth; after an attach only
  // threads born since the previous look do.
  const bool born_since_last = os_scans_ > 0 || !config_.attached;
  shared_->registry->sync_os_threads(os_threads_, born_since_last);
  ++os_scans_;
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
    auto it = threads_.find(wire_id);
    if (it == threads_.end() || it->second.native) continue;
    ThreadState& t = it->second;
    if (s.pending_wall_ns.load(std::memory_order_acquire) != 0) {
      if (now - t.wall_requested_mono < config_.watchdog_ns) continue;
      // Abandon the old request; if the handler runs later it finds nothing to record.
      if (s.pending_wall_ns.exchange(0, std::memory_order_acq_rel) != 0) {
        shared_->dropped_watchdog.fetch_add(1, std::memory_order_relaxed);
      }
    }
    ++asked;
    wall_cursor_ = i + 1;
    if (reuse_idle_stack(s, wire_id, t, now)) continue;
    const uint64_t wall = now > t.last_wall_mono ? now - t.last_wall_mono : 1;
    t.wall_requested_mono = now;
    s.pending_wall_ns.store(wall, std::memory_order_release);
    if (platform::request_wall_sample(s, i)) {
      t.last_wall_mono = now;
    } else {
      s.pending_wall_ns.store(0, std::memory_order_release);
    }
  }
}

// A thread that has not run since its last wall capture is still where that capture found it,
// so it is answered from the capture's stack without being woken: that spares a blocked thread
// a wake-up, a signal frame and a walk every tick, which is most of what wall sampling costs in
// a process with many idle threads.
//
// "Has not run" is the scheduler's word, not a guess from CPU time: after the capture the
// thread must have left the CPU exactly once (going back to its wait, a context switch the
// capture could not count yet), be waiting now, and have used no more CPU than that return
// costs. A thread that woke and waited elsewhere, however briefly, has switched at least twice.
// Once confirmed, a thread whose CPU clock has not moved at all has not run since.
bool Sampler::reuse_idle_stack(ThreadSlot& s, uint32_t wire_id, ThreadState& t, uint64_t now) {
  if (!t.memo || !wait_state_known_) return false;
  const uint32_t tid = s.os_tid.load(std::memory_order_acquire);
  uint64_t cpu = 0;
  if (!platform::thread_cpu_ns(tid, &cpu)) return false;
  if (t.memo_checked) {
    if (cpu != t.memo_cpu) {
      t.memo = false;
      return false;
    }
  } else {
    bool waiting = false;
    uint64_t switches = 0;
    if (!platform::thread_wait_state(tid, &waiting, &switches)) {
      wait_state_known_ = false;
      log_line("the OS does not tell whether a thread is waiting; every wall sample is a fresh capture");
      return false;
    }
    if (!waiting || switches != t.memo_switches + 1 || cpu < t.memo_cpu || cpu - t.memo_cpu > kReturnCpuNs) {
      t.memo = false;
      return false;
    }
    t.memo_checked = true;
    t.memo_cpu = cpu;
  }
  const uint16_t n = static_cast<uint16_t>(t.memo_frames.size());
  if (!outbox_.room_for_sample(WireWriter::sample_size(n))) {
    ++dropped_buffer_full_;
    return true;
  }
  const uint64_t wall = (now > t.last_wall_mono ? now - t.last_wall_mono : 1) + t.carry_wall_ns;
  uint8_t flags = static_cast<uint8_t>(wire::kSampleWall | t.memo_flags);
  const uint64_t carried_cpu = t.carry_cpu_ns;
  if (carried_cpu != 0) flags |= wire::kSampleCpu;
  writer_.sample(now, wire_id, flags, carried_cpu, wall, t.memo_frames.data(), n);
  t.carry_cpu_ns = 0;
  t.carry_wall_ns = 0;
  t.last_wall_mono = now;
  ++samples_sent_;
  ++wall_reused_;
  return true;
}

bool Sampler::refresh_modules() {
  if (!platform::refresh_modules()) return false;
  // Names cached for code whose library went away (or arrived where another was) are
  // forgotten, so the code now there is named afresh.
  for (const CodeSpan& c : module_history().latest_changes()) symbols_.forget_range(c.lo, c.hi);
  return true;
}

void Sampler::drain_captures() {
  batch_.clear();
  pcs_.clear();
  shared_->ring->drain([this](const Capture& c) { take_capture(c); });
  if (shared_->event_ring != nullptr) shared_->event_ring->drain([this](const Capture& c) { take_capture(c); });
  if (shared_->alloc_ring != nullptr) shared_->alloc_ring->drain([this](const Capture& c) { take_capture(c); });
  emit_skipped_events();
  if (batch_.empty()) return;
  // Name frames against the loader's state as the tick's look found it, then look again: if a
  // library came or went while we were naming, some names may be of the newcomer; name them
  // all again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    ids_.clear();
    for (Drained& d : batch_) resolve(d);
    if (!refresh_modules()) break;
  }
  for (const Drained& d : batch_) {
    if (d.kinds & kCaptureEvent) {
      emit_event(d);  // taken once, on the thread, at the event: nothing to take again
    } else if (d.retake) {
      retake(d);
    } else {
      emit(d);
    }
  }
}

// A walk that broke in native code the handler's module table did not have yet (a library
// loaded since the last tick, walked by frame pointers it does not keep) would be an incomplete
// stack; the table has it now, so the thread is asked again, with this capture's values carried
// to the answer, as a probe's are. Twice at most in a row: a thread that keeps entering fresh
// code gets its incomplete stack.
void Sampler::retake(const Drained& d) {
  auto it = threads_.find(d.wire_id);
  if (it == threads_.end()) return;
  ThreadState& t = it->second;
  ++t.retries;
  t.carry_cpu_ns += d.cpu_ns;
  t.carry_wall_ns += d.wall_ns;
  if (!config_.wall || t.native) return;  // the carried values ride on the next CPU sample
  ThreadSlot& s = shared_->registry->slot(d.slot);
  if (s.wire_id.load(std::memory_order_acquire) != d.wire_id) return;
  const uint64_t now = platform::mono_now_ns();
  uint64_t expected = 0;
  // A request may already be out; then it answers, carrying these values too.
  if (!s.pending_wall_ns.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
  t.wall_requested_mono = now;
  if (!platform::request_wall_sample(s, d.slot)) s.pending_wall_ns.store(0, std::memory_order_release);
}

void Sampler::take_capture(const Capture& c) {
  if (c.wire_id >= announced_.size() || !announced_[c.wire_id]) {
    // The thread's THREAD record was queued after this tick took the events; take them again.
    emit_thread_events();
    if (c.wire_id >= announced_.size() || !announced_[c.wire_id]) {
      shared_->dropped_other.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  ThreadState& t = threads_[c.wire_id];
  const bool event = (c.kinds & kCaptureEvent) != 0;
  if (!event && !c.bounds_known && t.probes < kMaxProbes) {
    // A probe: learn the stack from its pointer and carry its values to the next sample.
    ++t.probes;
    uintptr_t lo = 0, hi = 0;
    if (platform::stack_bounds_containing(c.sp, &lo, &hi)) shared_->registry->learn_bounds(c.slot, c.wire_id, lo, hi, c.self);
    t.carry_cpu_ns += c.cpu_ns;
    t.carry_wall_ns += c.wall_ns;
    return;
  }
  Drained d;
  d.mono = c.mono;
  d.event_kind = c.event_kind;
  d.event_has_value2 = c.event_has_value2;
  d.event_type = c.event_type;
  d.event_value1 = c.event_value1;
  d.event_value2 = c.event_value2;
  d.event_live = event ? c.event_live : 0;
  // The cell's text storage is free again once this returns: the message is named now, here on
  // the sampler thread rather than in the throwing thread's callback.
  d.event_message = event && c.event_text != nullptr ? messages_.intern(c.event_text, c.event_text_len, c.event_text_full) : 0;
  d.async_box = event ? 0 : c.async_box;
  d.collecting = !event && c.collecting;
  // An event carries no time of the thread's: its values stay for the thread's next sample.
  d.cpu_ns = event ? 0 : c.cpu_ns + t.carry_cpu_ns;
  d.wall_ns = event ? 0 : c.wall_ns != 0 ? c.wall_ns + t.carry_wall_ns : 0;
  d.cpu_after = c.thread_cpu_after;
  d.switches = c.switches;
  d.wire_id = c.wire_id;
  d.slot = c.slot;
  d.retake = false;
  d.generation = c.module_generation;
  d.kinds = c.kinds;
  if (d.cpu_ns != 0) d.kinds |= kCaptureCpu;
  if (!event) t.carry_cpu_ns = 0;
  if (d.wall_ns != 0) t.carry_wall_ns = 0;
  d.walk_flags = 0;
  if (!c.bounds_known) d.walk_flags |= wire::kSampleIncomplete;
  if (c.elided != 0) d.walk_flags |= wire::kSampleElided;
  if (c.bounds_known && !c.complete) d.walk_flags |= kWalkUnrooted;
  d.flags = 0;
  d.pc_first = pcs_.size();
  d.first = 0;
  d.count = 0;
  d.pc_count = c.count;
  d.osr_pairs = c.osr_pairs <= kMaxOsrPairs ? c.osr_pairs : 0;
  for (uint32_t i = 0; i < d.osr_pairs; ++i) d.osr_at[i] = c.osr_at[i];
  for (uint32_t i = 0; i < c.count; ++i) {
    // Return addresses point after the call; step back into it so the call's own function and
    // line are found (the leaf pc is exact already). The elision marker travels as pc 0.
    if (c.elided != 0 && i == c.gap_at) {
      pcs_.push_back(0);
      ++d.pc_count;
    }
    // An event's leaf is a return address too: its own frames were dropped from the walk.
    pcs_.push_back(i == 0 && !event ? c.frames[i] : c.frames[i] - 1);
  }
  batch_.push_back(d);
}

void Sampler::resolve(Drained& d) {
  d.retake = false;
  const size_t begin = ids_.size();
  uint8_t flags = d.walk_flags;
  const ModuleHistory& history = module_history();
  uint32_t osr = 0;
  for (size_t i = 0; i < d.pc_count; ++i) {
    const uintptr_t pc = pcs_[d.pc_first + i];
    if (pc == 0) {
      ids_.push_back(elided_id_);
      continue;
    }
    if (osr < d.osr_pairs && d.osr_at[osr] == i && i > 0 && i + 1 < d.pc_count) {
      // An on-stack-replaced frame (frame_walker.h): the patchpoint's address lies in the same
      // method as the frame below it. Then the method is one call, and the caller is the
      // original record's return address; otherwise the pair was a look-alike, and the frame
      // chain's own return address is the caller.
      ++osr;
      const uint32_t patchpoint = symbols_.frame_for_pc(pc);
      if (symbols_.function_of(patchpoint) == symbols_.function_of(ids_.back())) continue;
      ids_.push_back(patchpoint);
      ++i;
      continue;
    }
    const CodeSpan* owner = nullptr;
    const ModuleHistory::Owner o = history.owner_at(pc, d.mono, &owner);
    const CodeSpan* walked_with = history.in_generation(pc, d.generation);
    if (o == ModuleHistory::Owner::kLoaded || (o == ModuleHistory::Owner::kNone && walked_with == nullptr)) {
      ids_.push_back(symbols_.frame_for_pc(pc));
    } else if (o == ModuleHistory::Owner::kGone) {
      // Certainly that library's, which is gone with its symbols: named by the library alone.
      ids_.push_back(symbols_.native_module(owner->name, owner->lo));
    } else {
      ids_.push_back(unloaded_id_);
    }
    // The handler unwound this frame with the table of its time; if that table had another
    // library (or none that is certain) here, the frames beyond it cannot be trusted. Nor can
    // they when the table had nothing here but a library was loaded (it may be gone by now):
    // the handler walked that library's code by frame pointers, which skip the caller of code
    // that keeps none.
    const bool unwound_right =
        walked_with == nullptr ? o == ModuleHistory::Owner::kNone || o == ModuleHistory::Owner::kUnknown
                               : owner == walked_with;
    if (o == ModuleHistory::Owner::kUnknown || !unwound_right) {
      flags |= wire::kSampleIncomplete;
      flags &= static_cast<uint8_t>(~kWalkUnrooted);
      break;
    }
  }
  const size_t kept = ids_.size() - begin;
  // Incomplete, and a frame the walk passed lies in library code its table did not know: the
  // walk could not unwind it. Worth asking again now that the table knows it.
  if ((flags & (wire::kSampleIncomplete | kWalkUnrooted)) && d.walk_flags != wire::kSampleIncomplete) {
    auto it = threads_.find(d.wire_id);
    const bool may_retake = it != threads_.end() && it->second.retries < 2;
    for (size_t i = 0; may_retake && i < d.pc_count && !d.retake; ++i) {
      const uintptr_t pc = pcs_[d.pc_first + i];
      const CodeSpan* known = nullptr;
      d.retake = pc != 0 && history.in_generation(pc, d.generation) == nullptr &&
                 history.owner_at(pc, d.mono, &known) == ModuleHistory::Owner::kLoaded;
    }
  }
  // A chain that ends in a thread-start frame reached the root even though the chain's end
  // could not be read; a lone leaf says nothing either way.
  if (flags & kWalkUnrooted) {
    flags &= static_cast<uint8_t>(~kWalkUnrooted);
    if (!(kept >= 2 && symbols_.is_thread_root(ids_.back()))) flags |= wire::kSampleIncomplete;
  }
  d.first = begin;
  d.count = kept;
  d.flags = flags;
  if (!(d.kinds & kCaptureEvent)) add_gc_frame(d);
}

void Sampler::add_gc_frame(Drained& d) {
  auto it = threads_.find(d.wire_id);
  const bool gc_thread = it != threads_.end() && it->second.gc_thread;
  const size_t at = gc_frame_at(ids_.data() + d.first, d.count, gc_thread, d.collecting,
                                [this](uint32_t frame) { return symbols_.is_managed(frame); });
  if (at == kNoGcFrame) return;
  if (gc_id_ == 0) gc_id_ = symbols_.synthetic("[GC]");
  ids_.insert(ids_.begin() + static_cast<ptrdiff_t>(d.first + at), gc_id_);
  ++d.count;
}

void Sampler::emit(const Drained& d) {
  uint8_t flags = d.flags;
  if (d.kinds & kCaptureCpu) flags |= wire::kSampleCpu;
  if (d.kinds & kCaptureWall) flags |= wire::kSampleWall;
  const uint16_t n = static_cast<uint16_t>(d.count);
  if (!outbox_.room_for_sample(WireWriter::sample_size(n))) {
    ++dropped_buffer_full_;
    return;
  }
  const uint32_t task = async_ != nullptr ? d.async_box : 0;
  if (task != 0) define_task_chain(task);
  writer_.sample(d.mono, d.wire_id, flags, (flags & wire::kSampleCpu) ? d.cpu_ns : 0,
                 (flags & wire::kSampleWall) ? d.wall_ns : 0, ids_.data() + d.first, n, task);
  ++samples_sent_;
  if (async_log_ && task != 0) log_async_sample(d);
  auto it = threads_.find(d.wire_id);
  if (it == threads_.end()) return;
  ThreadState& t = it->second;
  t.retries = 0;
  t.last_flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
  t.last_frames.assign(ids_.begin() + static_cast<ptrdiff_t>(d.first),
                       ids_.begin() + static_cast<ptrdiff_t>(d.first + d.count));
  if (d.kinds & kCaptureWall) {
    // A lone leaf (a stack that could not be read) is not worth repeating.
    t.memo = d.count > 1;
    t.memo_checked = false;
    t.memo_cpu = d.cpu_after;
    t.memo_switches = d.switches;
    t.memo_flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
    t.memo_frames.assign(ids_.begin() + static_cast<ptrdiff_t>(d.first),
                         ids_.begin() + static_cast<ptrdiff_t>(d.first + d.count));
  } else {
    t.memo = false;  // it ran
  }
}

uint32_t Sampler::type_label(uint64_t type_id) {
  auto known = type_labels_.find(type_id);
  if (known != type_labels_.end()) return known->second;
  std::string name = type_id == 0 ? std::string() : resolver_->type_name(type_id);
  if (name.empty()) name = "?";
  const uint32_t id = string_id(name);
  type_labels_.emplace(type_id, id);
  return id;
}

uint32_t Sampler::string_id(const std::string& text) {
  auto same = label_ids_.find(text);
  if (same != label_ids_.end()) return same->second;
  const uint32_t id = static_cast<uint32_t>(label_ids_.size() + 1);
  label_ids_.emplace(text, id);
  writer_.string(id, text);
  return id;
}

void Sampler::emit_event(const Drained& d) {
  // The stack starts where the program was: at its innermost managed frame below the runtime's
  // allocation, lock or throw helpers (all of it when no managed frame is there at all).
  size_t lead = 0;
  const bool exception = d.event_kind == wire::kEventException;
  while (lead < d.count && symbols_.leads_event(ids_[d.first + lead], exception)) ++lead;
  if (lead == d.count) lead = 0;
  const uint16_t n = static_cast<uint16_t>(d.count - lead);
  const uint32_t* frames = ids_.data() + d.first + lead;
  EventRecord e;
  e.kind = d.event_kind;
  e.mono = d.mono;
  e.thread_id = d.wire_id;
  e.stack_flags = d.flags & (wire::kSampleIncomplete | wire::kSampleElided);
  e.label_id = d.event_type != 0 ? type_label(d.event_type) : 0;
  e.value1 = d.event_value1;
  e.value2 = d.event_value2;
  e.has_value2 = d.event_has_value2;
  e.message_id = d.event_message;
  // The object may outlive a full send buffer: its place in the live set is kept either way.
  if (d.event_live != 0 && live_ != nullptr) keep_live(d, e, frames, n);
  // 16 for the event's own fields, 10 for its place in an EVENT_MESSAGES record.
  if (!outbox_.room_for_sample(WireWriter::sample_size(n) + 16 + (e.message_id != 0 ? 10 : 0))) {
    ++dropped_buffer_full_;
    return;
  }
  writer_.event(e, frames, n, n > 0);
  ++events_sent_;
}

void Sampler::attach_live_heap(LiveHeap* live) {
  live_ = live;
  live_entries_.assign(live != nullptr ? live->capacity() : 0, LiveEntry{});
}

void Sampler::keep_live(const Drained& d, const EventRecord& e, const uint32_t* frames, uint16_t count) {
  const uint32_t slot = LiveHeap::slot_of(d.event_live);
  if (slot >= live_entries_.size()) return;
  LiveEntry& entry = live_entries_[slot];
  // Captures may be drained out of order: an older object of this slot never replaces a newer.
  if (entry.token != 0 && (entry.token >> 16) > (d.event_live >> 16)) return;
  entry.token = d.event_live;
  entry.thread_id = e.thread_id;
  entry.label_id = e.label_id;
  entry.stack_flags = e.stack_flags;
  entry.bytes = e.value1;
  entry.objects = e.value2;
  entry.frames.assign(frames, frames + count);
}

// The sampled objects alive after the latest GC, grouped by (thread, type, stack), at most once a
// second and once more at the end: a kEventLiveSnapshot (value1 the objects in it, value2 the
// samples never tracked because the table was full or the runtime gave no handle) and then one
// kEventLive per group, all at the time of that GC.
void Sampler::emit_live_set(uint64_t now, bool last) {
  const LiveHeapCounts c = live_->counts();
  if (c.sweeps == live_sent_sweeps_) return;
  if (!last && now - live_sent_mono_ < 1000000000ull) return;
  struct Group {
    const LiveEntry* entry;
    uint64_t bytes, objects;
  };
  std::unordered_map<std::string, Group> groups;
  std::vector<const Group*> order;
  std::string key;
  uint64_t objects = 0;
  size_t bytes_needed = 16;
  for (const LiveEntry& entry : live_entries_) {
    if (entry.token == 0 || !live_->survivor(entry.token)) continue;
    ++objects;
    key.assign(reinterpret_cast<const char*>(&entry.thread_id), sizeof entry.thread_id);
    key.append(reinterpret_cast<const char*>(&entry.label_id), sizeof entry.label_id);
    key.push_back(static_cast<char>(entry.stack_flags));
    key.append(reinterpret_cast<const char*>(entry.frames.data()), entry.frames.size() * sizeof(uint32_t));
    auto it = groups.find(key);
    if (it == groups.end()) {
      it = groups.emplace(key, Group{&entry, 0, 0}).first;
      order.push_back(&it->second);
      bytes_needed += WireWriter::sample_size(static_cast<uint16_t>(entry.frames.size())) + 16;
    }
    it->second.bytes += entry.bytes;
    it->second.objects += entry.objects;
  }
  // A set is sent whole or not at all: half of one would read as a heap that shrank.
  if (!outbox_.room_for_sample(bytes_needed)) {
    ++dropped_buffer_full_;
    return;
  }
  live_sent_sweeps_ = c.sweeps;
  live_sent_mono_ = now;
  EventRecord marker;
  marker.kind = wire::kEventLiveSnapshot;
  marker.mono = c.last_sweep_mono;
  marker.value1 = objects;
  marker.value2 = c.dropped + c.refused;
  marker.has_value2 = true;
  writer_.event(marker, nullptr, 0, false);
  for (const Group* g : order) {
    EventRecord e;
    e.kind = wire::kEventLive;
    e.mono = c.last_sweep_mono;
    e.thread_id = g->entry->thread_id;
    e.stack_flags = g->entry->stack_flags;
    e.label_id = g->entry->label_id;
    e.value1 = g->bytes;
    e.value2 = g->objects;
    e.has_value2 = true;
    const uint16_t n = static_cast<uint16_t>(g->entry->frames.size());
    writer_.event(e, g->entry->frames.data(), n, n > 0);
  }
  ++live_sets_;
}

// Exceptions over their stack budget, one event per type per tick, on no thread and with no
// stack: the counts stay exact while the stacks are a sample.
void Sampler::emit_skipped_events() {
  if (skipped_exceptions_ == nullptr) return;
  const uint64_t now = platform::mono_now_ns();
  skipped_exceptions_->take([&](uint64_t type_id, uint64_t count) {
    EventRecord e;
    e.kind = wire::kEventException;
    e.mono = now;
    e.thread_id = 0;
    e.label_id = type_label(type_id);
    e.value1 = count;
    writer_.event(e, nullptr, 0, false);
    ++events_sent_;
  });
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
  st.signal_lost_mono = handler_lost_mono_;
  writer_.stats(st);
  last_stats_mono_ = now;
}

}  // namespace clrscope
