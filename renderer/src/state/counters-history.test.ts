import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COUNTERS_HISTORY_POINTS, type CountersPoint } from '../../../structs/api/contract.js';
import { CountersHistory } from './counters-history.js';

const point = (timeMs: number): CountersPoint => ({ timeMs, values: { gc: { genCollections0: timeMs } } });
const times = (h: CountersHistory): number[] => h.points('s').map((p) => p.timeMs);

test('live points: the newest COUNTERS_HISTORY_POINTS are kept, in time order, repeats dropped', () => {
  const h = new CountersHistory();
  for (let t = 1; t <= COUNTERS_HISTORY_POINTS + 5; t++) h.add('s', point(t));
  h.add('s', point(COUNTERS_HISTORY_POINTS + 5));
  assert.equal(h.points('s').length, COUNTERS_HISTORY_POINTS);
  assert.deepEqual(times(h).slice(0, 2), [6, 7]);
  assert.equal(times(h)[COUNTERS_HISTORY_POINTS - 1], COUNTERS_HISTORY_POINTS + 5);
  assert.deepEqual(h.points(null), []);
});

test('a full history (as much as countersHistory sends) merged with live points keeps the newest, one per time', () => {
  const h = new CountersHistory();
  h.add('s', point(COUNTERS_HISTORY_POINTS + 1));
  h.add('s', point(COUNTERS_HISTORY_POINTS + 2));
  const history = Array.from({ length: COUNTERS_HISTORY_POINTS }, (_, i) => point(i + 2));
  h.merge('s', history);
  assert.equal(h.points('s').length, COUNTERS_HISTORY_POINTS);
  assert.equal(times(h)[0], 3);
  assert.deepEqual(times(h).slice(-3), [COUNTERS_HISTORY_POINTS, COUNTERS_HISTORY_POINTS + 1, COUNTERS_HISTORY_POINTS + 2]);
});
