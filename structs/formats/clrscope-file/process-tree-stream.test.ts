import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MeasureReader } from '../../measure/measurements.js';
import { asyncFixtureStream, asyncSuspendedFixtureStream } from '../../profile/async-fixture-stream.test-support.js';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { FIXTURE_START_MONO, fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { mergeProcesses } from '../../profile/merge-processes.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { WireEncoder } from '../../wire/encoder.js';
import { parseHexText } from '../../wire/hex-text.js';
import { MeasureRecordType } from '../../wire/measure-records.js';
import { EventFlags, FunctionKind } from '../../wire/records.js';
import { RecordingFileReader } from './open-recording.js';
import { dumpRecording } from '../../profile/recording-dump.js';
import { ProcessTreeStream } from './process-tree-stream.js';
import { REQUESTS } from '../../wire/timeline/requests.js';

const PARENT = 4321;
const CHILD = 777;
const names = (pid: number): string => (pid === PARENT ? 'dotnet' : '');

/** A child process's stream: its ids overlap the fixture's (thread 1, function 1, stack 1, string 1) on purpose, and it shares the fixture's Main. */
function childStream(options: { end?: boolean } = {}): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: CHILD, flags: 3, mono: FIXTURE_START_MONO + 500, unixNs: 1_700_000_000_500_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0' })
    .module({ moduleId: 1, kind: 0, mvid: '0'.repeat(32), path: '/app/Child.dll' })
    .function({ functionId: 1, kind: FunctionKind.Managed, name: 'Child.Program.Main', module: '', file: '', moduleId: 1, token: 0x06000001 })
    .function({ functionId: 2, kind: FunctionKind.Managed, name: 'Child.Work.HashAlpha', module: '', file: '', moduleId: 1, token: 0x06000002 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .frame({ frameId: 2, functionId: 2, offsetKind: 0, offset: 0 })
    .thread({ threadId: 1, osTid: 901, clrThreadId: 1, mono: FIXTURE_START_MONO + 500, name: 'main' })
    .thread({ threadId: 2, osTid: 902, clrThreadId: 2, mono: FIXTURE_START_MONO + 600, name: '' })
    .string(1, 'System.Byte[]')
    .stack(1, 0, [2, 1])
    .stackSample(FIXTURE_START_MONO + 1500, 1, 1, 11, 0, 1)
    .stackSample(FIXTURE_START_MONO + 2500, 2, 1, 13, 0, 1)
    .event({ kind: 1, mono: FIXTURE_START_MONO + 2600, threadId: 1, stackId: 1, labelId: 1, value1: 4096 })
    .suspension({ mono: FIXTURE_START_MONO + 3000, durationNs: 100, suspendNs: 10, reason: 1, generation: 0, flags: 0 })
    .stats({ mono: FIXTURE_START_MONO + 9000, samples: 2, droppedRingFull: 1, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 });
  if (options.end !== false) enc.end({ mono: FIXTURE_START_MONO + 9100, reason: 0 });
  return enc.bytes().slice();
}

/** A dump without frame ids: the merge numbers frames in the order their functions' first frames come. */

/** Deterministic chunk sizes (1..97 bytes), so records and their headers straddle chunks everywhere. */
function split(bytes: Uint8Array, seed: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let s = seed;
  for (let at = 0; at < bytes.length;) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const n = 1 + (s % 97);
    out.push(bytes.slice(at, at + n));
    at += n;
  }
  return out;
}

/** Feeds the streams' chunks to one ProcessTreeStream, alternating between them, and reads the merged stream back. */
function mergeLive(streams: Uint8Array[][], end: Recording['end'], onFailure?: (pid: number | undefined, sentence: string) => void): { bytes: Uint8Array; rec: Recording } {
  const tree = new ProcessTreeStream({ nameOf: names, onFailure });
  const keys = streams.map((_, i) => ({ i }));
  const out: Uint8Array[] = [];
  const next = streams.map(() => 0);
  for (let more = true; more;) {
    more = false;
    streams.forEach((chunks, k) => {
      if (next[k] >= chunks.length) return;
      out.push(tree.push(keys[k], chunks[next[k]++]));
      more = true;
    });
  }
  keys.forEach((key) => out.push(tree.endSource(key)));
  out.push(tree.finish(end));
  const bytes = new Uint8Array(out.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of out) {
    bytes.set(c, at);
    at += c.length;
  }
  const reader = new RecordingFileReader();
  reader.push(bytes);
  return { bytes, rec: reader.finish().recording };
}

test('two processes\' streams, interleaved in pieces, read back as merge-processes merges their recordings', () => {
  const parent = fixtureStream();
  const child = childStream();
  const { rec } = mergeLive([split(parent, 1), split(child, 2)], recordingFromStream([parent]).end);
  const expected = mergeProcesses([
    { process: { pid: PARENT, name: 'dotnet' }, recording: recordingFromStream([parent]) },
    { process: { pid: CHILD, name: '' }, recording: recordingFromStream([child]) },
  ]);
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), toCollapsed(expected, { metric: 'cpu', groupByThread: true }));
  assert.equal(toCollapsed(rec, { metric: 'wall', groupByThread: true }), toCollapsed(expected, { metric: 'wall', groupByThread: true }));
  assert.deepEqual(rec.processes().map((p) => [p.pid, p.name]), [[PARENT, 'dotnet'], [CHILD, '']]);
  assert.deepEqual(rec.threads().map((t) => [t.name, rec.processOf(t.id)?.pid]).sort(), expected.threads().map((t) => [t.name, expected.processOf(t.id)?.pid]).sort());
  assert.equal(rec.meta?.pid, PARENT, 'the first stream\'s HELLO is the recording\'s');
  assert.deepEqual(rec.end, expected.end);
  assert.equal(rec.sampleCount, expected.sampleCount);
  assert.equal(rec.suspensions().length, 1);
  assert.equal(rec.stats?.droppedRingFull, 1);
  assert.equal(rec.stats?.samples, expected.stats?.samples, 'STATS summed over the processes');
  // Child.Program.Main and the fixture's functions are defined once each; the child's event keeps its stack and label.
  const e = rec.events();
  assert.equal(rec.eventCount, 1);
  assert.equal(rec.processOf(e.threadId[0])?.pid, CHILD);
  assert.equal(rec.strings().get(e.labelId[0]), 'System.Byte[]');
  assert.ok((e.flags[0] & EventFlags.HasStack) !== 0);
  assert.deepEqual(Array.from(rec.stackFrames(e.stackId[0]), (f) => rec.functionInfo(f)?.name), ['Child.Work.HashAlpha', 'Child.Program.Main']);
});

