import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { streamFromCollapsed } from '../formats/collapsed/collapsed-stream.js';
import { DEFAULT_FOLD } from './fold-options.js';
import { ProfileAnalysis } from './profile-analysis.js';

const MS = 1e6;

// busy: on a CPU 10 ms of every 10 ms for 40 ms. idle: wall samples every 10 ms, CPU 1 ms of each.
const TEXT = `
  busy;Main;Spin ${10 * MS} @10 wall=${10 * MS}
  idle;Main;Wait ${1 * MS} @10 wall=${10 * MS}
  busy;Main;Spin ${10 * MS} @20 wall=${10 * MS}
  idle;Main;Wait ${1 * MS} @20 wall=${10 * MS}
  busy;Main;Spin ${10 * MS} @30 wall=${10 * MS}
  idle;Main;Wait ${1 * MS} @30 wall=${10 * MS}
  busy;Main;[libcoreclr.so];libc.so.6!memcpy ${10 * MS} @40 wall=${10 * MS}
  idle;Main;Wait ${1 * MS} @40 wall=${10 * MS}
`;

test('a lane per thread, busiest first; CPU fraction and coverage per bucket', () => {
  const a = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(TEXT)]));
  const t = a.timeline({ fromMs: 0, toMs: 40, buckets: 4 });
  assert.deepEqual(t.threads.map((x) => x.name), ['busy', 'idle']);
  assert.deepEqual(t.threads.map((x) => x.cpuNs / MS), [30, 3], 'the sample at 40 ms is outside [0, 40)');
  const row = (lane: number, of: Float32Array): number[] => Array.from(of.subarray(lane * 4, lane * 4 + 4), (v) => Math.round(v * 100) / 100);
  assert.deepEqual(row(0, t.cpu), [1, 1, 1, 1]);
  assert.deepEqual(row(1, t.cpu), [0.1, 0.1, 0.1, 0.1]);
  assert.deepEqual(row(1, t.seen), [1, 1, 1, 1]);
});

test('the stack of a thread at a moment: its nearest sample, folded as asked', () => {
  const a = new ProfileAnalysis(recordingFromStream([streamFromCollapsed(TEXT)]));
  const near = a.stackNear(1, 38, DEFAULT_FOLD);
  assert.ok(near !== null);
  assert.equal(near.atMs, 40);
  assert.deepEqual(near.frames, ['Main', '[runtime]']);
  assert.equal(a.stackNear(1, 12, DEFAULT_FOLD)?.atMs, 10);
  assert.deepEqual(a.stackNear(2, 21, DEFAULT_FOLD)?.frames, ['Main', 'Wait']);
  assert.equal(a.stackNear(99, 1, DEFAULT_FOLD), null);
});
