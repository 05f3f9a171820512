import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CountersPoint } from '../../api/contract.js';
import { toCollapsed } from '../collapsed/to-collapsed.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { WireEncoder } from '../../wire/encoder.js';
import { parseHexText } from '../../wire/hex-text.js';
import { openRecording, RecordingFileReader } from './open-recording.js';
import { dumpRecording } from '../../profile/recording-dump.js';
import { recordingFileChunks, saveRecording } from './save-recording.js';

const fixtureUrl = (name: string): URL => new URL(`../../../../structs/formats/clrscope-file/fixtures/${name}`, import.meta.url);

/** The recording behind fixtures/saved.hex: records arrive in the profiler's order, not the saved one. */
function smallRecording(): Recording {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 9, flags: 3, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: '0.1.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 0x21, mono: 1000, name: 'main' })
    .function({ functionId: 1, kind: 0, name: 'A.Main', module: 'A.dll', file: 'A.cs' })
    .sample({ mono: 2000, threadId: 1, flags: 1, cpuNs: 500, wallNs: 0, frames: [1] })
    .suspension({ mono: 2500, durationNs: 300, suspendNs: 20, reason: 1, generation: 0, flags: 0 })
    .thread({ threadId: 2, osTid: 12, clrThreadId: 0x22, mono: 2600, name: '' })
    .function({ functionId: 2, kind: 1, name: 'read', module: 'libc.so.6', file: '' })
    .sample({ mono: 3000, threadId: 2, flags: 6, cpuNs: 0, wallNs: 700, frames: [2] })
    .sample({ mono: 3500, threadId: 1, flags: 6, cpuNs: 0, wallNs: 900, frames: [] })
    .threadEnd({ threadId: 2, mono: 3200 })
    .stats({ mono: 4000, samples: 3, droppedRingFull: 1, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 })
    .end({ mono: 4100, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}
const smallCounters: CountersPoint[] = [{ timeMs: 1_700_000_000_000, values: { gc: { genCollections0: 1 } } }];

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

test('the saved bytes are fixtures/saved.hex, field for field', () => {
  const expected = parseHexText(readFileSync(fixtureUrl('saved.hex'), 'utf8'));
  assert.deepEqual(Buffer.from(saveRecording(smallRecording(), smallCounters)).toString('hex'), Buffer.from(expected).toString('hex'));
});

test('save then open gives back every sample, thread, function, pause, stat and counters point', () => {
  const rec = smallRecording();
  const opened = openRecording(saveRecording(rec, smallCounters));
  assert.equal(dumpRecording(opened.recording), dumpRecording(rec));
  assert.deepEqual(opened.counters, smallCounters);
  const fixture = recordingFromStream([fixtureStream()]);
  const again = openRecording(saveRecording(fixture)).recording;
  assert.equal(dumpRecording(again), dumpRecording(fixture));
  for (const metric of ['cpu', 'wall', 'samples'] as const) {
    assert.equal(toCollapsed(again, { metric, groupByThread: true }), toCollapsed(fixture, { metric, groupByThread: true }));
  }
});

test('exceptions keep their messages through save and open, and saving again gives the same bytes', () => {
  const wire = parseHexText(readFileSync(new URL('../../../../structs/wire/fixtures/event-messages-v2.hex', import.meta.url), 'utf8'));
  const rec = recordingFromStream([wire]);
  const bytes = saveRecording(rec);
  const opened = openRecording(bytes).recording;
  assert.equal(dumpRecording(opened), dumpRecording(rec));
  const e = opened.events();
  assert.deepEqual(Array.from(e.messageId, (id) => (id === 0 ? null : opened.strings().get(id))), ['clrscope test', null, 'key \u00e9 7', null]);
  assert.deepEqual(saveRecording(opened), bytes);
});

test('a cut recording reopens as cut, and saving is idempotent', () => {
  const cut = recordingFromStream([fixtureStream({ end: false })]);
  assert.equal(cut.cut, true);
  const bytes = saveRecording(cut);
  const opened = openRecording(bytes).recording;
  assert.equal(opened.cut, true);
  assert.equal(dumpRecording(opened), dumpRecording(cut));
  assert.deepEqual(saveRecording(opened), bytes);
});

test('u64 values beyond 2^53 survive as the decoder rounded them', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 1, flags: 1, mono: 2n ** 60n, unixNs: 2n ** 63n + 5n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 1, clrThreadId: 2n ** 62n, mono: 2n ** 60n, name: 't' })
    .function({ functionId: 1, kind: 0, name: 'F', module: '', file: '' })
    .sample({ mono: 2n ** 60n + 4096n, threadId: 1, flags: 1, cpuNs: 2n ** 55n, wallNs: 0, frames: [1] });
  const rec = recordingFromStream([enc.bytes()]);
  assert.equal(dumpRecording(openRecording(saveRecording(rec)).recording), dumpRecording(rec));
});

