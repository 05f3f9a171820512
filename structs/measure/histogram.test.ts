import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKET_COUNT, bucketCeiling, bucketFloor, bucketOf, quantile } from './histogram.js';

test('buckets are the profiler\'s: one per ns below 16, then 16 per power of two', () => {
  assert.equal(BUCKET_COUNT, 640);
  assert.equal(bucketFloor(15), 15);
  assert.equal(bucketFloor(16), 16);
  assert.equal(bucketFloor(32), 32);
  assert.equal(bucketFloor(33), 34);
  assert.equal(bucketFloor(639), 31 * 2 ** 38);  // native-profiler/core/measure_histogram.h, static_assert "top"
  assert.equal(bucketCeiling(639), Infinity);
  for (let b = 1; b < BUCKET_COUNT - 1; b++) {
    assert.ok(bucketFloor(b + 1) > bucketFloor(b));
    assert.equal(bucketOf(bucketFloor(b)), b, `floor of ${b}`);
    assert.equal(bucketOf(bucketFloor(b + 1) - 1), b, `last of ${b}`);
  }
  assert.equal(bucketOf(2 ** 60), BUCKET_COUNT - 1);
});

test('quantiles come from the middle of the bucket the rank falls in, capped by the maximum', () => {
  const twenty = bucketOf(20_000_000);
  // 50 calls of about 20 ms, one of 30 ms.
  const buckets: [number, number][] = [[twenty, 50], [bucketOf(30_000_000), 1]];
  const p50 = quantile(buckets, 0.5, 30_000_000);
  assert.ok(Math.abs(p50 - 20_000_000) < 600_000, `p50 ${p50}`);
  assert.equal(quantile(buckets, 1, 29_000_000), 29_000_000);
  assert.equal(quantile([[7, 3]], 0.99, 7), 7);
  assert.equal(quantile([], 0.5, 0), 0);
  // 99 fast calls and one slow: p90 fast, p99 fast, p100 slow.
  const mixed: [number, number][] = [[bucketOf(100), 99], [bucketOf(1_000_000), 1]];
  assert.ok(quantile(mixed, 0.99, 1_000_000) < 110);
  assert.ok(quantile(mixed, 1, 1_000_000) > 900_000);
});
