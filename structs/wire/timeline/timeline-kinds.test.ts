import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireDecoder } from '../decoder.js';
import { WireEncoder } from '../encoder.js';
import { RecordType, SuspensionFlags, type SuspensionRecord } from '../records.js';
import type { WireSink } from '../wire-sink.js';
import { GC_EVENTS } from './gc-events.js';
import { POOL_GAUGES } from './pool-gauges.js';
import { REQUESTS } from './requests.js';
import { REQUEST_WINDOWS } from './request-windows.js';
import { RUNTIME_EVENTS } from './runtime-events.js';
import { SUSPENSIONS } from './suspensions.js';
import { genericTimelineKind, timelineBodySize, timelineDumpLine, timelineMinBodySize, type TimelineKind, type TimelineRecord } from './timeline-kind.js';
import { TIMELINE_KINDS, timelineKindOf } from './timeline-kinds.js';

const hello = { pid: 1, flags: 3, mono: 10, unixNs: 0n, intervalNs: 1000, wallThreadsPerTick: 4, runtimeVersion: '', profilerVersion: '' };
const pause: SuspensionRecord = { mono: 0x0102030405, durationNs: 300, suspendNs: 100, reason: 1, generation: -1, flags: SuspensionFlags.Induced };

test('the registry finds SUSPENSION, GC_EVENT, REQUEST, RUNTIME_EVENT, REQUEST_WINDOW and POOL_GAUGE by their record types and nothing else', () => {
  assert.deepEqual(TIMELINE_KINDS, [genericTimelineKind(SUSPENSIONS), genericTimelineKind(GC_EVENTS), genericTimelineKind(REQUESTS), genericTimelineKind(RUNTIME_EVENTS), genericTimelineKind(REQUEST_WINDOWS), genericTimelineKind(POOL_GAUGES)]);
  assert.equal(timelineKindOf(RecordType.Suspension), SUSPENSIONS);
  assert.equal(timelineKindOf(RecordType.GcEvent), GC_EVENTS);
  assert.equal(timelineKindOf(RecordType.Request), REQUESTS);
  assert.equal(timelineKindOf(RecordType.RuntimeEvent), RUNTIME_EVENTS);
  assert.equal(timelineKindOf(RecordType.RequestWindow), REQUEST_WINDOWS);
  assert.equal(timelineKindOf(RecordType.PoolGauge), POOL_GAUGES);
  const kinds: number[] = [RecordType.Suspension, RecordType.GcEvent, RecordType.Request, RecordType.RuntimeEvent, RecordType.RequestWindow, RecordType.PoolGauge];
  for (let type = 0; type < 256; type++) {
    if (!kinds.includes(type)) assert.equal(timelineKindOf(type), undefined, `type ${type}`);
  }
});

test('a REQUEST is the 48-byte body PROTOCOL.md lays out, 44 without the seq older writers did not send', () => {
  const r = { mono: 0x0102030405, endMono: 0x0102030406, startTid: 77, endTid: 78, status: 500, method: 1, endpoint: 2, traceId: 3, spanId: 4, seq: 9 };
  const bytes = new WireEncoder().timeline(REQUESTS, r).bytes();
  assert.equal(timelineBodySize(genericTimelineKind(REQUESTS)), 48);
  assert.equal(timelineMinBodySize(genericTimelineKind(REQUESTS)), 44);
  assert.deepEqual(Array.from(bytes), [
    49, 0, 0, 0, RecordType.Request,
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 mono
    0x06, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 endMono
    77, 0, 0, 0, // u32 startTid
    78, 0, 0, 0, // u32 endTid
    0xf4, 1, 0, 0, // u32 status 500
    1, 0, 0, 0, // u32 method (STRING id)
    2, 0, 0, 0, // u32 endpoint
    3, 0, 0, 0, // u32 traceId
    4, 0, 0, 0, // u32 spanId
    9, 0, 0, 0, // u32 seq
  ]);
});

