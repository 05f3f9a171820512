#include "core/request_tracker.h"

#include <limits>
#include <utility>

namespace clrscope {
namespace {
constexpr uint64_t kOpen = std::numeric_limits<uint64_t>::max();
}  // namespace

void RequestTracker::on_request_event(const RequestEvent& e, uint64_t mono, uint32_t tid, uintptr_t root) {
  const uint64_t key = span_key(e.span_id);
  if (key == 0) return;
  if (e.start) {
    HeldRequest r;
    r.start_mono = mono;
    r.start_tid = tid;
    r.method = e.method;
    r.endpoint = e.path;  // until the stop's route values make it a pattern
    r.trace_id = e.trace_id;
    r.span_id = e.span_id;
    std::lock_guard<std::mutex> lock(mu_);
    // Begun after its window (the session is draining), or between windows.
    if (listening_ == Listening::kClosed || listening_ == Listening::kOff) return;
    ++window_.begun;
    ++begun_total_;
    if (open_.size() >= kMaxInFlight) {
      ++untracked_;
      ++window_.cut;
      return;
    }
    r.seq = next_seq_++;
    if (next_seq_ == 0) next_seq_ = 1;
    if (root != 0 && window_count_ < kMaxWindows) {
      r.root = root;
      windows_[root].push_back(Window{r.seq, mono, kOpen});
      ++window_count_;
      ++rooted_;
    } else {
      unrooted_open_.fetch_add(1, std::memory_order_relaxed);
    }
    open_[key] = std::move(r);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_.find(key);
  if (it == open_.end()) return;  // begun before the session, or not tracked
  HeldRequest r = std::move(it->second);
  open_.erase(it);
  r.end_mono = mono;
  r.end_tid = tid;
  r.status = e.status;
  r.endpoint = route_pattern(r.endpoint, e.route_values);
  if (r.root != 0) {
    end_window(r.root, r.seq, mono);
  } else {
    unrooted_open_.fetch_sub(1, std::memory_order_relaxed);
    if (root != 0) backfill(&r, root, mono);
  }
  if (ended_.size() >= kMaxHeld) {
    ended_.erase(ended_.begin(), ended_.begin() + kMaxHeld / 2);
    dropped_ += kMaxHeld / 2;
  }
  ended_.push_back(std::move(r));
}

void RequestTracker::end_window(uintptr_t root, uint32_t seq, uint64_t end) {
  auto it = windows_.find(root);
  if (it == windows_.end()) return;
  for (auto w = it->second.rbegin(); w != it->second.rend(); ++w) {
    if (w->seq == seq) {
      w->end = end;
      return;
    }
  }
}

void RequestTracker::backfill(HeldRequest* r, uintptr_t root, uint64_t end) {
  auto it = remembered_.find(root);
  if (it != remembered_.end()) {
    for (const Remembered& m : it->second) {
      if (m.mono >= r->start_mono && m.mono < end) r->backfill.push_back(m.ordinal);
    }
    // The rest were taken before it began: no request of this root's can own them any more.
    remembered_count_ -= it->second.size();
    remembered_.erase(it);
  }
  backfilled_samples_ += r->backfill.size();
  ++backfilled_;
  // Captures taken in it and not drained yet are marked as they come.
  if (window_count_ < kMaxWindows) {
    r->root = root;
    windows_[root].push_back(Window{r->seq, r->start_mono, end});
    ++window_count_;
  }
}

void RequestTracker::remember(uintptr_t root, uint64_t mono, uint64_t ordinal) {
  if (!unrooted_open()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (remembered_count_ >= kMaxRemembered || mono > remembered_swept_ + kRememberNs / 30) {
    // Once a second or so: let go of what is too old for any open request to still claim.
    remembered_swept_ = mono;
    const uint64_t keep_from = mono > kRememberNs ? mono - kRememberNs : 0;
    for (auto r = remembered_.begin(); r != remembered_.end();) {
      auto& list = r->second;
      size_t kept = 0;
      for (const Remembered& m : list) {
        if (m.mono >= keep_from) list[kept++] = m;
      }
      remembered_count_ -= list.size() - kept;
      list.resize(kept);
      r = list.empty() ? remembered_.erase(r) : std::next(r);
    }
    if (remembered_count_ >= kMaxRemembered) {
      remembered_.clear();
      remembered_count_ = 0;
    }
  }
  remembered_[root].push_back(Remembered{mono, ordinal});
  ++remembered_count_;
}

uint32_t RequestTracker::request_at(uintptr_t root, uint64_t mono) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mono > latest_match_) latest_match_ = mono;
  auto it = windows_.find(root);
  if (it == windows_.end()) return 0;
  // One connection serves one request at a time: the latest window begun by then is the one.
  for (auto w = it->second.rbegin(); w != it->second.rend(); ++w) {
    if (w->start > mono) continue;
    if (mono >= w->end) return 0;
    ++matched_;
    return w->seq;
  }
  return 0;
}

void RequestTracker::prune_windows(uint64_t before) {
  for (auto it = windows_.begin(); it != windows_.end();) {
    auto& list = it->second;
    size_t kept = 0;
    for (const Window& w : list) {
      if (w.end != kOpen && w.end < before) continue;
      list[kept++] = w;
    }
    window_count_ -= list.size() - kept;
    list.resize(kept);
    it = list.empty() ? windows_.erase(it) : std::next(it);
  }
}

void RequestTracker::take(std::vector<HeldRequest>* out, bool in_flight) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : ended_) out->push_back(std::move(r));
  ended_.clear();
  if (in_flight) {
    for (auto& [key, r] : open_) out->push_back(r);
  }
  // Ended windows no capture still on its way can fall in; all ended ones when the bound is near.
  const uint64_t keep_from = latest_match_ > kKeepEndedNs ? latest_match_ - kKeepEndedNs : 0;
  prune_windows(window_count_ >= kMaxWindows / 2 ? latest_match_ : keep_from);
}