test('the first process alone: the merged stream is its own bytes, byte for byte', () => {
  const parent = fixtureStream();
  const { rec, bytes } = mergeLive([split(parent, 3)], recordingFromStream([parent]).end);
  assert.ok(Buffer.from(bytes).equals(Buffer.from(parent)));
  assert.equal(dumpRecording(rec), dumpRecording(recordingFromStream([parent])));
  // Without its END (a stopped session): nothing is made up; the session's model says how it ended.
  const cut = fixtureStream({ end: false });
  assert.ok(Buffer.from(mergeLive([split(cut, 4)], { mono: 1, reason: 3 }).bytes).equals(Buffer.from(cut)));
});

test('a first process alone whose stream turns corrupt: its bytes pass as they came, so readers stop where they would without children', () => {
  const good = fixtureStream({ end: false });
  const bad = Uint8Array.from([...good, 0, 0, 0, 0, 9, 9]);
  const failures: string[] = [];
  const tree = new ProcessTreeStream({ nameOf: names, onFailure: (_pid, sentence) => failures.push(sentence) });
  const key = {};
  const out = [...split(bad, 11).flatMap((c) => [...tree.push(key, c)]), ...tree.finish(undefined)];
  assert.ok(Buffer.from(out).equals(Buffer.from(bad)));
  assert.equal(failures.length, 1);
  assert.match(failures[0], /^Corrupt clrscope stream: the record at byte \d+ declares a length of 0/);
});

test('a second process joining after the first one\'s END: its END, held back, ends the merged stream', () => {
  const parent = fixtureStream();
  const child = childStream();
  const { rec } = mergeLive([[parent], split(child, 6)], recordingFromStream([parent]).end);
  const expected = mergeProcesses([
    { process: { pid: PARENT, name: 'dotnet' }, recording: recordingFromStream([parent]) },
    { process: { pid: CHILD, name: '' }, recording: recordingFromStream([child]) },
  ]);
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), toCollapsed(expected, { metric: 'cpu', groupByThread: true }));
  assert.deepEqual(rec.end, expected.end);
  assert.equal(rec.cut, false);
});

