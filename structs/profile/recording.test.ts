import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WireDecoder } from '../wire/decoder.js';
import { WireEncoder } from '../wire/encoder.js';
import { parseHexText } from '../wire/hex-text.js';
import { RecordType } from '../wire/records.js';
import { INCOMPLETE_STACK_FUNCTION_ID, Recording } from './recording.js';
import { RecordingError } from './recording-error.js';
import { recordingFromStream } from './recording-from-stream.js';

const basicBytes = parseHexText(readFileSync(new URL('../../../structs/wire/fixtures/basic.hex', import.meta.url), 'utf8'));
const hello = { pid: 99, flags: 7, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: '0.2.0' };

/** HELLO, one thread (id 1) and functions 1..fnCount (managed, 'F<id>'); wire v2 unless `version` says 1. */
function base(fnCount = 4, version = 2): WireEncoder {
  const enc = new WireEncoder().preamble(version).hello(hello).thread({ threadId: 1, osTid: 501, clrThreadId: 0x1000, mono: 1001, name: 'main' });
  for (let id = 1; id <= fnCount; id++) enc.function({ functionId: id, kind: 0, name: `F${id}`, module: 'App.dll', file: '' });
  return enc;
}

const stacksOf = (rec: Recording): number[][] => Array.from({ length: rec.sampleCount }, (_, i) => Array.from(rec.stackFrames(rec.sampleStackId(i))));

function expectRecordingError(bytes: Uint8Array, reason: string): void {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  assert.throws(() => decoder.push(bytes), (err: unknown) => {
    assert.ok(err instanceof RecordingError, String(err));
    assert.equal(err.reason, reason);
    assert.equal(err.message, `Corrupt clrscope stream: a record ${reason}.`);
    return true;
  });
}

test('basic.hex becomes meta, threads, functions, samples, stats and END', () => {
  const rec = recordingFromStream([basicBytes]);
  assert.deepEqual({ ...rec.meta }, {
    pid: 4242, flags: 3, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12',
    profilerVersion: '0.1.0', startMono: 1_000_000_000, startUnixNs: 1_700_000_000_000_000_000n, attached: false,
    approximateCpu: false,
  });
  assert.deepEqual(rec.threads(), [{
    id: 1, osTid: 4243, clrThreadId: 0x7f0012345678, name: '', firstSeenMono: 1_000_000_100, lastSeenMono: 1_060_000_000, ended: true,
  }]);
  assert.deepEqual(rec.functions().map((f) => [f.id, f.kind, f.name, f.module, f.file]), [
    [INCOMPLETE_STACK_FUNCTION_ID, 2, '[incomplete stack]', '', ''],
    [1, 0, 'Demo.Work.Hot', 'Demo.dll', ''],
    [2, 1, 'start_thread', 'libc.so.6', ''],
    [3, 2, '[frames elided]', '', ''],
    [4, 0, 'Demo.Ünïcode+Nested<System.Int32>.Méthode', 'Demo.dll', 'Program.cs'],
  ]);
  assert.equal(rec.sampleCount, 3);
  const c = rec.sampleColumns();
  assert.deepEqual(Array.from(c.mono), [1_010_000_000, 1_020_000_000, 1_030_000_000]);
  assert.deepEqual(Array.from(c.threadId), [1, 1, 1]);
  assert.deepEqual(Array.from(c.cpuNs), [9_876_543, 0, 10_000_000]);
  assert.deepEqual(Array.from(c.wallNs), [10_000_000, 20_000_000, 0]);
  assert.deepEqual(Array.from(c.flags), [3, 6, 9]);
  // The incomplete sample had no frames: it becomes the synthetic root alone.
  assert.deepEqual(stacksOf(rec), [[1, 4, 2], [INCOMPLETE_STACK_FUNCTION_ID], [1, 3, 2]]);
  assert.deepEqual({ ...rec.stats }, { mono: 1_040_000_000, samples: 3, droppedRingFull: 1, droppedBufferFull: 2, droppedWatchdog: 0, droppedOther: 5 });
  assert.deepEqual({ ...rec.end }, { mono: 1_070_000_000, reason: 0 });
  assert.equal(rec.cut, false);
  assert.equal(rec.isFinished, true);
});

