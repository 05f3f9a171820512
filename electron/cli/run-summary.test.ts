import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { WireEncoder } from '../../structs/wire/encoder.js';
import { DescriptorLoss, EndReason } from '../../structs/wire/records.js';
import { WireDecoder } from '../../structs/wire/decoder.js';
import { Recording } from '../../structs/profile/recording.js';
import { StackThreadSums } from '../../structs/profile/aggregate.js';
import { fixtureStream } from '../../structs/profile/fixture-stream.test-support.js';
import { asyncFixtureStream } from '../../structs/profile/async-fixture-stream.test-support.js';
import { formatSummary, sampleCounts } from './run-summary.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';

function recording(samples: number, watchdog: number, ring: number): ReturnType<typeof recordingFromStream> {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'a' })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' });
  for (let i = 0; i < samples; i++) enc.sample({ mono: i + 1, threadId: 1, flags: 1, cpuNs: 1000, wallNs: 0, frames: [1] });
  enc.stats({ mono: samples + 1, samples, droppedRingFull: ring, droppedBufferFull: 0, droppedWatchdog: watchdog, droppedOther: 0 });
  return recordingFromStream([enc.end({ mono: samples + 2, reason: 0 }).bytes()]);
}

test('dropped samples are counted per reason in words that fit any number', () => {
  assert.equal(sampleCounts(recording(3, 8, 0)).droppedDetail, 'thread did not answer: 8');
  assert.equal(sampleCounts(recording(3, 1, 2)).droppedDetail, 'capture slots full: 2, thread did not answer: 1');
});

test('the summary\'s first line agrees in number', () => {
  assert.match(formatSummary(recording(1, 0, 0)), /^clrscope: recorded pid 7 \(\.NET 10\.0\.12\): 1 sample \(1 CPU, 0 wall\), 0 dropped\.$/m);
  assert.match(formatSummary(recording(2, 8, 0)), /: 2 samples \(2 CPU, 0 wall\), 8 dropped \(thread did not answer: 8\)\.$/m);
});

test('the summary from samples summed as they were read equals the one from every sample', () => {
  for (const wire of [fixtureStream(), asyncFixtureStream()]) {
    const whole = recordingFromStream([wire]);
    const rec = new Recording({ keepSamples: 'recent' });
    const decoder = new WireDecoder(rec.sink);
    const sums = new StackThreadSums();
    // A few bytes at a time, folding each step's samples in and letting them go, as the read-back does.
    for (let at = 0; at < wire.length; at += 7) {
      decoder.push(wire.subarray(at, at + 7));
      sums.add(rec.recentSamples().columns);
      rec.releaseSamples();
    }
    decoder.end();
    rec.finish();
    assert.throws(() => rec.sampleColumns());
    assert.equal(formatSummary(rec, false, sums), formatSummary(whole));
  }
});

test('the summary names each exception type\'s most frequent message, when the recording has messages', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'a' })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1])
    .string(1, 'System.ArgumentException').string(2, 'System.Exception').string(3, 'clrscope test').string(4, 'key 1').string(5, 'key 2');
  let mono = 1;
  for (let i = 0; i < 3; i++) enc.event({ kind: 3, mono: mono++, threadId: 1, stackId: 1, labelId: 1, value1: 1, messageId: 3 });
  for (const m of [4, 4, 5]) enc.event({ kind: 3, mono: mono++, threadId: 1, stackId: 1, labelId: 2, value1: 1, messageId: m });
  enc.event({ kind: 3, mono: mono++, threadId: 1, stackId: 1, labelId: 2, value1: 1 });
  const text = formatSummary(recordingFromStream([enc.end({ mono: mono + 1, reason: 0 }).bytes()]));
  assert.match(text, /\n\s+4 {2}System\.Exception\n\s+message "key 1" \(2 of 4; 3 distinct\)\n\s+3 {2}System\.ArgumentException\n\s+message "clrscope test" \(3 of 3\)\n/);
  // Without any message (an older recording, or messages off) nothing is said of them.
  assert.doesNotMatch(formatSummary(recording(1, 0, 0)), /message/);
});