test('taken over after a STACK_RESET of the first process, mid-record: its stacks and the other\'s read back right', () => {
  const bytes = parseHexText(readFileSync(new URL('../../../../structs/wire/fixtures/basic-v2.hex', import.meta.url), 'utf8'));
  const own = recordingFromStream([bytes]);
  const child = childStream();
  for (const seed of [7, 8, 9]) {
    const parentChunks = split(bytes, seed);
    // The child connects after a few of the first process's chunks, halfway, or near its end (past its STACK_RESET).
    const after = [1, parentChunks.length >> 1, parentChunks.length - 2][seed - 7];
    const { rec } = mergeLive([parentChunks, [...new Array<Uint8Array>(after).fill(new Uint8Array(0)), ...split(child, seed + 10)]], own.end);
    const expected = mergeProcesses([
      { process: { pid: own.meta?.pid ?? 0, name: names(own.meta?.pid ?? 0) }, recording: own },
      { process: { pid: CHILD, name: '' }, recording: recordingFromStream([child]) },
    ]);
    for (const metric of ['cpu', 'wall'] as const) {
      assert.equal(toCollapsed(rec, { metric, groupByThread: true }), toCollapsed(expected, { metric, groupByThread: true }), `seed ${seed} ${metric}`);
    }
    assert.equal(rec.eventCount, expected.eventCount);
  }
});

test('a second process joining later names the first one\'s threads again, prefixed, and lists them in PROCESS records', () => {
  const parent = fixtureStream({ end: false });
  const child = childStream();
  const tree = new ProcessTreeStream({ nameOf: names });
  const parentKey = {};
  const childKey = {};
  const reader = new RecordingFileReader();
  reader.push(tree.push(parentKey, parent));
  assert.equal(reader.recording.processes().length, 0);
  assert.ok(reader.recording.threads().every((t) => !t.name.startsWith('[')));
  reader.push(tree.push(childKey, child));
  assert.ok(tree.hasSeveralProcesses);
  reader.push(tree.finish(undefined));
  const rec = reader.finish().recording;
  assert.deepEqual(rec.processes().map((p) => p.pid), [PARENT, CHILD]);
  for (const t of rec.threads()) {
    const p = rec.processOf(t.id);
    assert.ok(p !== undefined, `thread ${t.id} has its process`);
    assert.ok(t.name.startsWith(p.pid === PARENT ? '[4321 dotnet] ' : '[777] '), t.name);
  }
  assert.equal(rec.cut, true, 'no END given: the recording reads as cut');
});

test('async stacks survive: every sample keeps its task chain, with TASK_SAMPLES split from its SAMPLES record', () => {
  const stream = asyncFixtureStream();
  const own = recordingFromStream([stream]);
  // One byte a chunk: a TASK_SAMPLES record always arrives in a later chunk than its samples.
  const ones = Array.from(stream, (b) => Uint8Array.of(b));
  const { rec } = mergeLive([ones], own.end);
  const chains = (r: Recording): string[] => Array.from({ length: r.sampleCount }, (_, i) => Array.from(r.asyncChain(r.sampleAsyncChain(i)), (s) => r.strings().get(s) ?? '?').join('<'));
  assert.deepEqual(chains(rec), chains(own));
  assert.equal(dumpRecording(rec).replace(/^(string|function|frame|module) .*\n/gm, ''), dumpRecording(own).replace(/^(string|function|frame|module) .*\n/gm, ''));
});

test('suspended operations\' counts survive, with OPERATION_COUNTS split from its SAMPLES record', () => {
  const stream = asyncSuspendedFixtureStream([4, 2, 1]);
  const own = recordingFromStream([stream]);
  const { rec } = mergeLive([Array.from(stream, (b) => Uint8Array.of(b))], own.end);
  const counts = (r: Recording): number[] => Array.from({ length: r.sampleCount }, (_, i) => r.sampleOperations(i));
  assert.deepEqual(counts(own).filter((n) => n !== 0), [4, 2, 1]);
  assert.deepEqual(counts(rec), counts(own));
});

test('a stream with a STACK_RESET reads back the same', () => {
  const bytes = parseHexText(readFileSync(new URL('../../../../structs/wire/fixtures/basic-v2.hex', import.meta.url), 'utf8'));
  const own = recordingFromStream([bytes]);
  const { rec } = mergeLive([split(bytes, 5)], own.end);
  assert.equal(toCollapsed(rec, { metric: 'cpu', groupByThread: true }), toCollapsed(own, { metric: 'cpu', groupByThread: true }));
  assert.equal(rec.eventCount, own.eventCount);
});