test('HELLO flag bit 2 means attached', () => {
  const rec = recordingFromStream([new WireEncoder().preamble().hello(hello).bytes()]);
  assert.equal(rec.meta?.attached, true);
});

test('HELLO flag bit 3 means approximate CPU (approximate-cpu.hex)', () => {
  const bytes = parseHexText(readFileSync(new URL('../../../structs/wire/fixtures/approximate-cpu.hex', import.meta.url), 'utf8'));
  const rec = recordingFromStream([bytes]);
  assert.equal(rec.meta?.approximateCpu, true);
  assert.equal(rec.meta?.attached, true);
  assert.equal(recordingFromStream([new WireEncoder().preamble().hello(hello).bytes()]).meta?.approximateCpu, false);
});

test('a stream without END is cut once finished; a live one is not', () => {
  const rec = new Recording();
  new WireDecoder(rec.sink).push(base().bytes());
  assert.equal(rec.cut, false);
  rec.finish();
  assert.equal(rec.cut, true);
  assert.throws(() => rec.sink.onStats({ mono: 1, samples: 0, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 }), RecordingError);
});

test('stacks are deduplicated; the incomplete flag appends the synthetic root', () => {
  const s = (frames: number[], flags = 1) => ({ mono: 2000, threadId: 1, flags, cpuNs: 10, wallNs: 0, frames });
  const bytes = base()
    .sample(s([1, 2, 3])).sample(s([1, 2])).sample(s([1, 2, 3])).sample(s([1, 2], 5)).sample(s([1, 2], 5)).sample(s([3, 2, 1]))
    .sample(s([1, 2, 3], 3))
    .bytes();
  const rec = recordingFromStream([bytes]);
  assert.deepEqual(Array.from(rec.sampleColumns().stackId), [0, 1, 0, 2, 2, 3, 0]);
  assert.equal(rec.stackCount, 4);
  assert.deepEqual(stacksOf(rec)[3], [1, 2, INCOMPLETE_STACK_FUNCTION_ID]);
  assert.deepEqual(Array.from(rec.sampleColumns().flags), [1, 1, 1, 5, 5, 1, 3]);
});

test('many distinct stacks survive table growth and rehashing intact', () => {
  const enc = base(500);
  const expected: number[][] = [];
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const distinct: number[][] = [];
  for (let i = 0; i < 3000; i++) distinct.push(Array.from({ length: 1 + rand(40) }, () => 1 + rand(500)));
  for (let i = 0; i < 20_000; i++) {
    const frames = distinct[rand(distinct.length)];
    expected.push(frames);
    enc.sample({ mono: 5000 + i, threadId: 1, flags: 2, cpuNs: 0, wallNs: i, frames });
  }
  const rec = recordingFromStream([enc.bytes()]);
  assert.equal(rec.sampleCount, 20_000);
  assert.deepEqual(stacksOf(rec), expected);
  assert.equal(rec.stackCount, new Set(expected.map((f) => f.join(','))).size);
  let visited = 0;
  rec.forEachSample((i, mono, threadId, stackId, cpuNs, wallNs, flags) => {
    assert.equal(i, visited++);
    assert.equal(mono, 5000 + i);
    assert.equal(threadId, 1);
    assert.equal(stackId, rec.sampleStackId(i));
    assert.equal(cpuNs, 0);
    assert.equal(wallNs, i);
    assert.equal(flags, 2);
  });
  assert.equal(visited, 20_000);
  // 32 768 slots * 33 bytes of columns alone; the estimate must at least cover them.
  assert.ok(rec.byteSize() >= 32_768 * 33, `byteSize ${rec.byteSize()}`);
});

test('thread renames keep the latest name; samples move lastSeenMono', () => {
  const rec = recordingFromStream([base()
    .sample({ mono: 3000, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [1] })
    .thread({ threadId: 1, osTid: 501, clrThreadId: 0x1000, mono: 3500, name: 'renamed' })
    .sample({ mono: 4000, threadId: 1, flags: 1, cpuNs: 5, wallNs: 0, frames: [1] })
    .bytes()]);
  assert.deepEqual(rec.thread(1), { id: 1, osTid: 501, clrThreadId: 0x1000, name: 'renamed', firstSeenMono: 1001, lastSeenMono: 4000, ended: false });
});

