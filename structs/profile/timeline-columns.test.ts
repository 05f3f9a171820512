import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireDecoder } from '../wire/decoder.js';
import { WireEncoder } from '../wire/encoder.js';
import { RecordType, type SuspensionRecord } from '../wire/records.js';
import { SUSPENSIONS } from '../wire/timeline/suspensions.js';
import { genericTimelineKind, type TimelineKind, type TimelineRecord } from '../wire/timeline/timeline-kind.js';
import { Recording } from './recording.js';
import { RecordingError } from './recording-error.js';
import { TimelineCursor } from './timeline-cursor.js';
import { mergedTimeline } from './timeline-merge.js';

const hello = { pid: 1, flags: 3, mono: 10, unixNs: 0n, intervalNs: 1000, wallThreadsPerTick: 4, runtimeVersion: '', profilerVersion: '' };
const pause = (mono: number, durationNs: number, generation = 0): SuspensionRecord => ({ mono, durationNs, suspendNs: 5, reason: 1, generation, flags: 0 });

// A kind as thread-pool events or requests will be: it names a thread and a string.
interface Request { mono: number; durationNs: number; threadId: number; pathId: number }
const REQUESTS: TimelineKind<Request> = {
  name: 'REQUEST', recordType: 0x40, dumpName: 'request', startField: 'mono', end: (r) => r.mono + r.durationNs,
  fields: [{ key: 'mono', type: 'u64' }, { key: 'durationNs', type: 'u64' }, { key: 'threadId', type: 'u32', ref: 'thread' }, { key: 'pathId', type: 'u32', ref: 'string' }],
};

function recordingWith(pauses: SuspensionRecord[]): Recording {
  const rec = new Recording();
  const enc = new WireEncoder().preamble().hello(hello);
  for (const p of pauses) enc.suspension(p);
  new WireDecoder(rec.sink).push(enc.bytes());
  return rec;
}

test('suspensions are stored as columns and read back as frozen records, the same array until one arrives', () => {
  const rec = recordingWith([pause(100, 20, 2), pause(200, 30, -1)]);
  const first = rec.suspensions();
  assert.deepEqual(first, [pause(100, 20, 2), pause(200, 30, -1)]);
  assert.ok(Object.isFrozen(first[0]));
  assert.equal(rec.suspensions(), first);
  assert.equal(rec.timeline(SUSPENSIONS), first);
  const columns = rec.timelineColumns(SUSPENSIONS);
  assert.deepEqual(Array.from(columns.mono), [100, 200]);
  assert.deepEqual(Array.from(columns.generation), [2, -1]);
  assert.ok(columns.generation instanceof Int8Array);
  rec.sink.onTimeline(genericTimelineKind(SUSPENSIONS), { ...pause(300, 1) });
  assert.equal(rec.suspensions().length, 3);
});

test('a kept window keeps the records that began at or after its cut', () => {
  const rec = recordingWith([pause(100, 20), pause(200, 30), pause(300, 5)]);
  rec.dropBefore(200);
  assert.deepEqual(rec.suspensions().map((s) => s.mono), [200, 300]);
  assert.deepEqual(Array.from(rec.timelineColumns(SUSPENSIONS).durationNs), [30, 5]);
});

test('a record naming a thread or string the stream never defined is refused', () => {
  const rec = recordingWith([]);
  const kind = genericTimelineKind(REQUESTS);
  assert.throws(() => rec.sink.onTimeline(kind, { mono: 1, durationNs: 2, threadId: 7, pathId: 0 }), (err: unknown) => err instanceof RecordingError && err.reason === 'is a REQUEST naming thread 7, which no THREAD record defined');
  rec.sink.onThread({ threadId: 7, osTid: 70, clrThreadId: 0, mono: 1, name: '' });
  assert.throws(() => rec.sink.onTimeline(kind, { mono: 1, durationNs: 2, threadId: 7, pathId: 3 }), /naming string 3, which no STRING record defined/);
  rec.sink.onString({ stringId: 3, text: '/orders' });
  rec.sink.onTimeline(kind, { mono: 1, durationNs: 2, threadId: 7, pathId: 3 });
  assert.deepEqual(rec.timeline(REQUESTS), [{ mono: 1, durationNs: 2, threadId: 7, pathId: 3 }]);
});

test('merging puts every part\'s records in order of their end and renumbers threads and strings', () => {
  const a = recordingWith([pause(100, 50), pause(300, 10)]);
  const b = recordingWith([pause(120, 5)]);
  const same = (id: number): number => id;
  const merged = mergedTimeline(genericTimelineKind(SUSPENSIONS), [{ recording: a, thread: same, string: same, request: same, pid: 1 }, { recording: b, thread: same, string: same, request: same, pid: 2 }]);
  assert.deepEqual(merged.map((s) => s.mono), [120, 100, 300]);

  const kind = genericTimelineKind(REQUESTS);
  const c = recordingWith([]);
  c.sink.onThread({ threadId: 1, osTid: 10, clrThreadId: 0, mono: 1, name: '' });
  c.sink.onString({ stringId: 1, text: '/a' });
  c.sink.onTimeline(kind, { mono: 5, durationNs: 5, threadId: 1, pathId: 1 });
  c.sink.onTimeline(kind, { mono: 6, durationNs: 1, threadId: 0, pathId: 0 });
  const renumbered = mergedTimeline(kind, [{ recording: c, thread: (id) => id + 100, string: (id) => id + 200, request: (id) => id, pid: 1 }]);
  assert.deepEqual(renumbered, [{ mono: 6, durationNs: 1, threadId: 0, pathId: 0 }, { mono: 5, durationNs: 5, threadId: 101, pathId: 201 }]);
  assert.equal(RecordType.Suspension, SUSPENSIONS.recordType);
});

test('a cursor hands records out once their end is reached, in order, each once', () => {
  // In order of their end, as a stream delivers them.
  const rec = recordingWith([pause(120, 5), pause(100, 50), pause(300, 10)]);
  const cursor = new TimelineCursor(rec);
  const seen: number[] = [];
  const write = (_kind: TimelineKind, r: TimelineRecord): void => { seen.push(r.mono); };
  cursor.flushUntil(124, write);
  assert.deepEqual(seen, []);
  cursor.flushUntil(150, write);
  assert.deepEqual(seen, [120, 100]);
  cursor.flushUntil(150, write);
  cursor.flushUntil(Infinity, write);
  assert.deepEqual(seen, [120, 100, 300]);
});