test('the first process\'s measuring records go into the merged stream, before and after a second one joins', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: PARENT, flags: 3, mono: 1, unixNs: 1n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' })
    .raw(MeasureRecordType.ControlReady, [1, 0, 0, 16, 0, 0]);
  const before = enc.takeBytes(true);
  // A reply (request 7, status 0, 2 methods, message "ok") after the child connected.
  const after = enc.raw(MeasureRecordType.Reply, [7, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0x6f, 0x6b]).takeBytes(true);
  const { bytes } = mergeLive([[before, new Uint8Array(0), after], [childStream()]], undefined);
  const reader = new MeasureReader();
  reader.push(bytes);
  assert.equal(reader.measurements.controlReady?.maxCommandBytes, 4096);
  assert.equal(reader.measurements.reply(7)?.matched, 2);
});

test('a process whose stream names what it never defined stops being merged; the others go on', () => {
  const parent = fixtureStream();
  // A sample of stack 9, which the child never defined, then more the merge must not take.
  const bad = new WireEncoder().preamble()
    .hello({ pid: CHILD, flags: 3, mono: FIXTURE_START_MONO, unixNs: 1n, intervalNs: 1, wallThreadsPerTick: 1, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 901, clrThreadId: 1, mono: FIXTURE_START_MONO, name: 'main' })
    .stackSample(FIXTURE_START_MONO + 10, 1, 1, 5, 0, 9)
    .bytes().slice();
  const failures: string[] = [];
  const { rec } = mergeLive([[parent], [bad]], recordingFromStream([parent]).end, (pid, sentence) => failures.push(`${pid}: ${sentence}`));
  assert.equal(failures.length, 1);
  assert.match(failures[0], /^777: The record at byte \d+ of process 777's stream names stack 9, which it never defined since its last STACK_RESET\. That process is merged no further; what it sent before is kept\.$/);
  assert.equal(rec.sampleCount, recordingFromStream([parent]).sampleCount);
  assert.ok(rec.threads().some((t) => t.name === '[777] main'), 'the child\'s thread, defined before the bad record, is kept');
});

test('exceptions keep their messages when written again, whatever chunk their EVENT_MESSAGES record comes in', () => {
  const parent = fixtureStream();
  const enc = new WireEncoder().preamble()
    .hello({ pid: CHILD, flags: 3, mono: FIXTURE_START_MONO + 500, unixNs: 1_700_000_000_500_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0' })
    .function({ functionId: 1, kind: FunctionKind.Managed, name: 'Child.Program.Main', module: 'Child.dll', file: '', moduleId: 0, token: 0x06000001 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .thread({ threadId: 1, osTid: 901, clrThreadId: 1, mono: FIXTURE_START_MONO + 500, name: 'main' })
    .string(1, 'System.ArgumentException').string(2, 'clrscope test').string(3, 'key 7')
    .stack(1, 0, [1]);
  const messages = [2, 0, 3, 2];
  messages.forEach((messageId, k) => enc.event({ kind: 3, mono: FIXTURE_START_MONO + 1000 + k, threadId: 1, stackId: 1, labelId: 1, value1: 1, messageId }));
  enc.stackSample(FIXTURE_START_MONO + 1500, 1, 1, 11, 0, 1);
  enc.event({ kind: 3, mono: FIXTURE_START_MONO + 1600, threadId: 1, stackId: 1, labelId: 1, value1: 1, messageId: 3 });
  const child = enc.end({ mono: FIXTURE_START_MONO + 9100, reason: 0 }).bytes().slice();
  for (const chunks of [Array.from(child, (b) => Uint8Array.of(b)), split(child, 3)]) {
    const { rec } = mergeLive([split(parent, 1), chunks], recordingFromStream([parent]).end);
    const e = rec.events();
    const got: (string | null)[] = [];
    for (let i = 0; i < e.kind.length; i++) if (rec.processOf(e.threadId[i])?.pid === CHILD) got.push(e.messageId[i] === 0 ? null : rec.strings().get(e.messageId[i]) ?? '?');
    assert.deepEqual(got, ['clrscope test', null, 'key 7', 'clrscope test', 'key 7']);
  }
});

/** Per sample, in each process's order: its process and the endpoint of the request its mark names ('none': not in the recording). */
function marked(r: Recording): string[] {
  const endpoint = new Map(r.timeline(REQUESTS).map((q) => [q.seq, r.strings().get(q.endpoint)]));
  const c = r.sampleColumns();
  const out = Array.from({ length: r.sampleCount }, (_, i) => {
    const seq = r.requestSeqOf(i);
    return `${r.processOf(c.threadId[i])?.pid ?? r.meta?.pid}:${seq === 0 ? '-' : endpoint.get(seq) ?? 'none'}`;
  });
  return out.sort((a, b) => Number(a.split(':')[0]) - Number(b.split(':')[0]));
}

test('request marks survive, with REQUEST_SAMPLES split from its SAMPLES record, and two processes\' seqs stay apart', async () => {
  const { requestFixtureStream } = await import('../../profile/request-fixture-stream.test-support.js');
  const a = requestFixtureStream(5);
  const b = requestFixtureStream(6);
  const ones = (bytes: Uint8Array): Uint8Array[] => Array.from(bytes, (x) => Uint8Array.of(x));
  const own = recordingFromStream([a]);
  // Alone, its bytes pass as they are.
  const alone = mergeLive([ones(a)], own.end).rec;
  assert.equal(dumpRecording(alone), dumpRecording(own));
  const { rec } = mergeLive([ones(a), split(b, 5)], own.end);
  const expected = ['5:/a', '5:/a', '5:/b', '5:-', '5:none', '6:/a', '6:/a', '6:/b', '6:-', '6:none'];
  assert.deepEqual(marked(rec), expected);
  assert.deepEqual(marked(mergeProcesses([
    { process: { pid: 5, name: '' }, recording: own },
    { process: { pid: 6, name: '' }, recording: recordingFromStream([b]) },
  ])), expected);
  assert.equal(new Set(rec.timeline(REQUESTS).map((q) => q.seq)).size, 4);
  // The first process's marks and first REQUEST passed as its own bytes before the second joined:
  // its seqs stay its own, and the second's are numbered above them.
  const late = mergeLive([[a.subarray(0, a.length - 80), a.subarray(a.length - 80)], split(b, 6)], own.end).rec;
  assert.deepEqual(marked(late), expected);
  assert.deepEqual(late.timeline(REQUESTS).map((q) => q.seq).sort((x, y) => x - y), [1, 2, 4, 5]);
});

test('a request\'s backfilled samples are its own in the merge too, counted back among every process\'s samples', async () => {
  const { requestFixtureStream } = await import('../../profile/request-fixture-stream.test-support.js');
  const a = requestFixtureStream(5, [], true);
  const b = requestFixtureStream(6, [], true);
  const own = recordingFromStream([a]);
  const expected = ['5:/a', '5:/a', '5:/b', '5:/b', '5:none', '6:/a', '6:/a', '6:/b', '6:/b', '6:none'];
  assert.deepEqual(marked(mergeLive([split(a, 3), split(b, 4)], own.end).rec), expected);
  // The first process's bytes passed on whole before the second joined.
  assert.deepEqual(marked(mergeLive([[a], split(b, 5)], own.end).rec), expected);
  assert.deepEqual(marked(mergeProcesses([
    { process: { pid: 5, name: '' }, recording: own },
    { process: { pid: 6, name: '' }, recording: recordingFromStream([b]) },
  ])), expected);
});

test('request windows name their process, as merge-processes names them, whether the first process\'s passed as its own bytes or not', async () => {
  const { requestFixtureStream } = await import('../../profile/request-fixture-stream.test-support.js');
  const { REQUEST_WINDOWS } = await import('../../wire/timeline/request-windows.js');
  const { requestTracking } = await import('../../analysis/request-tracking.js');
  const a = requestFixtureStream(5, [{ startMono: 0, endMono: 10, begun: 3, cut: 1, maxPerS: 83 }, { startMono: 100, endMono: 110, begun: 2, cut: 0, maxPerS: 83 }]);
  const b = requestFixtureStream(6, [{ startMono: 0, endMono: 700, begun: 2, cut: 0, maxPerS: 0 }]);
  const own = recordingFromStream([a]);
  const expected = mergeProcesses([
    { process: { pid: 5, name: '' }, recording: own },
    { process: { pid: 6, name: '' }, recording: recordingFromStream([b]) },
  ]);
  const pids = (r: Recording): number[] => r.timeline(REQUEST_WINDOWS).map((w) => (w.pid === 0 ? r.meta?.pid ?? 0 : w.pid)).sort();
  const { rec } = mergeLive([split(a, 7), split(b, 8)], own.end);
  assert.deepEqual(pids(rec), [5, 5, 6]);
  assert.deepEqual(requestTracking(rec), requestTracking(expected));
  // The first process's whole stream passed as its own bytes before the second joined: its windows say pid 0, its own.
  const late = mergeLive([[a], split(b, 9)], own.end).rec;
  assert.deepEqual(late.timeline(REQUEST_WINDOWS).map((w) => w.pid).sort(), [0, 0, 6]);
  assert.deepEqual(requestTracking(late), requestTracking(expected));
});
