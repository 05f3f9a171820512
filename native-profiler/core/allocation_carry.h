#pragma once
// Allocation samples lost to a full event ring still stand for bytes the thread allocated. Their
// values ride on the thread's later recorded samples, so the estimates stay unbiased when the
// sampler falls behind (a later sample's stack and type are as likely as any to be where the lost
// ones were). They are spread, not put on the next sample alone: a sampler held up on a loaded
// machine loses hundreds in a row, and all of them on one sample made the split between types a
// handful of coin flips (one run: a type 36% over its bytes). Each recorded sample takes about a
// 64th of what is pending (at least one lost sample's worth), so a burst is spread over many
// samples and still drains in a few hundred.

#include <cstdint>

namespace clrscope {

class AllocationCarry {
 public:
  void lose(uint64_t value1, uint64_t value2) {
    value1_ += value1;
    value2_ += value2;
    ++count_;
  }

  // Adds this sample's share of what is pending to its values.
  void take(uint64_t* value1, uint64_t* value2) {
    if (count_ == 0) return;
    uint64_t k = count_ / 64;
    if (k == 0) k = 1;
    const uint64_t part1 = share(value1_, k, count_);
    const uint64_t part2 = share(value2_, k, count_);
    *value1 += part1;
    *value2 += part2;
    value1_ -= part1;
    value2_ -= part2;
    count_ -= k;
  }

  uint64_t pending_count() const { return count_; }

 private:
  // total * k / n without overflowing the product (k <= n).
  static uint64_t share(uint64_t total, uint64_t k, uint64_t n) {
    if (k == n) return total;
    return total / n * k + total % n * k / n;
  }

  uint64_t value1_ = 0;
  uint64_t value2_ = 0;
  uint64_t count_ = 0;
};

}  // namespace clrscope