test('a recording whose profiler lost its signal says when sampling stopped, and a saved copy keeps it', () => {
  const enc = new WireEncoder().preamble(2)
    .hello({ pid: 7, flags: 3, mono: 1_000_000_000, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 1_000_000_000, name: 'a' })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' })
    .sample({ mono: 1_100_000_000, threadId: 1, flags: 1, cpuNs: 1000, wallNs: 0, frames: [1] })
    .stats({ mono: 3_000_000_000, samples: 1, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0, signalLostMono: 3_500_000_000n });
  const rec = recordingFromStream([enc.end({ mono: 4_000_000_000, reason: 0 }).bytes()]);
  assert.equal(rec.stats?.signalLostMono, 3_500_000_000);
  assert.match(formatSummary(rec), /^clrscope: CPU and wall sampling stopped 2\.50 s in: a library in the program took over clrscope's signal/m);
  assert.doesNotMatch(formatSummary(recording(1, 0, 0)), /sampling stopped/);
  const again = recordingFromStream([saveRecording(rec)]);
  assert.equal(again.stats?.signalLostMono, 3_500_000_000);
});

test('the summary says how much CPU came without a fresh stack, and says nothing when none did', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0, mono: 0, name: 'masked-native-0' })
    .function({ functionId: 1, kind: 1, name: 'spin', module: 'libwork.so', file: '' })
    .function({ functionId: 2, kind: 2, name: '[CPU without a stack: signal blocked]', module: '', file: '' });
  enc.sample({ mono: 1, threadId: 1, flags: 1, cpuNs: 3e6, wallNs: 0, frames: [1] });
  enc.sample({ mono: 2, threadId: 1, flags: 1, cpuNs: 1.5e9, wallNs: 0, frames: [2, 1] });
  const text = formatSummary(recordingFromStream([enc.end({ mono: 3, reason: 0 }).bytes()]));
  assert.match(text, /^clrscope: 1\.50 s of CPU came without a fresh stack \(threads that blocked clrscope's signal, or captures lost\)/m);
  assert.doesNotMatch(formatSummary(recording(3, 0, 0)), /without a fresh stack/);
});

test('a recording whose connection the program took says so with the descriptor, and a saved copy keeps it', () => {
  const enc = new WireEncoder().preamble(2)
    .hello({ pid: 7, flags: 3, mono: 1_000_000_000, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 1_000_000_000, name: 'a' })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' })
    .sample({ mono: 1_100_000_000, threadId: 1, flags: 1, cpuNs: 1000, wallNs: 0, frames: [1] });
  const rec = recordingFromStream([enc.end({ mono: 2_000_000_000, reason: EndReason.ConnectionLost, descriptor: 803, descriptorLoss: DescriptorLoss.Closed }).bytes()]);
  assert.match(formatSummary(rec), /^clrscope: the program closed clrscope's connection \(descriptor 803\): the recording ends there/m);
  assert.doesNotMatch(formatSummary(recording(1, 0, 0)), /closed clrscope's connection/);
  const again = recordingFromStream([saveRecording(rec)]);
  assert.deepEqual(again.end, { mono: 2_000_000_000, reason: EndReason.ConnectionLost, descriptor: 803, descriptorLoss: DescriptorLoss.Closed });
  const reused = recordingFromStream([new WireEncoder().preamble(2)
    .hello({ pid: 7, flags: 3, mono: 1, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: 'p' })
    .end({ mono: 2, reason: EndReason.ConnectionLost, descriptor: 5, descriptorLoss: DescriptorLoss.Replaced }).bytes()]);
  assert.match(formatSummary(reused), /closed clrscope's connection \(descriptor 5\) and reused its number/);
});