test('chunked saving and reading byte by byte give the same file and recording', () => {
  const rec = recordingFromStream([fixtureStream()]);
  const whole = saveRecording(rec, smallCounters);
  const progress: [number, number][] = [];
  const chunks = Array.from(recordingFileChunks(rec, smallCounters, { chunkBytes: 8, progress: (d, t) => progress.push([d, t]) }));
  assert.ok(chunks.length >= 2);
  assert.deepEqual(concat(chunks), whole);
  assert.deepEqual(progress[progress.length - 1], [8, 8]);
  const reader = new RecordingFileReader();
  for (let i = 0; i < whole.length; i++) reader.push(whole.subarray(i, i + 1));
  const opened = reader.finish();
  assert.equal(dumpRecording(opened.recording), dumpRecording(rec));
  assert.deepEqual(opened.counters, smallCounters);
  assert.equal(reader.bytesRead, whole.length);
});

test('where the saver cuts its chunks never changes the file', () => {
  // Enough samples for several SAMPLES records (each at most 64 KiB).
  const enc = new WireEncoder().preamble()
    .hello({ pid: 1, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' })
    .thread({ threadId: 1, osTid: 1, clrThreadId: 1, mono: 0, name: 't' })
    .thread({ threadId: 2, osTid: 2, clrThreadId: 2, mono: 0, name: 'u' });
  for (let f = 1; f <= 50; f++) enc.function({ functionId: f, kind: 0, name: `F${f}`, module: 'M.dll', file: '' });
  for (let i = 0; i < 40_000; i++) {
    enc.sample({ mono: 1000 + i * 7919, threadId: 1 + (i % 2), flags: 3, cpuNs: 10_000 + (i % 977), wallNs: 20_000 + (i % 131), frames: [1 + (i % 50), 1 + ((i * 7) % 50), 1] });
  }
  const rec = recordingFromStream([enc.end({ mono: 10 ** 9, reason: 0 }).bytes()]);
  const whole = saveRecording(rec);
  for (const chunkBytes of [1, 1000, 100_000]) {
    const chunks = Array.from(recordingFileChunks(rec, [], { chunkBytes }));
    assert.ok(chunks.length > (chunkBytes === 100_000 ? 1 : 3), `${chunks.length} chunks of ${chunkBytes}`);
    assert.deepEqual(concat(chunks), whole, `chunks of ${chunkBytes}`);
  }
  assert.deepEqual(saveRecording(openRecording(whole).recording), whole);
});

test('a recording without HELLO cannot be saved', () => {
  const empty = recordingFromStream([]);
  assert.throws(() => saveRecording(empty), /no HELLO/);
});

test('bad files: one sentence each', () => {
  const good = saveRecording(smallRecording(), smallCounters);
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array(0), /^The clrscope file is empty\.$/],
    [good.subarray(0, 10), /^The clrscope file is truncated: it ends at byte 10, inside the preamble\.$/],
    [good.subarray(0, good.length - 3), new RegExp(`^The clrscope file is truncated: it ends at byte ${good.length - 3}, inside the record that starts at byte ${good.length - 14}\\.$`)],
    [new TextEncoder().encode('PK\u0003\u0004 not a recording at all'), /^Not a clrscope stream: the first 8 bytes at byte 0 are not the magic "CLRSCOPE"\.$/],
    [(() => { const b = good.slice(); b[8] = 3; return b; })(), /^Unsupported clrscope stream version 3 at byte 8; this reader understands versions 1 and 2\.$/],
    [good.subarray(0, 16), /^The clrscope file holds no recording: it has no HELLO record\.$/],
    [(() => { const b = good.slice(); b[16 + 4] = 0x03; return b; })(), /^Corrupt clrscope file: the record at byte 16 is a THREAD_END before the HELLO\.$/],
    [(() => { const b = good.slice(); b[16 + 4] = 0x05; return b; })(), /^Corrupt clrscope stream: the record at byte 16 is a version 1 SAMPLE in a version 2 stream\.$/],
  ];
  for (const [bytes, message] of cases) assert.throws(() => openRecording(bytes), (err: Error) => message.test(err.message), String(message));
});