test('a GC_EVENT is the 46-byte body PROTOCOL.md lays out', () => {
  const e = { mono: 0x0102030405, tid: 77, event: 1, version: 2, a: 11, b: 2, c: 1, d: 1 };
  const bytes = new WireEncoder().timeline(GC_EVENTS, e).bytes();
  assert.equal(timelineBodySize(genericTimelineKind(GC_EVENTS)), 46);
  assert.deepEqual(Array.from(bytes), [
    47, 0, 0, 0, RecordType.GcEvent,
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 mono
    77, 0, 0, 0, // u32 tid
    1, 2, // u8 event (GCStart), u8 version
    11, 0, 0, 0, 0, 0, 0, 0, // u64 a: Count
    2, 0, 0, 0, 0, 0, 0, 0, // u64 b: Depth
    1, 0, 0, 0, 0, 0, 0, 0, // u64 c: Reason (Induced)
    1, 0, 0, 0, 0, 0, 0, 0, // u64 d: Type (background)
  ]);
});

test('a RUNTIME_EVENT is the 47-byte body PROTOCOL.md lays out, its event id in 16 bits', () => {
  const e = { mono: 0x0102030405, tid: 77, event: 301, version: 0, a: 1, b: 0x7f0012345678, c: 0, d: 0 };
  const bytes = new WireEncoder().timeline(RUNTIME_EVENTS, e).bytes();
  assert.equal(timelineBodySize(genericTimelineKind(RUNTIME_EVENTS)), 47);
  assert.deepEqual(Array.from(bytes), [
    48, 0, 0, 0, RecordType.RuntimeEvent,
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 mono
    77, 0, 0, 0, // u32 tid
    0x2d, 0x01, 0, // u16 event (WaitHandleWaitStart, 301), u8 version
    1, 0, 0, 0, 0, 0, 0, 0, // u64 a: WaitSource (MonitorWait)
    0x78, 0x56, 0x34, 0x12, 0x00, 0x7f, 0, 0, // u64 b: AssociatedObjectID
    0, 0, 0, 0, 0, 0, 0, 0, // u64 c
    0, 0, 0, 0, 0, 0, 0, 0, // u64 d
  ]);
});

test('the thread pool\'s events an older writer sent as GC_EVENT are decoded as RUNTIME_EVENT; GC events stay', () => {
  const heard: [TimelineKind, TimelineRecord][] = [];
  const sink = new Proxy({}, {
    get: (_t, name) => (name === 'onTimeline' ? (kind: TimelineKind, r: TimelineRecord) => heard.push([kind, r]) : () => {}),
  }) as WireSink;
  const start = { mono: 100, tid: 7, event: 50, version: 0, a: 3, b: 0, c: 0, d: 0 };
  const adjustment = { mono: 200, tid: 8, event: 55, version: 0, a: 4, b: 6, c: 1500, d: 0 };
  const gcStart = { mono: 300, tid: 9, event: 1, version: 2, a: 1, b: 0, c: 0, d: 0 };
  new WireDecoder(sink).push(new WireEncoder().preamble().hello(hello).timeline(GC_EVENTS, start).timeline(GC_EVENTS, adjustment).timeline(GC_EVENTS, gcStart).bytes());
  assert.deepEqual(heard.map(([k, r]) => [k.name, r.event]), [['RUNTIME_EVENT', 50], ['RUNTIME_EVENT', 55], ['GC_EVENT', 1]]);
  assert.deepEqual(heard[1][1], adjustment);
});

test('a SUSPENSION written from its descriptor is the body PROTOCOL.md lays out, field by field', () => {
  const bytes = new WireEncoder().suspension(pause).bytes();
  assert.equal(timelineBodySize(genericTimelineKind(SUSPENSIONS)), 27);
  assert.deepEqual(Array.from(bytes), [
    28, 0, 0, 0, RecordType.Suspension,
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 mono
    44, 1, 0, 0, 0, 0, 0, 0, // u64 durationNs 300
    100, 0, 0, 0, 0, 0, 0, 0, // u64 suspendNs
    1, // u8 reason
    0xff, // i8 generation -1
    1, // u8 flags: induced
  ]);
  // The generic call writes the same bytes, and u64 fields may come as bigints.
  assert.deepEqual(new WireEncoder().timeline(SUSPENSIONS, { ...pause, mono: 0x0102030405n }).bytes(), bytes);
});