test('a sample naming an undefined thread is rejected', () => {
  expectRecordingError(base().sample({ mono: 1, threadId: 2, flags: 1, cpuNs: 1, wallNs: 0, frames: [1] }).bytes(), 'is a SAMPLE naming thread 2, which no THREAD record defined');
});

test('a v1 sample naming an undefined function is rejected, also inside a stack seen before', () => {
  expectRecordingError(base(4, 1).sample({ mono: 1, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [1, 9] }).bytes(), 'is a SAMPLE naming function 9, which no FUNCTION record defined');
  // The reserved id is not a wire function either.
  expectRecordingError(base(4, 1).sample({ mono: 1, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [INCOMPLETE_STACK_FUNCTION_ID] }).bytes(), `is a SAMPLE naming function ${INCOMPLETE_STACK_FUNCTION_ID}, which no FUNCTION record defined`);
  // The rejected stack was not stored: a second attempt is checked (and rejected) again.
  const rec = new Recording();
  new WireDecoder(rec.sink).push(base().bytes());
  assert.throws(() => rec.sink.onSample(1, 1, 1, 1, 0, new Uint32Array([1, 9])), RecordingError);
  assert.throws(() => rec.sink.onSample(1, 1, 1, 1, 0, new Uint32Array([1, 9])), RecordingError);
  assert.equal(rec.stackCount, 0);
  assert.equal(rec.sampleCount, 0);
});

test('records out of order or redefined are rejected', () => {
  const pre = () => new WireEncoder().preamble();
  expectRecordingError(pre().thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 1, name: '' }).bytes(), 'is a THREAD before the HELLO');
  expectRecordingError(pre().function({ functionId: 1, kind: 0, name: 'x', module: '', file: '' }).bytes(), 'is a FUNCTION before the HELLO');
  expectRecordingError(pre().hello(hello).hello(hello).bytes(), 'is a second HELLO');
  expectRecordingError(base().function({ functionId: 2, kind: 0, name: 'again', module: '', file: '' }).bytes(), 'is a FUNCTION redefining function 2');
  expectRecordingError(base().function({ functionId: INCOMPLETE_STACK_FUNCTION_ID, kind: 2, name: 'x', module: '', file: '' }).bytes(), 'is a FUNCTION with id 4294967295, which clrscope reserves for its [incomplete stack] frame');
  expectRecordingError(base().threadEnd({ threadId: 7, mono: 5 }).bytes(), 'is a THREAD_END for thread 7, which no THREAD record defined');
  expectRecordingError(base().end({ mono: 5, reason: 0 }).sample({ mono: 6, threadId: 1, flags: 1, cpuNs: 1, wallNs: 0, frames: [1] }).bytes(), 'follows the END record');
  expectRecordingError(base().end({ mono: 5, reason: 0 }).stats({ mono: 6, samples: 0, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 }).bytes(), 'follows the END record');
});

test('what was decoded before a corrupt record stays in the recording', () => {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  const bytes = base().sample({ mono: 2, threadId: 1, flags: 1, cpuNs: 7, wallNs: 0, frames: [2, 1] }).sample({ mono: 3, threadId: 5, flags: 1, cpuNs: 1, wallNs: 0, frames: [1] }).bytes();
  assert.throws(() => decoder.push(bytes), RecordingError);
  rec.finish();
  assert.equal(rec.sampleCount, 1);
  assert.equal(rec.sampleCpuNs(0), 7);
  assert.equal(rec.cut, true);
});

// ---- wire v2 ----

const basicV2Bytes = parseHexText(readFileSync(new URL('../../../structs/wire/fixtures/basic-v2.hex', import.meta.url), 'utf8'));

