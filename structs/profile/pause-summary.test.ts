import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pauseEntries, pauseStats, summarizePauses } from './pause-summary.js';
import type { SuspensionRecord } from '../wire/records.js';

const s = (mono: number, durationNs: number, generation: number, flags = 0, reason = 1): SuspensionRecord => ({ mono, durationNs, suspendNs: 10, reason, generation, flags });

test('percentiles are nearest-rank over exact durations', () => {
  const d = Array.from({ length: 100 }, (_, i) => (i + 1) * 1000); // 1..100 µs
  assert.deepEqual(pauseStats(d), { count: 100, totalNs: 5050000, p50Ns: 50000, p90Ns: 90000, p99Ns: 99000, maxNs: 100000 });
  assert.deepEqual(pauseStats([7]), { count: 1, totalNs: 7, p50Ns: 7, p90Ns: 7, p99Ns: 7, maxNs: 7 });
  assert.deepEqual(pauseStats([]), { count: 0, totalNs: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0 });
});

test('GC pauses are split by generation and kept apart from other suspensions', () => {
  const sum = summarizePauses([s(1, 100, 0), s(2, 300, 0), s(3, 1000, 1, 1), s(4, 5000, 2, 1), s(5, 40, -1, 0, 9), s(6, 0, -1, 2)]);
  assert.equal(sum.byGeneration[0].count, 2);
  assert.equal(sum.byGeneration[0].totalNs, 400);
  assert.equal(sum.byGeneration[1].maxNs, 1000);
  assert.equal(sum.byGeneration[2].count, 1);
  assert.equal(sum.gc.count, 4);
  assert.equal(sum.gc.totalNs, 6400);
  assert.equal(sum.other.count, 2);
  assert.equal(sum.induced, 2);
});

test('the pause list names reasons and uses null for suspensions without a GC', () => {
  assert.deepEqual(pauseEntries([s(1_000_500, 200, 2, 1), s(1_000_900, 50, -1, 2, 9)], 1_000_000), [
    { startNs: 500, durationNs: 200, suspendNs: 10, reason: 'gc', generation: 2, induced: true, aborted: false },
    { startNs: 900, durationNs: 50, suspendNs: 10, reason: 'profiler', generation: null, induced: false, aborted: true },
  ]);
});
