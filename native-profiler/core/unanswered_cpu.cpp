// CPU that no capture brought in. A thread's CPU samples come from a timer on its CPU clock that
// sends the capture signal; a thread that blocks that signal (a native library's worker that
// masks every signal, a thread that runs its whole life so) takes none, and its CPU would be
// missing from the recording without a word. The sampler compares each thread's CPU clock with
// the mark its last capture left (ThreadSlot::last_cpu_ns); CPU well past what the timer should
// have brought in by now goes out as a CPU sample of its own, its stack the thread's last known
// one under a frame that says why ("[CPU without a stack: signal blocked]", or "not captured"
// when the signal was open: a capture lost on its way). The mark moves forward only (the
// handler's side is a compare-and-swap too), so a capture that arrives late counts only the CPU
// after the sampler's share, and nothing is counted twice.
#include "core/unanswered_cpu.h"

#include <algorithm>

#include "core/log.h"
#include "core/platform.h"
#include "core/sample_stream.h"
#include "core/sampler_config.h"
#include "core/sampling_shared.h"
#include "core/thread_book.h"

namespace clrscope {
namespace {
// How often the threads' clocks are read, and at most how many per tick (the cursor goes on
// from there), so that thousands of threads cost a bounded slice of a tick.
constexpr uint64_t kCheckEveryNs = 100000000;
constexpr uint32_t kThreadsPerCheck = 512;
// CPU past the mark beyond this has not been brought in by the timer: four of its intervals
// (the kernel fires CPU timers on scheduler ticks, and a signal may wait while a handler runs)
// and 50 ms more, so a thread that blocks signals briefly is left to its late capture.
constexpr uint64_t kGraceNs = 50000000;
constexpr const char* kBlockedName = "[CPU without a stack: signal blocked]";
constexpr const char* kUncapturedName = "[CPU without a stack: not captured]";
}  // namespace

void UnansweredCpu::account(uint64_t now, bool all) {
  if (!config_.cpu || stream_->signal_lost) return;
  ThreadRegistry& reg = *shared_->registry;
  // Threads already found not answering: every tick, at one interval of CPU. One that answers
  // again (a capture moved its mark) leaves the list.
  for (size_t k = 0; k < listed_.size();) {
    const auto [index, wire_id] = listed_[k];
    ThreadSlot& s = reg.slot(index);
    SampledThread* t = book_->find(wire_id);
    const bool same = s.state.load(std::memory_order_acquire) == ThreadSlot::kLive &&
                      s.wire_id.load(std::memory_order_acquire) == wire_id && t != nullptr;
    if (!same || s.last_cpu_ns.load(std::memory_order_acquire) != t->unanswered_mark) {
      if (t != nullptr) t->unanswered_mark = 0;
      listed_[k] = listed_.back();
      listed_.pop_back();
      continue;
    }
    charge(index, wire_id, now, config_.interval_ns, true);
    ++k;
  }
  if (!all && now < next_check_mono_) return;
  next_check_mono_ = now + kCheckEveryNs;
  const uint32_t limit = reg.slot_limit();
  if (limit == 0) return;
  const uint64_t threshold = all ? config_.interval_ns : 4 * config_.interval_ns + kGraceNs;
  uint32_t visited = 0;
  const uint32_t start = cursor_;
  for (uint32_t k = 0; k < limit && (all || visited < kThreadsPerCheck); ++k) {
    const uint32_t i = (start + k) % limit;
    ThreadSlot& s = reg.slot(i);
    if (s.state.load(std::memory_order_acquire) != ThreadSlot::kLive) continue;
    const uint32_t wire_id = s.wire_id.load(std::memory_order_acquire);
    if (wire_id == 0) continue;
    ++visited;
    cursor_ = i + 1;
    const SampledThread* t = book_->find(wire_id);
    if (t != nullptr && t->unanswered_mark != 0) continue;  // on the list
    charge(i, wire_id, now, threshold, false);
  }
}

void UnansweredCpu::charge(uint32_t index, uint32_t wire_id, uint64_t now, uint64_t threshold, bool listed) {
  ThreadSlot& s = shared_->registry->slot(index);
  if (s.cpu_timed.load(std::memory_order_acquire) == 0) return;
  const uint32_t tid = s.os_tid.load(std::memory_order_acquire);
  if (tid == 0 || !book_->announced(wire_id)) return;
  SampledThread* known = book_->find(wire_id);
  if (known == nullptr) return;
  uint64_t cpu = 0;
  if (!platform::thread_cpu_ns(tid, &cpu)) return;
  uint64_t mark = s.last_cpu_ns.load(std::memory_order_acquire);
  // A thread in a dear walk's pause (core/walk_pacing.h) answers after it: its CPU counts from there.
  const uint64_t from = std::max(mark, s.walk_after_cpu_ns.load(std::memory_order_relaxed));
  if (!listed) {
    // A mark that moved since the last look was moved by a capture: the timer works (a thread
    // whose CPU counts from its birth starts far behind its clock and catches up at its first
    // capture). Only a mark that held still while the clock ran on is a thread not answering.
    SampledThread& t = *known;
    const bool still = mark == t.looked_mark && cpu >= t.looked_cpu && cpu - t.looked_cpu >= threshold;
    t.looked_mark = mark;
    t.looked_cpu = cpu;
    // Far behind its clock now: either its first capture is still to come, or the signal cannot
    // reach it. A thread that blocks the signal need not wait for a second look (a short-lived
    // one would end first).
    if (!still && (cpu <= from || cpu - from < threshold || !platform::capture_signal_blocked(tid))) return;
  }
  if (cpu <= from || cpu - from < threshold) return;
  // A capture that lands now moves the mark itself; then it brought this CPU in.
  if (!s.last_cpu_ns.compare_exchange_strong(mark, cpu, std::memory_order_acq_rel)) return;
  // The slot may have been given to another thread since it was read: its clock is not this one's.
  if (s.wire_id.load(std::memory_order_acquire) != wire_id) return;
  SampledThread& t = *known;
  t.looked_mark = cpu;
  if (t.unanswered_mark == 0) {
    // Why is read once, when the thread goes on the list (a file read, too dear for every tick).
    t.unanswered_blocked = platform::capture_signal_blocked(tid);
    listed_.emplace_back(index, wire_id);
  }
  t.unanswered_mark = cpu;
  emit(wire_id, now, cpu - mark, t.unanswered_blocked);
}

void UnansweredCpu::emit(uint32_t wire_id, uint64_t now, uint64_t cpu_ns, bool blocked) {
  uint32_t& frame = blocked ? blocked_frame_ : uncaptured_frame_;
  if (frame == 0) frame = stream_->symbols.synthetic(blocked ? kBlockedName : kUncapturedName);
  stack_.clear();
  stack_.push_back(frame);
  uint8_t flags = wire::kSampleCpu;
  const SampledThread* t = book_->find(wire_id);
  if (t != nullptr && !t->last_frames.empty()) {
    const std::vector<uint32_t>& last = t->last_frames;
    const size_t keep = std::min(last.size(), static_cast<size_t>(kMaxFrames) - 1);
    // A stack at the frame limit keeps its outermost frames: they say where the thread runs.
    stack_.insert(stack_.end(), last.end() - static_cast<ptrdiff_t>(keep), last.end());
    flags |= t->last_flags;
  } else if (t != nullptr && t->gc_thread) {
    // A collector thread's CPU is the collection's, captured or not (its captured stacks have the
    // frame at the root too: core/gc_frame.h).
    if (gc_frame_ == 0) gc_frame_ = stream_->symbols.synthetic("[GC]");
    stack_.push_back(gc_frame_);
  }
  const uint16_t n = static_cast<uint16_t>(stack_.size());
  if (!stream_->room_for(WireWriter::sample_size(n))) return;
  stream_->writer.sample(now, wire_id, flags, cpu_ns, 0, stack_.data(), n);
  ++stream_->samples_sent;
  ++samples_;
  cpu_ns_ += cpu_ns;
}

void UnansweredCpu::emit_final_cpu(const ThreadEvent& e) {
  SampledThread* known = book_->find(e.wire_id);
  if (known == nullptr || !book_->announced(e.wire_id)) return;
  SampledThread& t = *known;
  if (t.unanswered_mark != 0) {
    // It ended still not answering: the same frame as the rest of its CPU.
    emit(e.wire_id, e.mono, e.final_cpu_ns, t.unanswered_blocked);
    return;
  }
  // Its last partial interval: where its last capture found it is the best word there is.
  if (t.last_frames.empty()) return;
  const uint16_t n = static_cast<uint16_t>(t.last_frames.size());
  if (!stream_->room_for(WireWriter::sample_size(n))) return;
  stream_->writer.sample(e.mono, e.wire_id, static_cast<uint8_t>(wire::kSampleCpu | t.last_flags), e.final_cpu_ns, 0,
                         t.last_frames.data(), n);
  ++stream_->samples_sent;
}

void UnansweredCpu::log_totals() const {
  if (samples_ == 0) return;
  log_line("%.1f ms of CPU came without a capture (threads that blocked the signal, or were not captured), in %llu "
           "samples charged to each thread's last stack",
           static_cast<double>(cpu_ns_) / 1e6, static_cast<unsigned long long>(samples_));
}

}  // namespace clrscope