test('basic-v2.hex: modules, functions, frames, stacks through a STACK_RESET, samples with their stack flags, events', () => {
  const rec = recordingFromStream([basicV2Bytes]);
  assert.deepEqual(rec.modules(), [
    { id: 1, kind: 0, path: '/app/Demo.dll', mvid: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' },
    { id: 2, kind: 1, path: '/usr/lib/x86_64-linux-gnu/libc.so.6', mvid: '0'.repeat(32) },
  ]);
  assert.deepEqual(rec.functions().slice(1).map((f) => [f.id, f.name, f.module, f.moduleId, f.token]), [
    [1, 'Demo.Work.Hot', 'Demo.dll', 1, 0x06000001],
    [2, 'start_thread', 'libc.so.6', 2, 0],
    [3, '[frames elided]', '', 0, 0],
    [4, 'Demo.Ünïcode+Nested<System.Int32>.Méthode', 'Demo.dll', 1, 0x06000002],
  ]);
  assert.equal(rec.hasFrames, true);
  assert.deepEqual(rec.frameInfo(5), { id: 5, functionId: 1, offsetKind: 1, offset: 0x1c });
  assert.equal(rec.sampleCount, 7);
  const c = rec.sampleColumns();
  assert.deepEqual(Array.from(c.mono), [1_010_000_000, 1_010_000_000, 1_020_000_000, 1_020_000_000, 1_030_000_500, 1_030_000_500, 1_040_000_000]);
  assert.deepEqual(Array.from(c.threadId), [1, 2, 1, 1, 2, 2, 1]);
  assert.deepEqual(Array.from(c.cpuNs), [9_876_543, 0, 0, 10_000_000, 0, 5000, 10_000_000]);
  assert.deepEqual(Array.from(c.wallNs), [10_000_000, 10_000_000, 10_000_000, 0, 20_000_000, 0, 0]);
  assert.deepEqual(Array.from(c.flags), [3, 2, 2, 1 | 8, 2 | 4, 1 | 4, 1]);
  // Function ids per stack (frame 5 is function 1); the stack defined again after the reset is
  // the one the recording already had.
  assert.deepEqual(stacksOf(rec), [[1, 4, 2], [1, 4, 2], [1, 4, 2], [1, 3, 2], [INCOMPLETE_STACK_FUNCTION_ID], [INCOMPLETE_STACK_FUNCTION_ID], [1, 4, 2]]);
  assert.deepEqual(Array.from(c.stackId), [0, 1, 0, 2, 3, 3, 1]);
  assert.deepEqual(Array.from(rec.stackFrameIds(1)), [5, 4, 2]);
  assert.equal(rec.stackCount, 4);
  assert.equal(rec.stackFlags(2), 8);
  assert.deepEqual([...rec.strings()], [[1, 'System.Byte[]'], [2, 'System.InvalidOperationException']]);
  const e = rec.events();
  assert.equal(rec.eventCount, 3);
  assert.deepEqual(Array.from(e.kind), [1, 3, 2]);
  assert.deepEqual(Array.from(e.stackId), [0, 3, -1]);
  assert.deepEqual(Array.from(e.labelId), [1, 2, 0]);
  assert.deepEqual(Array.from(e.value1), [102_400, 1, 250_000]);
  assert.deepEqual(Array.from(e.value2), [3, 0, 0]);
  assert.deepEqual(rec.threads().map((t) => [t.id, t.ended, t.lastSeenMono]), [[1, true, 1_060_000_000], [2, true, 1_060_000_001]]);
  assert.deepEqual({ ...rec.end }, { mono: 1_070_000_000, reason: 1 });
});

test('v2 definitions that do not fit are rejected with the record named', () => {
  const pre = (): WireEncoder => new WireEncoder().preamble().hello(hello).thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 1, name: '' });
  expectRecordingError(pre().function({ functionId: 1, kind: 0, name: 'f', module: '', file: '', moduleId: 3 }).bytes(), 'is a FUNCTION naming module 3, which no MODULE record defined');
  expectRecordingError(pre().frame({ frameId: 1, functionId: 2, offsetKind: 0, offset: 0 }).bytes(), 'is a FRAME naming function 2, which no FUNCTION record defined');
  const withFrame = (): WireEncoder => pre().function({ functionId: 1, kind: 2, name: 'f', module: '', file: '' }).frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 });
  expectRecordingError(withFrame().frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 }).bytes(), 'is a FRAME redefining frame 1');
  expectRecordingError(withFrame().stack(1, 0, [1, 6]).bytes(), 'is a STACK naming frame 6, which no FRAME record defined');
  expectRecordingError(withFrame().stack(1, 0, [1]).stack(1, 0, [1, 1]).bytes(), 'is a STACK redefining stack 1');
  expectRecordingError(withFrame().stack(1, 0, [1]).stackSample(5, 1, 1, 1, 0, 2).bytes(), 'is a SAMPLES record naming stack 2, which no STACK record defined since the last STACK_RESET');
  expectRecordingError(withFrame().stack(1, 0, [1]).stackReset().stackSample(5, 1, 1, 1, 0, 1).bytes(), 'is a SAMPLES record naming stack 1, which no STACK record defined since the last STACK_RESET');
  expectRecordingError(withFrame().stack(1, 0, [1]).stackSample(5, 2, 1, 1, 0, 1).bytes(), 'is a SAMPLE naming thread 2, which no THREAD record defined');
  expectRecordingError(withFrame().event({ kind: 1, mono: 5, threadId: 1, stackId: 0, labelId: 4, value1: 1 }).bytes(), 'is an EVENTS record naming string 4, which no STRING record defined');
  // After a reset a stack id may be defined again, with other frames.
  const rec = recordingFromStream([withFrame().stack(1, 0, [1]).stackReset().stack(1, 4, [1]).stackSample(5, 1, 1, 1, 0, 1).bytes()]);
  assert.deepEqual(stacksOf(rec), [[1, INCOMPLETE_STACK_FUNCTION_ID]]);
  assert.deepEqual(Array.from(rec.sampleColumns().flags), [1 | 4]);
});

