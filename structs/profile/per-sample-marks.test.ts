import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerSampleMarks } from './per-sample-marks.js';

test('marks grow on demand, move down when samples before them are dropped, and clear the tail', () => {
  const marks = new PerSampleMarks();
  assert.equal(marks.hasMarks, false);
  assert.equal(marks.of(5), 0);
  marks.set(3, 7);
  marks.set(5000, 9);
  assert.equal(marks.hasMarks, true);
  assert.deepEqual([marks.of(3), marks.of(4), marks.of(5000), marks.of(1 << 20)], [7, 0, 9, 0]);
  // Samples 0-2 dropped: 3 becomes 0, ..., 5000 becomes 4997.
  for (let from = 3; from <= 5000; from++) marks.moveMark(from, from - 3);
  marks.clearFrom(4998);
  assert.deepEqual([marks.of(0), marks.of(4997), marks.of(5000)], [7, 9, 0]);
  assert.ok(marks.byteSize() >= 5001 * 4);
});
