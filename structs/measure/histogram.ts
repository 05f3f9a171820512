// The latency histogram of a measured method (PROTOCOL.md, "MEASURE_FIGURES"): log-linear
// buckets as the profiler fills them (native-profiler/core/measure_histogram.h). Below 16 ns one
// bucket per nanosecond; above, each power of two split into 16 equal buckets; from 2^43 ns on,
// one last bucket.

export const SUB_BUCKETS = 16;
const SUB_BITS = 4;
const MAX_EXPONENT = 42;
export const BUCKET_COUNT = (MAX_EXPONENT - SUB_BITS + 2) * SUB_BUCKETS;

/** The smallest duration (ns) in bucket `b`. */
export function bucketFloor(b: number): number {
  if (b < SUB_BUCKETS) return b;
  const exponent = Math.floor(b / SUB_BUCKETS) + SUB_BITS - 1;
  return (SUB_BUCKETS + (b % SUB_BUCKETS)) * 2 ** (exponent - SUB_BITS);
}

/** One past the largest duration in bucket `b` (Infinity for the last bucket). */
export function bucketCeiling(b: number): number {
  return b >= BUCKET_COUNT - 1 ? Infinity : bucketFloor(b + 1);
}

/** The bucket a duration falls in. */
export function bucketOf(ns: number): number {
  if (ns < SUB_BUCKETS) return Math.max(0, Math.floor(ns));
  const exponent = Math.floor(Math.log2(ns));
  // log2 of a double can be one off near a power of two; settle it on the integer side.
  const e = 2 ** exponent > ns ? exponent - 1 : 2 ** (exponent + 1) <= ns ? exponent + 1 : exponent;
  if (e > MAX_EXPONENT) return BUCKET_COUNT - 1;
  const sub = Math.floor(ns / 2 ** (e - SUB_BITS)) % SUB_BUCKETS;
  return (e - SUB_BITS + 1) * SUB_BUCKETS + sub;
}

/**
 * The q-quantile (0 < q <= 1) of the durations: the middle of the first bucket at which the
 * running count reaches q of the calls, never above the longest call seen. Buckets are at most
 * 1/16 of their floor wide, so the answer is within about 3% of the true quantile.
 */
export function quantile(buckets: readonly (readonly [number, number])[], q: number, maxNs: number): number {
  let total = 0;
  for (const [, count] of buckets) total += count;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [b, count] of buckets) {
    seen += count;
    if (seen >= rank) {
      if (b < SUB_BUCKETS) return b;
      const middle = (bucketFloor(b) + Math.min(bucketCeiling(b), 2 * bucketFloor(b))) / 2;
      return Math.min(middle, maxNs);
    }
  }
  return maxNs;
}
