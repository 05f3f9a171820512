import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import { allocationSpanBefore, pauseHistogram, pauseRows } from './pause-groups.js';

const pause = (durationNs: number, generation: number | null): PauseEntry => ({
  startNs: 0, durationNs, suspendNs: 0, reason: generation === null ? 'other' : 'gc', generation, induced: false, aborted: false,
});

describe('pauseRows', () => {
  it('gives nearest-rank percentiles per generation, for all GCs and for other suspensions', () => {
    const pauses = [pause(100, 0), pause(300, 0), pause(200, 0), pause(5000, 2), pause(50, null)];
    const rows = Object.fromEntries(pauseRows(pauses).map((r) => [r.key, r.stats]));
    assert.deepEqual([rows.gen0.count, rows.gen0.p50Ns, rows.gen0.maxNs, rows.gen0.totalNs], [3, 200, 300, 600]);
    assert.equal(rows.gen1.count, 0);
    assert.deepEqual([rows.gc.count, rows.gc.p99Ns], [4, 5000]);
    assert.deepEqual([rows.other.count, rows.other.maxNs], [1, 50]);
  });
});

describe('pauseHistogram', () => {
  it('puts each pause in its power-of-two bucket, counted per group', () => {
    const buckets = pauseHistogram([pause(1000, 0), pause(1500, 0), pause(4000, 1), pause(4100, null)]);
    assert.deepEqual(buckets.map((b) => b.fromNs), [512, 1024, 2048, 4096]);
    assert.deepEqual(buckets.map((b) => b.counts), [[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]]);
    assert.deepEqual(pauseHistogram([]), []);
  });
});

describe('allocationSpanBefore', () => {
  const at = (startMs: number, durationMs: number, generation: number | null): PauseEntry => ({
    ...pause(durationMs * 1e6, generation), startNs: startMs * 1e6,
  });
  it('runs from the end of the GC pause before to the start of this one, whatever order the list has', () => {
    const first = at(100, 5, 0);
    const second = at(300, 2, 1);
    const third = at(700, 10, 2);
    const notGc = at(500, 1, null);
    const pauses = [third, notGc, first, second];
    assert.deepEqual(allocationSpanBefore(pauses, first), { fromMs: 0, toMs: 100 });
    assert.deepEqual(allocationSpanBefore(pauses, second), { fromMs: 105, toMs: 300 });
    assert.deepEqual(allocationSpanBefore(pauses, third), { fromMs: 302, toMs: 700 }, 'a suspension without a GC does not cut the span');
    assert.equal(allocationSpanBefore(pauses, notGc), null);
  });
});
