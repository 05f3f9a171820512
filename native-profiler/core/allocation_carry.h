#pragma once
// Allocation samples lost to a full event ring still stand for bytes the thread allocated. Their
// bytes ride on the thread's later recorded samples, so the estimates stay unbiased when the
// sampler falls behind (a later sample's stack and type are as likely as any to be where the lost
// ones were). They are spread, not put on the next sample alone: a sampler held up on a loaded
// machine loses hundreds in a row, and all of them on one sample made the split between types a
// handful of coin flips (one run: a type 36% over its bytes). Each recorded sample takes about a
// 64th of what is pending (at least one lost sample's worth), so a burst is spread over many
// samples and still drains in a few hundred.
//
// Objects follow the bytes: a sample counts the bytes it takes at its own object size. Spreading
// the lost samples' object counts instead would move counts between types whose objects differ
// in size by orders of magnitude (a sample of 32-byte objects stands for 3,200 of them, one of a
// large array for one): in a loaded CI run a small type lost 14% of its objects while its bytes
// were within 4%.

#include <cstdint>

namespace clrscope {

class AllocationCarry {
 public:
  // A lost sample's estimated bytes; its object count is not kept (see above).
  void lose(uint64_t value1) {
    value1_ += value1;
    ++count_;
  }

  // Adds this sample's share of what is pending to its values: bytes, and the objects they make
  // at this sample's size. A sample without bytes (no estimate) takes nothing.
  void take(uint64_t* value1, uint64_t* value2) {
    if (count_ == 0 || *value1 == 0) return;
    uint64_t k = count_ / 64;
    if (k == 0) k = 1;
    const uint64_t part1 = share(value1_, k, count_);
    // Counted in fractions: a large array's sample gains a tenth of an object at a time, and
    // rounding each would drop them all. The fraction left over waits for the next sample.
    const double objects = static_cast<double>(part1) * static_cast<double>(*value2) / static_cast<double>(*value1) + fraction_;
    const uint64_t whole = static_cast<uint64_t>(objects);
    fraction_ = objects - static_cast<double>(whole);
    *value1 += part1;
    *value2 += whole;
    value1_ -= part1;
    count_ -= k;
  }

  uint64_t pending_count() const { return count_; }
  uint64_t pending_bytes() const { return value1_; }

 private:
  // total * k / n without overflowing the product (k <= n).
  static uint64_t share(uint64_t total, uint64_t k, uint64_t n) {
    if (k == n) return total;
    return total / n * k + total % n * k / n;
  }

  uint64_t value1_ = 0;
  uint64_t count_ = 0;
  double fraction_ = 0;
};

}  // namespace clrscope
