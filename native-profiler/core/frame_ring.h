#pragma once
// Where a walk puts its frames when the stack may be deeper than the buffer: the innermost
// frames in order, the outermost ones round a ring behind them, so the stack stays rooted at the
// thread's entry. Async-signal-safe: no allocation, no library calls.
#include <cstdint>

#include "core/frame_walker.h"

namespace clrscope {

class FrameRing {
 public:
  // `tail_keep` of the `max_frames` slots (max_frames > 0) hold the outermost frames.
  FrameRing(uintptr_t* out, uint32_t max_frames, uint32_t tail_keep)
      : out_(out), max_(max_frames), tail_(tail_keep >= max_frames ? max_frames - 1 : tail_keep), head_(max_ - tail_) {}

  void push(uintptr_t pc) {
    if (total_ < head_) {
      out_[total_] = pc;
    } else if (tail_ > 0) {
      out_[head_ + (total_ - head_) % tail_] = pc;
    }
    ++total_;
  }
  uint64_t total() const { return total_; }
  // How many innermost frames are kept in order.
  uint32_t head() const { return head_; }

  // Sets count, gap_at and elided, and puts the ring's oldest frame first after the head.
  void finish(WalkResult* r) {
    if (total_ <= max_) {
      r->count = static_cast<uint32_t>(total_);
      return;
    }
    r->count = max_;
    r->gap_at = head_;
    r->elided = static_cast<uint32_t>(total_ - max_);
    if (tail_ == 0) return;
    const uint32_t start = static_cast<uint32_t>((total_ - head_) % tail_);
    // In-place rotation by three reversals: no scratch buffer in a signal handler.
    reverse(head_, head_ + start);
    reverse(head_ + start, max_);
    reverse(head_, max_);
  }

 private:
  void reverse(uint32_t a, uint32_t b) {
    while (a + 1 < b) {
      --b;
      const uintptr_t t = out_[a];
      out_[a] = out_[b];
      out_[b] = t;
      ++a;
    }
  }

  uintptr_t* out_;
  uint32_t max_;
  uint32_t tail_;
  uint32_t head_;
  uint64_t total_ = 0;
};

}  // namespace clrscope
