import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventKind } from '../wire/records.js';
import { FIXTURE_START_MONO, fixtureEncoder } from './fixture-stream.test-support.js';
import { recordingFromStream } from './recording-from-stream.js';
import { exceptionTable, typeTable, MAX_MESSAGES, MAX_THROWERS } from './event-tables.js';
import { totalsByLabel } from './event-metrics.js';
import { exceptionOrigins, thrownExceptions } from './exception-origins.js';
import type { Recording } from './recording.js';

const MS = 1_000_000;

// Fixture functions: 1 Main, 2 Work, 3 Hot (managed), 4 futex_wait (native), 6 Recurse.
function recording(): Recording {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).stack(91, 0, [1]).stack(92, 0, [4, 2, 1]).stack(93, 0, [6, 1])
    .string(1, 'System.Byte[]').string(2, 'App.Pair<System.Int64>').string(3, 'System.ArgumentException').string(4, 'System.IO.IOException')
    .string(5, 'bad arg').string(6, 'other');
  const at = FIXTURE_START_MONO + 10 * MS;
  // Allocations: Byte[] 1000 + 3000 bytes (t1 at 10 ms, t3 at 30 ms), Pair 2400 bytes (t1 at 20 ms).
  enc.event({ kind: EventKind.Allocation, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 1 });
  enc.event({ kind: EventKind.Allocation, mono: at + 10 * MS, threadId: 1, stackId: 91, labelId: 2, value1: 2400, value2: 100 });
  enc.event({ kind: EventKind.Allocation, mono: at + 20 * MS, threadId: 3, stackId: 90, labelId: 1, value1: 3000, value2: 3 });
  // Two live sets: at 15 ms (Byte[] 900) and at 35 ms (Byte[] 500 on t1, Pair 200 on t3).
  enc.event({ kind: EventKind.LiveSnapshot, mono: at + 5 * MS, threadId: 0, stackId: 0, labelId: 0, value1: 0, value2: 0 });
  enc.event({ kind: EventKind.Live, mono: at + 5 * MS, threadId: 1, stackId: 90, labelId: 1, value1: 900, value2: 9 });
  enc.event({ kind: EventKind.LiveSnapshot, mono: at + 25 * MS, threadId: 0, stackId: 0, labelId: 0, value1: 0, value2: 0 });
  enc.event({ kind: EventKind.Live, mono: at + 25 * MS, threadId: 1, stackId: 90, labelId: 1, value1: 500, value2: 5 });
  enc.event({ kind: EventKind.Live, mono: at + 25 * MS, threadId: 3, stackId: 91, labelId: 2, value1: 200, value2: 2 });
  // Exceptions: ArgumentException thrown 3 times by Hot, once from Work under a native leaf
  // (its innermost managed frame is Work), and 4 more without a stack; IOException once by Recurse.
  // Messages: "bad arg" twice and "other" once from Hot, none from Work, the IOException or the unstacked ones.
  enc.event({ kind: EventKind.Exception, mono: at, threadId: 1, stackId: 90, labelId: 3, value1: 1, messageId: 5 });
  enc.event({ kind: EventKind.Exception, mono: at + 1 * MS, threadId: 1, stackId: 90, labelId: 3, value1: 1, messageId: 5 });
  enc.event({ kind: EventKind.Exception, mono: at + 2 * MS, threadId: 3, stackId: 90, labelId: 3, value1: 1, messageId: 6 });
  enc.event({ kind: EventKind.Exception, mono: at + 3 * MS, threadId: 3, stackId: 92, labelId: 3, value1: 1 });
  enc.event({ kind: EventKind.Exception, mono: at + 4 * MS, threadId: 1, stackId: 0, labelId: 3, value1: 4 });
  enc.event({ kind: EventKind.Exception, mono: at + 20 * MS, threadId: 3, stackId: 93, labelId: 4, value1: 1 });
  return recordingFromStream([enc.bytes().slice()]);
}