test('the decoder hands a SUSPENSION to onTimeline with its descriptor and every field', () => {
  const heard: [TimelineKind, TimelineRecord][] = [];
  const sink = new Proxy({}, {
    get: (_t, name) => (name === 'onTimeline' ? (kind: TimelineKind, r: TimelineRecord) => heard.push([kind, r]) : () => {}),
  }) as WireSink;
  new WireDecoder(sink).push(new WireEncoder().preamble().hello(hello).suspension(pause).bytes());
  assert.equal(heard.length, 1);
  assert.equal(heard[0][0], SUSPENSIONS);
  assert.deepEqual(heard[0][1], { ...pause });
});

test('a SUSPENSION shorter than its fields is refused with the sentence every short body gets', () => {
  const bytes = new WireEncoder().preamble().hello(hello).raw(RecordType.Suspension, new Array(26).fill(0)).bytes();
  const sink = new Proxy({}, { get: () => () => {} }) as WireSink;
  assert.throws(() => new WireDecoder(sink).push(bytes), /the SUSPENSION record at byte \d+ has a 26-byte body, shorter than the 27 bytes its fields need/);
});

test('a suspension dumps as the line recording-dump.ts has always written', () => {
  assert.equal(timelineDumpLine(SUSPENSIONS, pause), `suspension: mono ${pause.mono} duration 300 suspend 100 reason 1 gen -1 flags 1`);
});

test('only trailing fields are optional: a body is every field up to some optional one', () => {
  for (const kind of TIMELINE_KINDS) {
    const first = kind.fields.findIndex((f) => f.optional === true);
    if (first >= 0) assert.ok(kind.fields.slice(first).every((f) => f.optional === true), kind.name);
  }
});

test('a REQUEST decodes with its seq, and an older writer\'s body without it decodes with seq 0', () => {
  const r = { mono: 5000, endMono: 9000, startTid: 77, endTid: 78, status: 200, method: 0, endpoint: 0, traceId: 0, spanId: 0, seq: 12 };
  const decoded = (bytes: Uint8Array): TimelineRecord[] => {
    const heard: TimelineRecord[] = [];
    const sink = new Proxy({}, {
      get: (_t, name) => (name === 'onTimeline' ? (_kind: TimelineKind, rec: TimelineRecord) => heard.push(rec) : () => {}),
    }) as WireSink;
    new WireDecoder(sink).push(bytes);
    return heard;
  };
  const whole = new WireEncoder().timeline(REQUESTS, r).bytes();
  assert.deepEqual(decoded(new WireEncoder().preamble().hello(hello).timeline(REQUESTS, r).bytes()), [r]);
  // The same record as a writer before seq sent it: 44 bytes, up to spanId.
  const old = new WireEncoder().preamble().hello(hello).raw(RecordType.Request, Array.from(whole.subarray(5, 5 + 44))).bytes();
  assert.deepEqual(decoded(old), [{ ...r, seq: 0 }]);
  // A later revision's longer body: the bytes past seq are ignored.
  const longer = new WireEncoder().preamble().hello(hello).raw(RecordType.Request, [...whole.subarray(5), 1, 2, 3]).bytes();
  assert.deepEqual(decoded(longer), [r]);
  const short = new WireEncoder().preamble().hello(hello).raw(RecordType.Request, new Array(43).fill(0)).bytes();
  assert.throws(() => decoded(short), /the REQUEST record at byte \d+ has a 43-byte body, shorter than the 44 bytes its fields need/);
});