test('event-messages-v2.hex: each exception keeps its message', () => {
  const rec = recordingFromStream([parseHexText(readFileSync(new URL('../../../structs/wire/fixtures/event-messages-v2.hex', import.meta.url), 'utf8'))]);
  const e = rec.events();
  const text = (i: number): string | undefined => (e.messageId[i] === 0 ? undefined : rec.strings().get(e.messageId[i]));
  assert.deepEqual([0, 1, 2, 3].map(text), ['clrscope test', undefined, 'key \u00e9 7', undefined]);
  assert.equal(e.value1[3], 5);
});

test('an EVENT_MESSAGES record naming an undefined string or no event is rejected', () => {
  const start = (): WireEncoder => new WireEncoder().preamble()
    .hello({ pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.3.0' })
    .thread({ threadId: 1, osTid: 2, clrThreadId: 3, mono: 1, name: 't' })
    .string(1, 'System.Exception');
  const undefinedString = start().event({ kind: 3, mono: 2, threadId: 1, stackId: 0, labelId: 1, value1: 1, messageId: 9 }).bytes();
  assert.throws(() => recordingFromStream([undefinedString]), /EVENT_MESSAGES record naming string 9/);
});

test('dropBefore lets go of older samples, events and pauses; kept samples keep their async chains', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 3, flags: 0x13, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.0', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 1000, name: 'pool' })
    .function({ functionId: 1, kind: 0, name: 'A', module: 'App.dll', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .string(1, 'Op').task({ taskId: 4, awaiterId: 0, nameId: 1 })
    .stack(1, 0, [1]);
  // mono 2000..9000; the one at 3500 stamped late (after 5000); tasks on 2000, 3500 and 8000.
  for (const [mono, task] of [[2000, 4], [5000, 0], [3500, 4], [6000, 0], [7000, 0], [8000, 4], [9000, 0]]) enc.stackSample(mono, 1, 1, mono, 0, 1, task);
  enc.event({ kind: 1, mono: 2500, threadId: 1, stackId: 1, labelId: 1, value1: 10, value2: 1 });
  enc.event({ kind: 1, mono: 6500, threadId: 1, stackId: 1, labelId: 1, value1: 20, value2: 1, messageId: 1 });
  enc.suspension({ mono: 3000, durationNs: 5000, suspendNs: 10, reason: 1, generation: 0, flags: 0 });
  enc.suspension({ mono: 7500, durationNs: 100, suspendNs: 10, reason: 1, generation: 1, flags: 0 });
  const rec = recordingFromStream([enc.bytes()]);
  assert.equal(rec.keptFromMono, -Infinity);
  assert.equal(rec.dropBefore(5000), 2);
  assert.equal(rec.keptFromMono, 5000);
  assert.deepEqual(Array.from(rec.sampleColumns().mono), [5000, 6000, 7000, 8000, 9000]);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => rec.sampleAsyncChain(i) === 0 ? 0 : rec.asyncChain(rec.sampleAsyncChain(i))[0]), [0, 0, 0, 1, 0]);
  assert.deepEqual(Array.from(rec.events().mono), [6500]);
  assert.deepEqual(Array.from(rec.events().messageId), [1], 'a kept event keeps its message');
  assert.deepEqual(rec.suspensions().map((s) => s.mono), [7500]);
  // A cut at or before the last one changes nothing; the columns shrink to what they are asked.
  assert.equal(rec.dropBefore(4000), 0);
  rec.resizeSamples(2);
  assert.equal(rec.sampleCapacity, 5);
  assert.equal(rec.threads().length, 1);
  assert.equal(rec.stackCount, 1);
});

test('dropBefore keeps the operation counts of the kept samples, at their new indexes', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 3, flags: 0x13, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.0', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 0, clrThreadId: 0, mono: 1000, name: '[async operations]' })
    .function({ functionId: 1, kind: 2, name: '[suspended]', module: '', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .string(1, 'Op').task({ taskId: 4, awaiterId: 0, nameId: 1 })
    .stack(1, 0, [1]);
  // Counts on 2000 (dropped), 3000 and 4000 (kept, moved) and 6000; 4500 has a task and no count.
  for (const [mono, count] of [[2000, 5], [3000, 3], [1500, 0], [4000, 2], [4500, 0], [6000, 1]]) enc.stackSample(mono, 1, 2, 0, 10, 1, 4, count);
  const rec = recordingFromStream([enc.bytes()]);
  const counts = (): number[] => Array.from({ length: rec.sampleCount }, (_, i) => rec.sampleOperations(i));
  assert.deepEqual(counts(), [5, 3, 0, 2, 0, 1]);
  assert.equal(rec.dropBefore(2500), 2);
  assert.deepEqual(Array.from(rec.sampleColumns().mono), [3000, 4000, 4500, 6000]);
  assert.deepEqual(counts(), [3, 2, 0, 1]);
  // The oldest goes: every later sample moves one down, its count with it.
  assert.equal(rec.dropBefore(3500), 1);
  assert.deepEqual(counts(), [2, 0, 1]);
  assert.equal(rec.dropBefore(7000), 3);
  assert.deepEqual(counts(), []);
  assert.equal(rec.sampleOperations(0), 0);
});

test('a kept window\'s cut between an EVENTS record and its EVENT_MESSAGES leaves each message on its event', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 3, flags: 3, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.0', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 1000, name: 'main' })
    .function({ functionId: 1, kind: 0, name: 'A', module: 'App.dll', file: '' })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .stack(1, 0, [1])
    .string(1, 'System.Exception').string(2, 'old').string(3, 'new')
    .stackSample(2000, 1, 1, 1, 0, 1);
  for (const [mono, messageId] of [[2500, 2], [9000, 0], [9100, 3]]) enc.event({ kind: 3, mono, threadId: 1, stackId: 1, labelId: 1, value1: 1, messageId });
  const bytes = enc.end({ mono: 9500, reason: 0 }).bytes();
  // Where the EVENT_MESSAGES record starts: records are u32 length, u8 type.
  let at = 16;
  while (bytes[at + 4] !== RecordType.EventMessages) at += 4 + new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  decoder.push(bytes.subarray(0, at));
  assert.equal(rec.dropBefore(3000), 1);
  decoder.push(bytes.subarray(at));
  decoder.end();
  const e = rec.events();
  assert.deepEqual(Array.from(e.mono), [9000, 9100]);
  assert.deepEqual(Array.from(e.messageId, (id) => (id === 0 ? null : rec.strings().get(id))), [null, 'new']);
});