test('a corrupt COUNTERS record is named by its byte offset', () => {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 1, flags: 1, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' })
    .raw(0x08, [0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0x7b, 0x7b]);
  assert.throws(() => openRecording(enc.bytes()), { message: /^Corrupt clrscope file: the COUNTERS record at byte 61 holds text that is not valid JSON\.$/ });
});

const wireFixture = (name: string): Uint8Array => parseHexText(readFileSync(new URL(`../../../../structs/wire/fixtures/${name}`, import.meta.url), 'utf8'));

test('a v1 file saves as v2 with the same samples, stacks and functions; saving again is byte-identical', () => {
  const v1 = recordingFromStream([wireFixture('basic.hex')]);
  const saved = saveRecording(v1);
  assert.equal(saved[8], 2, 'saved as wire v2');
  const reopened = openRecording(saved).recording;
  // The v1 recording has no frames of its own; the saved one has a frame per function, so
  // compare the rest of the dump line by line.
  const withoutFrames = (text: string): string => text.split('\n').filter((l) => !l.startsWith('frame ')).join('\n');
  assert.equal(withoutFrames(dumpRecording(reopened)), withoutFrames(dumpRecording(v1)));
  assert.deepEqual(reopened.modules().map((m) => [m.id, m.kind, m.path]), [[1, 0, 'Demo.dll'], [2, 1, 'libc.so.6']]);
  assert.deepEqual(saveRecording(reopened), saved);
});

test('a v2 file with events, strings and a STACK_RESET saves and reopens to the same recording', () => {
  const rec = recordingFromStream([wireFixture('basic-v2.hex')]);
  const saved = saveRecording(rec);
  const reopened = openRecording(saved).recording;
  assert.equal(dumpRecording(reopened), dumpRecording(rec));
  assert.match(dumpRecording(reopened), /event 2: kind 2 flags 0 mono 1033000000 thread 1 label 0 values 250000 0 frames none/);
  assert.deepEqual(saveRecording(reopened), saved);
});

test('samples keep the request they were taken in, and REQUESTs their seq, through save and open', async () => {
  const { requestFixtureStream } = await import('../../profile/request-fixture-stream.test-support.js');
  const { REQUESTS } = await import('../../wire/timeline/requests.js');
  const rec = recordingFromStream([requestFixtureStream()]);
  const saved = saveRecording(rec);
  const reopened = openRecording(saved).recording;
  assert.equal(dumpRecording(reopened), dumpRecording(rec));
  assert.equal(reopened.hasRequestMarks, true);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => reopened.requestSeqOf(i)), [1, 1, 2, 0, 3]);
  assert.deepEqual(reopened.timeline(REQUESTS).map((r) => r.seq), [1, 2]);
  assert.match(dumpRecording(reopened), /sample 4: .* request 3\n/);
  assert.match(dumpRecording(reopened), /request: mono \d+ .* seq 2\n/);
  assert.deepEqual(saveRecording(reopened), saved);
});
