import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import type { GcRow } from '../../../structs/analysis/gc-stats.js';
import { allocationSpanBefore, collectionOf, pauseHistogram, pauseOf, pauseRows } from './pause-groups.js';

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

describe('collectionOf', () => {
  const row = (number: number, startNs: number): GcRow => ({
    number, generation: 0, type: 'blocking', reason: 'AllocSmall', pauseMs: 1, heapBeforeBytes: 4e6, heapAfterBytes: 1e6, promotedBytes: 5e5, startNs,
    suspendMs: 0.1, durationMs: 0.8, finalPauseMs: null, fragmentationBytes: null, compacting: null, gcHandles: null, pinnedObjects: null, complete: true,
  });
  it('finds the collection whose start is inside the pause, and the pause of a collection', () => {
    const at = (startNs: number, generation: number | null): PauseEntry => ({ ...pause(2e6, generation), startNs });
    const gcs = [row(1, 10.2e6), row(2, 50.3e6), row(3, 90.1e6)];
    const pauses = [at(10e6, 0), at(50e6, 0), at(70e6, null), at(200e6, 1)];
    assert.equal(collectionOf(pauses[0], gcs)?.number, 1);
    assert.equal(collectionOf(pauses[1], gcs)?.number, 2);
    assert.equal(collectionOf(pauses[2], gcs), null, 'a suspension without a GC has no collection');
    assert.equal(collectionOf(pauses[3], gcs), null, 'no row in that pause');
    assert.equal(pauseOf(gcs[1], pauses), pauses[1]);
    assert.equal(pauseOf(gcs[2], pauses), null);
  });
});