void RequestTracker::listen_from(uint64_t mono, uint32_t max_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  listening_ = Listening::kOpen;
  window_ = ListenWindow{};
  window_.start = mono;
  window_.max_per_s = max_per_s;
}

void RequestTracker::stop_listening(uint64_t mono) {
  std::lock_guard<std::mutex> lock(mu_);
  if (listening_ != Listening::kOpen) return;
  listening_ = Listening::kClosed;
  window_.end = mono;
}

void RequestTracker::cut_open(uint64_t mono) {
  std::lock_guard<std::mutex> lock(mu_);
  if (listening_ != Listening::kClosed) return;
  for (auto& [key, r] : open_) {
    if (r.root != 0) end_window(r.root, r.seq, mono);
  }
  window_.cut += static_cast<uint32_t>(open_.size());
  open_.clear();
  unrooted_open_.store(0, std::memory_order_relaxed);
  remembered_.clear();
  remembered_count_ = 0;
  windows_done_.push_back(window_);
  window_ = ListenWindow{};
  listening_ = Listening::kOff;
}

size_t RequestTracker::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_.size();
}

uint64_t RequestTracker::begun_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return begun_total_;
}

void RequestTracker::take_windows(std::vector<ListenWindow>* out, bool last, uint64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const ListenWindow& w : windows_done_) out->push_back(w);
  windows_done_.clear();
  if (!last || listening_ == Listening::kUntold || listening_ == Listening::kOff) return;
  // The stream ends: the window open now (or closed and draining, whose open requests are sent in
  // flight) ends with it.
  ListenWindow w = window_;
  if (listening_ == Listening::kOpen) w.end = now;
  out->push_back(w);
}

uint64_t RequestTracker::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

uint64_t RequestTracker::untracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return untracked_;
}

uint64_t RequestTracker::rooted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rooted_;
}

uint64_t RequestTracker::backfilled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return backfilled_;
}

uint64_t RequestTracker::backfilled_samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  return backfilled_samples_;
}

uint64_t RequestTracker::matched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return matched_;
}

}  // namespace clrscope