test('a REQUEST_WINDOW is the profiler\'s 28-byte body PROTOCOL.md lays out; a merge appends the pid, 32', () => {
  const w = { startMono: 0x0102030405, endMono: 0x0102030406, begun: 412, cut: 3, maxPerS: 166 };
  const profilers = new WireEncoder().requestWindow(w).bytes();
  assert.equal(timelineMinBodySize(genericTimelineKind(REQUEST_WINDOWS)), 28);
  assert.equal(timelineBodySize(genericTimelineKind(REQUEST_WINDOWS)), 32);
  const body = [
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 startMono
    0x06, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 endMono
    0x9c, 1, 0, 0, // u32 begun 412
    3, 0, 0, 0, // u32 cut
    166, 0, 0, 0, // u32 maxPerS
  ];
  assert.deepEqual(Array.from(profilers), [29, 0, 0, 0, RecordType.RequestWindow, ...body]);
  assert.deepEqual(Array.from(new WireEncoder().timeline(REQUEST_WINDOWS, { ...w, pid: 777 }).bytes()), [33, 0, 0, 0, RecordType.RequestWindow, ...body, 0x09, 0x03, 0, 0]);
});

test('a profiler\'s REQUEST_WINDOW decodes with pid 0 (its own process), a merged one with its pid; a shorter body is refused', () => {
  const w = { startMono: 5000, endMono: 9000, begun: 7, cut: 1, maxPerS: 83 };
  const decoded = (bytes: Uint8Array): [string, TimelineRecord][] => {
    const heard: [string, TimelineRecord][] = [];
    const sink = new Proxy({}, {
      get: (_t, name) => (name === 'onTimeline' ? (kind: TimelineKind, rec: TimelineRecord) => heard.push([kind.name, rec]) : () => {}),
    }) as WireSink;
    new WireDecoder(sink).push(bytes);
    return heard;
  };
  assert.deepEqual(decoded(new WireEncoder().preamble().hello(hello).requestWindow(w).bytes()), [['REQUEST_WINDOW', { ...w, pid: 0 }]]);
  assert.deepEqual(decoded(new WireEncoder().preamble().hello(hello).timeline(REQUEST_WINDOWS, { ...w, pid: 6 }).bytes()), [['REQUEST_WINDOW', { ...w, pid: 6 }]]);
  const short = new WireEncoder().preamble().hello(hello).raw(RecordType.RequestWindow, new Array(27).fill(0)).bytes();
  assert.throws(() => decoded(short), /the REQUEST_WINDOW record at byte \d+ has a 27-byte body, shorter than the 28 bytes its fields need/);
  assert.equal(timelineDumpLine(REQUEST_WINDOWS, { ...w, pid: 0 }), 'request-window: start 5000 end 9000 begun 7 cut 1 max-per-s 83 pid 0');
});

test('a POOL_GAUGE is the profiler\'s 24-byte body (the same bytes as wire_writer_test.cpp); it decodes with pid 0, a merged one with its pid', () => {
  const g = { mono: 0x0102030405, threads: 12, queueLength: 300, completed: 70000 };
  const body = [
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, // u64 mono
    12, 0, 0, 0, // u32 threads
    0x2c, 1, 0, 0, // u32 queueLength 300
    0x70, 0x11, 0x01, 0, 0, 0, 0, 0, // u64 completed 70000
  ];
  assert.deepEqual(Array.from(new WireEncoder().poolGauge(g).bytes()), [25, 0, 0, 0, RecordType.PoolGauge, ...body]);
  const heard: TimelineRecord[] = [];
  const sink = new Proxy({}, { get: (_t, name) => (name === 'onTimeline' ? (_k: TimelineKind, r: TimelineRecord) => heard.push(r) : () => {}) }) as WireSink;
  new WireDecoder(sink).push(new WireEncoder().preamble().hello(hello).poolGauge(g).timeline(POOL_GAUGES, { ...g, pid: 9 }).bytes());
  assert.deepEqual(heard, [{ ...g, pid: 0 }, { ...g, pid: 9 }]);
  assert.equal(timelineDumpLine(POOL_GAUGES, { ...g, pid: 0 }), 'pool-gauge: mono 4328719365 threads 12 queue 300 completed 70000 pid 0');
});
