import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RuntimeEventRecord } from '../wire/records.js';
import { RuntimeEventId } from '../wire/timeline/runtime-events.js';
import { hasWaitEvents, runtimeWaits } from './pool-waits.js';

const start = (mono: number, tid: number, source = 1): RuntimeEventRecord => ({ mono, tid, event: RuntimeEventId.WaitHandleWaitStart, version: 0, a: source, b: 0x1000, c: 0, d: 0 });
const stop = (mono: number, tid: number): RuntimeEventRecord => ({ mono, tid, event: RuntimeEventId.WaitHandleWaitStop, version: 0, a: 0, b: 0, c: 0, d: 0 });

test('a thread\'s start and the stop after it are one wait, threads apart, whatever order they arrive in', () => {
  const events = [stop(400, 8), start(100, 7), start(150, 8, 0), stop(350, 7), { mono: 120, tid: 7, event: RuntimeEventId.WorkerThreadStart, version: 0, a: 3, b: 0, c: 0, d: 0 }];
  assert.deepEqual(runtimeWaits(events, 1000), [
    { tid: 7, startMono: 100, endMono: 350, source: 'MonitorWait' },
    { tid: 8, startMono: 150, endMono: 400, source: 'Unknown' },
  ]);
  assert.equal(hasWaitEvents(events), true);
});

test('a wait still blocked at the end lasts until the end; a stop whose start came before the recording is left out', () => {
  assert.deepEqual(runtimeWaits([stop(50, 7), start(100, 7), start(200, 9)], 1000), [
    { tid: 7, startMono: 100, endMono: 1000, source: 'MonitorWait' },
    { tid: 9, startMono: 200, endMono: 1000, source: 'MonitorWait' },
  ]);
});

test('a second start on a thread ends the first wait there (its stop was lost)', () => {
  assert.deepEqual(runtimeWaits([start(100, 7), start(300, 7), stop(400, 7)], 1000).map((w) => [w.startMono, w.endMono]), [[100, 300], [300, 400]]);
});

test('a recording whose runtime raised no wait events has none', () => {
  assert.equal(hasWaitEvents([{ mono: 1, tid: 1, event: RuntimeEventId.Adjustment, version: 0, a: 4, b: 6, c: 0, d: 0 }]), false);
  assert.deepEqual(runtimeWaits([], 1000), []);
});