test('the type table sums allocated bytes, objects and samples per type, largest first, with the newest live set', () => {
  const r = recording();
  const t = typeTable(r, { threadIds: null });
  assert.deepEqual(t.rows, [
    { type: 'System.Byte[]', bytes: 4000, objects: 4, samples: 2, liveBytes: 500, liveObjects: 5 },
    { type: 'App.Pair<System.Int64>', bytes: 2400, objects: 100, samples: 1, liveBytes: 200, liveObjects: 2 },
  ]);
  assert.equal(t.bytes, 6400);
  assert.equal(t.objects, 104);
  assert.equal(t.samples, 3);
  assert.equal(t.liveBytes, 700);
  assert.equal(t.hasLive, true);
  // The same totals per type as the summary's and pprof's (totalsByLabel).
  assert.deepEqual(t.rows.map((x) => [x.type, x.bytes]), totalsByLabel(r, 'alloc-space').map((x) => [x.label, x.value]));
});

test('the type table honours the time window and the threads; the live heap is the newest set before the window\'s end', () => {
  const r = recording();
  // 0..25 ms: Byte[] 1000 (t1 at 10 ms), Pair 2400 (at 20 ms); live: the set at 15 ms.
  const early = typeTable(r, { threadIds: null, toMs: 25 });
  assert.deepEqual(early.rows.map((x) => [x.type, x.bytes, x.liveBytes]), [['App.Pair<System.Int64>', 2400, 0], ['System.Byte[]', 1000, 900]]);
  // From 15 ms: only the allocations after it; the live set at 35 ms counts wherever the window begins.
  const late = typeTable(r, { threadIds: null, fromMs: 15 });
  assert.deepEqual(late.rows.map((x) => [x.type, x.bytes, x.liveBytes]), [['System.Byte[]', 3000, 500], ['App.Pair<System.Int64>', 2400, 200]]);
  // Thread 3 only.
  const t3 = typeTable(r, { threadIds: [3] });
  assert.deepEqual(t3.rows.map((x) => [x.type, x.bytes, x.objects, x.liveBytes]), [['System.Byte[]', 3000, 3, 0], ['App.Pair<System.Int64>', 0, 0, 200]]);
  assert.deepEqual(typeTable(r, { threadIds: [] }).rows, []);
});

test('the exceptions table counts each type exactly and names the methods that threw them, innermost managed frame first', () => {
  const r = recording();
  const t = exceptionTable(r, { threadIds: null });
  assert.equal(t.count, 9);
  assert.deepEqual(t.rows, [
    {
      type: 'System.ArgumentException', count: 8, stacked: 4, rethrows: 0, methods: [{ name: 'App.Worker.Hot', count: 3 }, { name: 'App.Worker.Work', count: 1 }],
      paths: [{ sites: [], count: 3 }],
      messages: [{ text: 'bad arg', count: 2 }, { text: null, count: 1 }, { text: 'other', count: 1 }], distinctMessages: 3,
    },
    { type: 'System.IO.IOException', count: 1, stacked: 1, rethrows: 0, methods: [{ name: 'App.Worker.Recurse', count: 1 }], paths: [{ sites: [], count: 1 }], messages: [{ text: null, count: 1 }], distinctMessages: 1 },
  ]);
  assert.deepEqual(t.rows.map((x) => [x.type, x.count]), totalsByLabel(r, 'exceptions').map((x) => [x.label, x.value]));
  // Window and threads.
  assert.deepEqual(exceptionTable(r, { threadIds: [3] }).rows.map((x) => [x.type, x.count, x.methods.map((m) => m.name).join()]),
    [['System.ArgumentException', 2, 'App.Worker.Hot,App.Worker.Work'], ['System.IO.IOException', 1, 'App.Worker.Recurse']]);
  assert.deepEqual(exceptionTable(r, { threadIds: null, fromMs: 12, toMs: 25 }).rows.map((x) => [x.type, x.count, x.stacked]), [['System.ArgumentException', 6, 2]]);
  assert.ok(MAX_THROWERS >= 2);
  // Thread 3's ArgumentExceptions: "other" from Hot, none from Work.
  assert.deepEqual(exceptionTable(r, { threadIds: [3] }).rows[0].messages, [{ text: null, count: 1 }, { text: 'other', count: 1 }]);
});

