import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { Recording } from '../../../structs/profile/recording.js';
import { SummaryTracker } from './recording-summary.js';

const START = 2_000_000_000;

function stream(): { first: Uint8Array; second: Uint8Array } {
  const enc = new WireEncoder().preamble().hello({
    pid: 77, flags: 3, mono: START, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: 't',
  });
  enc.function({ functionId: 1, kind: 0, name: 'Main', module: 'A.dll', file: '' });
  enc.thread({ threadId: 2, osTid: 202, clrThreadId: 1, mono: START, name: 'worker' });
  enc.thread({ threadId: 1, osTid: 101, clrThreadId: 2, mono: START, name: 'main' });
  enc.sample({ mono: START + 1e6, threadId: 1, flags: 1, cpuNs: 100, wallNs: 0, frames: [1] });
  enc.sample({ mono: START + 2e6, threadId: 2, flags: 3, cpuNs: 50, wallNs: 70, frames: [1] });
  const first = enc.takeBytes(true);
  // The same encoder goes on: wire v2 codes each sample against the ones before it.
  const more = enc;
  more.sample({ mono: START + 3e6, threadId: 1, flags: 2, cpuNs: 0, wallNs: 30, frames: [1] });
  more.suspension({ mono: START + 4e6, durationNs: 2e6, suspendNs: 1000, reason: 1, generation: 0, flags: 1 });
  more.stats({ mono: START + 5e6, samples: 3, droppedRingFull: 1, droppedBufferFull: 2, droppedWatchdog: 3, droppedOther: 4 });
  more.threadEnd({ threadId: 2, mono: START + 5e6 });
  more.end({ mono: START + 8e6, reason: 0 });
  return { first, second: more.takeBytes(true) };
}

test('before HELLO: nothing known', () => {
  const s = new SummaryTracker(new Recording()).summarize(null);
  assert.deepEqual(s, {
    pid: null, runtimeVersion: null, intervalNs: 0, durationMs: 0, sampleCount: 0, droppedSamples: 0, stacklessCpuMs: 0, threads: [], processes: [], pauses: [], gcs: [], eventMetrics: [], hasAsync: false, keepMinutes: null, keptFromMs: null, signalLostMs: null, ownCost: null, ended: false, error: null,
  });
});

test('per-thread totals grow with each summary; pauses, drops, duration and END', () => {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const tracker = new SummaryTracker(rec);
  const { first, second } = stream();
  decoder.push(first);
  const early = tracker.summarize(null);
  assert.equal(early.pid, 77);
  assert.equal(early.runtimeVersion, '10.0.12');
  assert.equal(early.intervalNs, 10_000_000);
  assert.equal(early.durationMs, 2);
  assert.equal(early.ended, false);
  assert.deepEqual(early.threads, [
    { id: 1, osTid: 101, name: 'main', pid: null, ended: false, cpuNs: 100, wallNs: 0 },
    { id: 2, osTid: 202, name: 'worker', pid: null, ended: false, cpuNs: 50, wallNs: 70 },
  ]);
  decoder.push(second);
  const late = tracker.summarize('broken');
  assert.deepEqual(late.threads, [
    { id: 1, osTid: 101, name: 'main', pid: null, ended: false, cpuNs: 100, wallNs: 30 },
    { id: 2, osTid: 202, name: 'worker', pid: null, ended: true, cpuNs: 50, wallNs: 70 },
  ]);
  assert.equal(late.sampleCount, 3);
  assert.equal(late.droppedSamples, 10);
  assert.equal(late.durationMs, 8);
  assert.equal(late.ended, true);
  assert.equal(late.error, 'broken');
  assert.deepEqual(late.pauses, [{ startNs: 4e6, durationNs: 2e6, suspendNs: 1000, reason: 'gc', generation: 0, induced: true, aborted: false }]);
});

test('the summary says when the profiler stopped sampling because its signal was taken over', () => {
  const enc = new WireEncoder().preamble().hello({
    pid: 77, flags: 3, mono: START, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: 't',
  });
  enc.stats({ mono: START + 5e6, samples: 0, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 });
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const tracker = new SummaryTracker(rec);
  decoder.push(enc.takeBytes(true));
  assert.equal(tracker.summarize(null).signalLostMs, null);
  enc.stats({ mono: START + 9e6, samples: 0, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0, signalLostMono: START + 7.5e6 });
  decoder.push(enc.takeBytes(true));
  assert.equal(tracker.summarize(null).signalLostMs, 7.5);
});

test('CPU that came without a fresh stack is summed from the samples under the profiler\'s "[CPU without a stack: …]" leaf', () => {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const tracker = new SummaryTracker(rec);
  const enc = new WireEncoder().preamble().hello({
    pid: 77, flags: 3, mono: START, unixNs: 1n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: 't',
  });
  enc.function({ functionId: 1, kind: 0, name: 'Spin', module: 'A.dll', file: '' });
  enc.function({ functionId: 2, kind: 2, name: '[CPU without a stack: signal blocked]', module: '', file: '' });
  enc.thread({ threadId: 1, osTid: 101, clrThreadId: 0, mono: START, name: 'masked-native-0' });
  enc.sample({ mono: START + 1e6, threadId: 1, flags: 1, cpuNs: 2e6, wallNs: 0, frames: [1] });
  enc.sample({ mono: START + 2e6, threadId: 1, flags: 1, cpuNs: 250e6, wallNs: 0, frames: [2, 1] });
  decoder.push(enc.takeBytes(true));
  assert.equal(tracker.summarize(null).stacklessCpuMs, 250);
  const more = enc;
  more.sample({ mono: START + 3e6, threadId: 1, flags: 1, cpuNs: 100e6, wallNs: 0, frames: [2, 1] });
  decoder.push(more.takeBytes(true));
  assert.equal(tracker.summarize(null).stacklessCpuMs, 350);
});
