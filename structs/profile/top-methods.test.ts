import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureStream } from './fixture-stream.test-support.js';
import { recordingFromStream } from './recording-from-stream.js';
import { Recording } from './recording.js';
import { topMethods } from './top-methods.js';

const rec = recordingFromStream([fixtureStream()]);
const pct = (v: number, of: number): number => (100 * v) / of;

test('cpu: self goes to the innermost managed frame, else the leaf; recursion counts once in total', () => {
  assert.deepEqual(topMethods(rec, 'cpu', 100), [
    { name: 'App.Worker.Hot', module: 'App.dll', selfValue: 35, selfPct: pct(35, 47), totalValue: 35, totalPct: pct(35, 47) },
    { name: '[libcoreclr.so]', module: 'libcoreclr.so', selfValue: 7, selfPct: pct(7, 47), totalValue: 7, totalPct: pct(7, 47) },
    { name: 'App.Worker.Recurse', module: 'App.dll', selfValue: 4, selfPct: pct(4, 47), totalValue: 4, totalPct: pct(4, 47) },
    { name: 'a;b', module: 'Lib.dll', selfValue: 1, selfPct: pct(1, 47), totalValue: 1, totalPct: pct(1, 47) },
    { name: 'App.Worker.Work', module: 'App.dll', selfValue: 0, selfPct: 0, totalValue: 39, totalPct: pct(39, 47) },
    { name: 'App.Program.Main', module: 'App.dll', selfValue: 0, selfPct: 0, totalValue: 36, totalPct: pct(36, 47) },
    { name: 'libc.so.6!start_thread', module: 'libc.so.6', selfValue: 0, selfPct: 0, totalValue: 7, totalPct: pct(7, 47) },
    { name: '[incomplete stack]', module: '', selfValue: 0, selfPct: 0, totalValue: 4, totalPct: pct(4, 47) },
  ]);
});

test('wall: the futex wait is charged to its managed caller; n limits the rows', () => {
  const rows = topMethods(rec, 'wall', 3);
  assert.deepEqual(rows.map((r) => [r.name, r.selfValue, r.totalValue]), [
    ['App.Worker.Work', 100, 150],
    ['App.Worker.Hot', 50, 50],
    ['[incomplete stack]', 30, 30],
  ]);
  assert.equal(rows[0].selfPct, pct(100, 180));
  assert.equal(topMethods(rec, 'wall', 10).find((r) => r.name === 'libc.so.6!futex_wait')?.totalValue, 100);
  assert.equal(topMethods(rec, 'wall', 10).find((r) => r.name === 'libc.so.6!futex_wait')?.selfValue, 0);
});

test('no samples, no rows', () => {
  assert.deepEqual(topMethods(new Recording(), 'cpu', 10), []);
  assert.deepEqual(topMethods(rec, 'cpu', 0), []);
});
