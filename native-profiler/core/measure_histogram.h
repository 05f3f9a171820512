#pragma once
// The latency histogram of a measured method: log-linear buckets in the manner of HdrHistogram.
// Durations below 16 ns get a bucket each; above, every power of two is split into 16 equal
// sub-buckets, so a bucket is at most 1/16 (6.25%) of its lower bound wide. Durations from
// 2^43 ns (about 2.4 hours) up share the last bucket. The same numbering is spelled out in
// structs/wire/PROTOCOL.md ("MEASURE"), where the workstation turns buckets into percentiles.
#include <cstdint>

namespace clrscope {
namespace measure {

constexpr uint32_t kSubBits = 4;
constexpr uint32_t kSubBuckets = 1u << kSubBits;  // 16
constexpr uint32_t kMaxExponent = 42;             // highest power of two with buckets of its own
constexpr uint32_t kBuckets = (kMaxExponent - kSubBits + 2) * kSubBuckets;  // 640

constexpr uint32_t bucket_of(uint64_t ns) {
  if (ns < kSubBuckets) return static_cast<uint32_t>(ns);
  const uint32_t exponent = 63u - static_cast<uint32_t>(__builtin_clzll(ns));
  if (exponent > kMaxExponent) return kBuckets - 1;
  const uint32_t sub = static_cast<uint32_t>(ns >> (exponent - kSubBits)) & (kSubBuckets - 1);
  return (exponent - kSubBits + 1) * kSubBuckets + sub;
}

// The smallest duration that falls in `bucket`.
constexpr uint64_t bucket_floor(uint32_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const uint32_t exponent = bucket / kSubBuckets + kSubBits - 1;
  const uint64_t sub = bucket % kSubBuckets;
  return (kSubBuckets + sub) << (exponent - kSubBits);
}

static_assert(bucket_of(15) == 15 && bucket_of(16) == 16 && bucket_of(31) == 31 && bucket_of(32) == 32, "edges");
static_assert(bucket_floor(bucket_of(20000000)) <= 20000000 && bucket_floor(bucket_of(20000000) + 1) > 20000000, "floor");
static_assert(bucket_of(~0ull) == kBuckets - 1 && bucket_floor(kBuckets - 1) == (31ull << 38), "top");

}  // namespace measure
}  // namespace clrscope
