#pragma once
// HTTP requests (core/request_payloads.h) as their start and stop events arrive on the threads
// serving them, paired by the Activity's span id and held for the sampler thread to send as
// REQUEST records. Bounded: at most kMaxInFlight requests open (more are counted, not tracked) and
// kMaxHeld ended ones unsent (the oldest half goes, counted), so a stream that stopped being read,
// or stop events that never come, cannot make it grow.
//
// Which request a sample was taken in, on any thread, through its awaits: with async stacks on, a
// request's start event comes inside the MoveNext of the box that serves the connection's
// requests one after another (Kestrel's ProcessRequests), whose chain ends at one root box per
// connection (per HTTP/2 stream). The tracker keeps each request's time window under that root
// (its task id with TPL events, its address read from the heap); a sample whose own chain ends at
// the same root, taken inside the window, is the request's. Addresses change only when a GC
// compacts: a request whose root moved keeps the samples taken before the move, and its later
// ones fall to the reader's rule by thread (structs/analysis/requests.ts). Long-lived
// connections' boxes settle in gen2 after a few GCs.
//
// A connection's first request, and every HTTP/2 stream's, begins before anything of its chain
// has awaited: no box exists yet, so its start has no root. Its stop does (the box was made at its
// first await). So while such requests are open the sampler remembers the samples it sent unmarked
// whose chain ended at some root; when one of them ends under a root, the samples remembered under
// that root within its time are its own, sent as REQUEST_BACKFILL, and the captures still on their
// way match a window opened for it then.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/request_payloads.h"

namespace clrscope {

struct HeldRequest {
  uint32_t seq = 0;  // from 1, in order of start (REQUEST_SAMPLES name it)
  uintptr_t root = 0;  // its chain's root box at the start (0: none known)
  uint64_t start_mono = 0;
  uint64_t end_mono = 0;  // 0: still in flight when sent (the stream's end)
  uint32_t start_tid = 0;
  uint32_t end_tid = 0;
  uint32_t status = 0;
  std::string method, endpoint, trace_id, span_id;
  // Begun without a root, ended under one: the stream ordinals (WireWriter::samples_written after
  // each) of the samples sent before then that it owns, ascending.
  std::vector<uint64_t> backfill;
};

// A span of time the bridge listened: every request begun in [start, end) was tracked; `cut` of
// the `begun` ones lost their end when it stopped listening (or found the in-flight bound full).
struct ListenWindow {
  uint64_t start = 0, end = 0;
  uint32_t begun = 0, cut = 0;
  uint32_t max_per_s = 0;  // the budget then (0: none)
};

class RequestTracker {
 public:
  static constexpr size_t kMaxInFlight = 16384;
  static constexpr size_t kMaxHeld = 65536;
  // Windows kept for matching samples: open ones, and ended ones for kKeepEndedNs after the
  // latest sample matched (captures reach the sampler within a tick or two); at most kMaxWindows.
  static constexpr size_t kMaxWindows = 65536;
  static constexpr uint64_t kKeepEndedNs = 2'000'000'000;
  // Samples remembered for requests begun without a root: at most this many, none older than
  // kRememberNs (a longer request keeps only its last kRememberNs of them).
  static constexpr size_t kMaxRemembered = 1u << 16;
  static constexpr uint64_t kRememberNs = 30'000'000'000;

  // The serving thread, as EventPipeEventDelivered hands it a bridge event (parsed). `mono` now,
  // `tid` its OS id, `root` its async chain's root box now (own_chain_root; 0: none).
  void on_request_event(const RequestEvent& e, uint64_t mono, uint32_t tid, uintptr_t root = 0);
  // Whether a request begun without a root is open: only then does a stop's root matter.
  bool unrooted_open() const { return unrooted_open_.load(std::memory_order_relaxed) != 0; }

  // Sampler thread, after it sent a sample no request was known for, whose chain ended at `root`:
  // `ordinal` is its WireWriter::samples_written(). Kept only while unrooted_open().
  void remember(uintptr_t root, uint64_t mono, uint64_t ordinal);

  // Sampler thread: the request (seq) a sample taken at `mono` whose chain ended at `root` was
  // taken in, 0 for none.
  uint32_t request_at(uintptr_t root, uint64_t mono);

  // Sampler thread: the requests that ended since the last call, in order of their end; with
  // `in_flight` (the stream's end) also those still open, with end_mono 0.
  void take(std::vector<HeldRequest>* out, bool in_flight);

  // The thread that turns the bridge on and off (shim/requests_bridge.h). A tracker never told
  // tracks every start and sends no window.
  void listen_from(uint64_t mono, uint32_t max_per_s);
  void stop_listening(uint64_t mono);
  // After the session stopped: the window's requests still open are cut, and the window is held.
  void cut_open(uint64_t mono);
  size_t in_flight() const;
  // Starts tracked since the tracker began.
  uint64_t begun_total() const;

  // Sampler thread: the windows that closed since the last call; with `last` (the stream's end)
  // the open one too, ended at `now`.
  void take_windows(std::vector<ListenWindow>* out, bool last, uint64_t now);

  uint64_t dropped() const;
  uint64_t untracked() const;
  // Requests begun with a root known, and samples matched to a request.
  uint64_t rooted() const;
  uint64_t matched() const;
  // Requests begun without a root that ended under one, and the samples they took back.
  uint64_t backfilled() const;
  uint64_t backfilled_samples() const;

 private:
  struct Window {
    uint32_t seq;
    uint64_t start, end;  // end UINT64_MAX while open
  };
  struct Remembered {
    uint64_t mono, ordinal;
  };
  void end_window(uintptr_t root, uint32_t seq, uint64_t end);
  void prune_windows(uint64_t before);
  void backfill(HeldRequest* r, uintptr_t root, uint64_t end);

  mutable std::mutex mu_;
  std::unordered_map<uint64_t, HeldRequest> open_;
  std::vector<HeldRequest> ended_;
  std::unordered_map<uintptr_t, std::vector<Window>> windows_;
  size_t window_count_ = 0;
  uint64_t latest_match_ = 0;
  uint32_t next_seq_ = 1;
  enum class Listening { kUntold, kOpen, kClosed, kOff };
  Listening listening_ = Listening::kUntold;
  ListenWindow window_;
  std::vector<ListenWindow> windows_done_;
  uint64_t begun_total_ = 0;
  uint64_t dropped_ = 0;
  uint64_t untracked_ = 0;
  uint64_t rooted_ = 0;
  uint64_t matched_ = 0;
  std::atomic<uint32_t> unrooted_open_{0};
  std::unordered_map<uintptr_t, std::vector<Remembered>> remembered_;  // by root, in order sent
  size_t remembered_count_ = 0;
  uint64_t remembered_swept_ = 0;
  uint64_t backfilled_ = 0;
  uint64_t backfilled_samples_ = 0;
};

}  // namespace clrscope
