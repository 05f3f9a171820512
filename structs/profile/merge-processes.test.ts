import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openRecording } from '../formats/clrscope-file/open-recording.js';
import { dumpRecording } from './recording-dump.js';
import { saveRecording } from '../formats/clrscope-file/save-recording.js';
import { WireEncoder } from '../wire/encoder.js';
import { EventFlags, EventKind, FunctionKind } from '../wire/records.js';
import { toCollapsed } from '../formats/collapsed/to-collapsed.js';
import { FIXTURE_START_MONO, fixtureStream } from './fixture-stream.test-support.js';
import { mergeProcesses, processPrefix } from './merge-processes.js';
import { recordingFromStream } from './recording-from-stream.js';
import type { Recording } from './recording.js';

/** A child process's stream: its ids overlap the fixture's (thread 1, function 1, stack 1, string 1) on purpose. */
function childRecording(): Recording {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 777, flags: 3, mono: FIXTURE_START_MONO + 500, unixNs: 1_700_000_000_500_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0' })
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
    .stats({ mono: FIXTURE_START_MONO + 9000, samples: 2, droppedRingFull: 1, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 })
    .end({ mono: FIXTURE_START_MONO + 9100, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}

function merged(): Recording {
  return mergeProcesses([
    { process: { pid: 4321, name: 'dotnet' }, recording: recordingFromStream([fixtureStream()]) },
    { process: { pid: 777, name: '' }, recording: childRecording() },
  ]);
}

test('each process keeps its own stacks under its own thread names', () => {
  const rec = merged();
  const text = toCollapsed(rec, { metric: 'cpu', groupByThread: true });
  const parent = toCollapsed(recordingFromStream([fixtureStream()]), { metric: 'cpu', groupByThread: true });
  // The parent's lines, each thread name prefixed, then the child's: nothing of one process lands in the other.
  const expected = [
    ...parent.trimEnd().split('\n').map((l) => `[4321 dotnet] ${l}`),
    '[777] main;Child.Program.Main;Child.Work.HashAlpha 11',
    '[777] thread 902;Child.Program.Main;Child.Work.HashAlpha 13',
  ].sort();
  assert.deepEqual(text.trimEnd().split('\n').sort(), expected);
  assert.equal(rec.meta?.pid, 4321);
  assert.deepEqual(rec.processes().map((p) => [p.pid, p.name]), [[4321, 'dotnet'], [777, '']]);
  for (const t of rec.threads()) assert.ok(t.name.startsWith(processPrefix(rec.processOf(t.id) ?? { pid: -1, name: '' })), t.name);
  assert.equal(rec.sampleCount, 10);
  assert.equal(rec.stats?.droppedRingFull, 1);
  assert.equal(rec.suspensions().length, 1);
});

test('samples of all processes come in one time order, events keep their stack and label', () => {
  const rec = merged();
  const mono = rec.sampleColumns().mono;
  for (let i = 1; i < mono.length; i++) assert.ok(mono[i] >= mono[i - 1], `sample ${i} goes back in time`);
  const e = rec.events();
  assert.equal(rec.eventCount, 1);
  assert.equal(rec.processOf(e.threadId[0])?.pid, 777);
  assert.equal(rec.strings().get(e.labelId[0]), 'System.Byte[]');
  assert.ok((e.flags[0] & EventFlags.HasStack) !== 0);
  assert.deepEqual(Array.from(rec.stackFrames(e.stackId[0]), (f) => rec.functionInfo(f)?.name), ['Child.Work.HashAlpha', 'Child.Program.Main']);
});

test('events of no thread (exceptions counted past the stack budget) stay events of no thread', () => {
  // PowerShell under `record --children --exceptions on` throws past the profiler's stack budget:
  // the merge named these events' thread "undefined" and `record` ended in an internal error.
  const child = new WireEncoder().preamble()
    .hello({ pid: 778, flags: 3, mono: FIXTURE_START_MONO + 500, unixNs: 1_700_000_000_500_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0' })
    .thread({ threadId: 1, osTid: 911, clrThreadId: 1, mono: FIXTURE_START_MONO + 500, name: 'main' })
    .string(1, 'System.InvalidOperationException')
    .event({ kind: EventKind.Exception, mono: FIXTURE_START_MONO + 700, threadId: 0, stackId: 0, labelId: 1, value1: 25 })
    .end({ mono: FIXTURE_START_MONO + 900, reason: 0 });
  const rec = mergeProcesses([
    { process: { pid: 4321, name: 'dotnet' }, recording: recordingFromStream([fixtureStream()]) },
    { process: { pid: 778, name: 'pwsh' }, recording: recordingFromStream([child.bytes()]) },
  ]);
  const e = rec.events();
  assert.equal(rec.eventCount, 1);
  assert.equal(e.threadId[0], 0);
  assert.equal(e.value1[0], 25);
  assert.equal(rec.strings().get(e.labelId[0]), 'System.InvalidOperationException');
  assert.equal(e.flags[0] & EventFlags.HasStack, 0);
});

test('a .clrscope file keeps the process table, and opens to the same recording', () => {
  const rec = merged();
  const bytes = saveRecording(rec);
  const opened = openRecording(bytes).recording;
  assert.equal(dumpRecording(opened), dumpRecording(rec));
  assert.match(dumpRecording(opened), /^process 777 '': threads \d+,\d+$/m);
  // One process: no PROCESS record, the file is what it was before multi-process recordings.
  const single = recordingFromStream([fixtureStream()]);
  assert.equal(countProcessRecords(saveRecording(single)), 0);
  assert.equal(countProcessRecords(bytes), 2);
});

test('a PROCESS record naming an undefined thread is a corrupt file, in one sentence', () => {
  const bytes = saveRecording(merged());
  const at = processRecordOffsets(bytes)[0];
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const nameLength = view.getUint32(at + 5 + 4, true);
  view.setUint32(at + 5 + 12 + nameLength, 9999, true);
  assert.throws(() => openRecording(bytes), /^WireFormatError: Corrupt clrscope file: the PROCESS record at byte \d+ gives process 4321 thread 9999, which no THREAD record defined\.$/);
});

/** Offsets of PROCESS records, found by walking the framing (16-byte preamble, then u32 length + type). */
function processRecordOffsets(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: number[] = [];
  for (let at = 16; at + 5 <= bytes.length; at += 4 + view.getUint32(at, true)) if (bytes[at + 4] === 0x31) found.push(at);
  return found;
}

function countProcessRecords(bytes: Uint8Array): number {
  return processRecordOffsets(bytes).length;
}

test('a method two processes both ran is one function, so views merging by method merge across processes', () => {
  const one = recordingFromStream([fixtureStream()]);
  const two = mergeProcesses([
    { process: { pid: 1, name: 'dotnet' }, recording: recordingFromStream([fixtureStream()]) },
    { process: { pid: 2, name: 'dotnet' }, recording: recordingFromStream([fixtureStream()]) },
  ]);
  assert.equal(two.functions().length, one.functions().length);
  assert.equal(two.modules().length, one.modules().length);
  const doubled = toCollapsed(one, { metric: 'cpu' }).trimEnd().split('\n').map((l) => l.replace(/ (\d+)$/, (_m, n: string) => ` ${2 * Number(n)}`));
  assert.deepEqual(toCollapsed(two, { metric: 'cpu' }).trimEnd().split('\n'), doubled);
  assert.equal(two.threads().length, 2 * one.threads().length);
});

test('async chains of every process survive the merge (strings renumbered) and a save and reopen', async () => {
  const { asyncFixtureStream } = await import('./async-fixture-stream.test-support.js');
  const { AsyncSource } = await import('../analysis/async-source.js');
  const asyncPart = recordingFromStream([asyncFixtureStream()]);
  // The async process second, so its string ids are renumbered after the fixture's and the child's.
  const rec = mergeProcesses([
    { process: { pid: 4321, name: 'dotnet' }, recording: childRecording() },
    { process: { pid: 9, name: 'api' }, recording: asyncPart },
  ]);
  const chains = (r: Recording): string[] => {
    const src = new AsyncSource(r);
    const c = src.sampleColumns();
    const out: string[] = [];
    for (let i = 0; i < c.stackId.length; i++) {
      const names = Array.from(src.stackFrames(c.stackId[i])).reverse().map((f) => src.functionInfo(f)?.name ?? '?');
      if (names[0].startsWith('[await]')) out.push(`${names.join(';')} ${c.cpuNs[i]}`);
    }
    return out;
  };
  const expected = ['[await] Demo.Api.Outer;[await] Demo.Db.Middle;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 100'];
  assert.deepEqual(chains(asyncPart), expected);
  assert.deepEqual(chains(rec), expected);
  assert.deepEqual(chains(openRecording(saveRecording(rec)).recording), expected);
});

test('each process\'s request seqs get merged seqs of their own, the samples\' marks and the REQUESTs alike', async () => {
  const { requestFixtureStream } = await import('./request-fixture-stream.test-support.js');
  const { REQUESTS } = await import('../wire/timeline/requests.js');
  const { requestsOf, sampleRequests } = await import('../analysis/requests.js');
  // Two processes with the same seqs (each numbers its requests from 1) and the same times.
  const rec = mergeProcesses([
    { process: { pid: 5, name: 'web' }, recording: recordingFromStream([requestFixtureStream(5)]) },
    { process: { pid: 6, name: 'web' }, recording: recordingFromStream([requestFixtureStream(6)]) },
  ]);
  const c = rec.sampleColumns();
  const pidOf = (i: number): number | undefined => rec.processOf(c.threadId[i])?.pid;
  // Equal times keep the parts' order: each tick has process 5's sample, then process 6's. A seq
  // is numbered at its first sight, a sample's mark before its REQUEST.
  const marks = Array.from({ length: rec.sampleCount }, (_, i) => `${pidOf(i)}:${rec.requestSeqOf(i)}`);
  assert.deepEqual(marks, ['5:1', '6:2', '5:1', '6:2', '5:3', '6:4', '5:0', '6:0', '5:5', '6:6']);
  // Process 5's requests 1, 2 are 1, 3; process 6's are 2, 4 (5 and 6: the requests never sent).
  const requests = requestsOf(rec);
  assert.deepEqual(requests.map((r) => r.seq).sort((a, b) => a - b), [1, 2, 3, 4]);
  assert.deepEqual(rec.timeline(REQUESTS).map((r) => `${r.seq}:${rec.strings().get(r.endpoint)}`).sort(), ['1:/a', '2:/a', '3:/b', '4:/b']);
  // Both processes' threads have os tids 11 and 12, yet each marked sample is its own process's request.
  const tags = sampleRequests(rec, requests);
  for (const i of [0, 1, 2, 3, 4, 5]) assert.equal(requests[tags[i]].seq, rec.requestSeqOf(i), `sample ${i}`);
  const reopened = openRecording(saveRecording(rec)).recording;
  assert.deepEqual(Array.from({ length: reopened.sampleCount }, (_, i) => reopened.requestSeqOf(i)), Array.from({ length: rec.sampleCount }, (_, i) => rec.requestSeqOf(i)));
});