test('a rethrown exception counts once, where it was first thrown, with the methods it was rethrown from as its path', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).stack(92, 0, [4, 2, 1]).stack(93, 0, [6, 1]).string(1, 'App.NotFound').string(2, 'gone');
  const at = FIXTURE_START_MONO + MS;
  // Object 1 thrown by Hot on thread 1, rethrown from Work (under a native leaf) on thread 3 and
  // from Recurse; object 2 thrown by Hot and rethrown from Work only; object 3 thrown by Recurse
  // and never rethrown. Value2: the identity times two, plus one for a rethrow. Thread 3's
  // rethrow of object 1 comes first in the stream but later in time.
  enc.event({ kind: EventKind.Exception, mono: at + 2, threadId: 3, stackId: 92, labelId: 1, value1: 1, value2: 3, messageId: 2 });
  enc.event({ kind: EventKind.Exception, mono: at, threadId: 1, stackId: 90, labelId: 1, value1: 1, value2: 2, messageId: 2 });
  enc.event({ kind: EventKind.Exception, mono: at + 3, threadId: 3, stackId: 93, labelId: 1, value1: 1, value2: 3, messageId: 2 });
  enc.event({ kind: EventKind.Exception, mono: at + 4, threadId: 1, stackId: 90, labelId: 1, value1: 1, value2: 4, messageId: 2 });
  enc.event({ kind: EventKind.Exception, mono: at + 5, threadId: 1, stackId: 92, labelId: 1, value1: 1, value2: 5, messageId: 2 });
  enc.event({ kind: EventKind.Exception, mono: at + 6, threadId: 1, stackId: 93, labelId: 1, value1: 1, value2: 6 });
  const r = recordingFromStream([enc.bytes().slice()]);
  const row = exceptionTable(r, { threadIds: null }).rows[0];
  assert.equal(row.count, 6, 'every throw, as the runtime counts them');
  assert.equal(row.stacked, 3);
  assert.equal(row.rethrows, 3);
  assert.deepEqual(row.methods, [{ name: 'App.Worker.Hot', count: 2 }, { name: 'App.Worker.Recurse', count: 1 }]);
  assert.deepEqual(row.paths, [{ sites: ['App.Worker.Work', 'App.Worker.Recurse'], count: 1 }, { sites: ['App.Worker.Work'], count: 1 }]);
  assert.deepEqual(row.messages, [{ text: 'gone', count: 2 }, { text: null, count: 1 }]);
  const origins = exceptionOrigins(r, thrownExceptions(r));
  assert.deepEqual(origins.map((o) => [o.method, o.exceptions, o.rethrows, o.originNotSeen]), [['App.Worker.Hot', 2, 3, 0], ['App.Worker.Recurse', 1, 0, 0]]);
  assert.deepEqual(origins[0].types, [{ type: 'App.NotFound', count: 2 }]);
  // From 2 ns on, object 1's first throw is outside: it counts where it was first seen (Work), marked so.
  const late = exceptionOrigins(r, thrownExceptions(r, (i) => r.events().mono[i] >= at + 2));
  assert.deepEqual(late.map((o) => [o.method, o.exceptions, o.originNotSeen]), [['App.Worker.Hot', 1, 0], ['App.Worker.Recurse', 1, 0], ['App.Worker.Work', 1, 1]]);
});

test('the exceptions table keeps the most frequent messages of a type and counts the distinct ones', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).string(1, 'System.Collections.Generic.KeyNotFoundException');
  const texts = Array.from({ length: MAX_MESSAGES + 3 }, (_, k) => `key ${k}`);
  texts.forEach((t, k) => enc.string(10 + k, t));
  // "key k" thrown k + 1 times.
  let mono = FIXTURE_START_MONO + MS;
  texts.forEach((_, k) => {
    for (let n = 0; n <= k; n++) enc.event({ kind: EventKind.Exception, mono: mono++, threadId: 1, stackId: 90, labelId: 1, value1: 1, messageId: 10 + k });
  });
  const row = exceptionTable(recordingFromStream([enc.bytes().slice()]), { threadIds: null }).rows[0];
  assert.equal(row.distinctMessages, texts.length);
  assert.deepEqual(row.messages, texts.map((text, k) => ({ text, count: k + 1 })).reverse().slice(0, MAX_MESSAGES));
});

test('a recording without events has empty tables', () => {
  const r = recordingFromStream([fixtureEncoder().bytes().slice()]);
  assert.deepEqual(typeTable(r, { threadIds: null }), { rows: [], bytes: 0, objects: 0, samples: 0, liveBytes: 0, liveObjects: 0, hasLive: false });
  assert.deepEqual(exceptionTable(r, { threadIds: null }), { rows: [], count: 0 });
});
