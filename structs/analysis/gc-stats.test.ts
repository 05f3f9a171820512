import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGcStats } from './gc-stats.js';
import { gcEventFigures } from '../formats/nettrace/gc-event-payloads.js';
import {
  gcEndPayload, gcHeapStatsPayload, gcNoUserDataPayload, gcStartPayload, gcSuspendEEBeginPayload,
} from '../formats/nettrace/runtime-payloads.js';
import type { GcEventRecord } from '../wire/records.js';
import { GcEventId } from '../wire/timeline/gc-events.js';

const MS = 1_000_000;
const TRIGGER = 100;
const BGC_THREAD = 200;

/** An event as the runtime wrote it: its payload's bytes go through the same decoder an import uses. */
function ev(ms: number, tid: number, event: number, version: number, payload: Uint8Array): GcEventRecord {
  const f = gcEventFigures(event, version, payload, 8);
  assert.ok(f !== undefined, `event ${event} decodes`);
  return { mono: ms * MS, tid, event, version, ...f };
}

const none = gcNoUserDataPayload();
const heapAfterGen1 = { sizes: [1000, 2000, 30000, 4000, 500], promoted: [100, 200, 0, 0, 0], gcHandles: -537, pinnedObjects: 3 };
const heapAfterBgc = { sizes: [10, 2000, 20000, 4000, 500], promoted: [0, 0, 9000, 1000, 50], gcHandles: 40, pinnedObjects: 0 };

// One allocation-triggered background GC as a workstation runtime raises it: one suspension for
// GC holds two GCStarts (the BGC, number 11, then the gen 1 the runtime runs before it starts,
// number 12, which no profiler callback reports); the BGC thread later suspends once for GC
// preparation (ETW reason 6) and ends the BGC with GCEnd and GCHeapStats while the program runs.
const bgcWithGen1Before: GcEventRecord[] = [
  ev(100, TRIGGER, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(1, 10)),
  ev(102, TRIGGER, GcEventId.GCSuspendEEEnd, 1, none),
  ev(103, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(11, 2, 0, 1)),
  ev(104, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(12, 1, 0, 0)),
  ev(110, TRIGGER, GcEventId.GCEnd, 1, gcEndPayload(12, 1)),
  ev(110, TRIGGER, GcEventId.GCHeapStats, 2, gcHeapStatsPayload(heapAfterGen1)),
  ev(111, TRIGGER, GcEventId.GCRestartEEBegin, 1, none),
  ev(112, TRIGGER, GcEventId.GCRestartEEEnd, 1, none),
  ev(300, BGC_THREAD, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(6, 12)),
  ev(301, BGC_THREAD, GcEventId.GCSuspendEEEnd, 1, none),
  ev(304, BGC_THREAD, GcEventId.GCRestartEEBegin, 1, none),
  ev(305, BGC_THREAD, GcEventId.GCRestartEEEnd, 1, none),
  ev(400, BGC_THREAD, GcEventId.GCEnd, 1, gcEndPayload(11, 2)),
  ev(400, BGC_THREAD, GcEventId.GCHeapStats, 2, gcHeapStatsPayload(heapAfterBgc)),
];

test('a background GC with a gen 1 before it is two rows, numbered as the runtime counts them', () => {
  const { rows, missing } = buildGcStats(bgcWithGen1Before);
  assert.deepEqual(rows.map((r) => [r.number, r.generation, r.type, r.reason]), [[11, 2, 'background', 'AllocSmall'], [12, 1, 'blocking', 'AllocSmall']]);
  assert.equal(missing, 0);
  const [bgc, gen1] = rows;
  // The gen 1's pause runs from its GCStart to the restart; the BGC keeps the suspension up to its
  // own GCStart (2 ms) and gets its GC-preparation suspension (5 ms), which is also its final pause.
  assert.equal(gen1.pauseMs, 8);
  assert.equal(bgc.pauseMs, 2 + 5);
  assert.equal(bgc.finalPauseMs, 5);
  assert.equal(bgc.suspendMs, 2 + 1);
  assert.equal(bgc.durationMs, 297);
  assert.equal(gen1.heapAfterBytes, 37500);
  assert.equal(gen1.promotedBytes, 300);
  assert.equal(bgc.heapAfterBytes, 26510);
  assert.equal(bgc.promotedBytes, 10050);
  // GCHandleCount is the low 32 bits of a signed count.
  assert.equal(gen1.gcHandles, -537);
  assert.ok(rows.every((r) => r.complete && r.heapBeforeBytes === null));
});

test('events out of order (a file\'s blocks per thread) give the same rows', () => {
  const shuffled = [...bgcWithGen1Before.slice(8), ...bgcWithGen1Before.slice(0, 8)];
  assert.deepEqual(buildGcStats(shuffled), buildGcStats(bgcWithGen1Before));
});

test('a GCStart outside any suspension (the trace began mid-GC) and a repeated Count make no row', () => {
  const repeated = [
    ev(1, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(5, 0, 0, 0)),
    ev(2, TRIGGER, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(1, 6)),
    ev(3, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(6, 0, 1, 0)),
    ev(3, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(6, 0, 1, 0)),
    ev(4, TRIGGER, GcEventId.GCEnd, 1, gcEndPayload(6, 0)),
    ev(4, TRIGGER, GcEventId.GCHeapStats, 2, gcHeapStatsPayload(heapAfterBgc)),
    ev(6, TRIGGER, GcEventId.GCRestartEEEnd, 1, none),
  ];
  const { rows } = buildGcStats(repeated);
  assert.deepEqual(rows.map((r) => [r.number, r.reason, r.pauseMs]), [[6, 'Induced', 4]]);
});

test('the heap before and fragmentation come from GCPerHeapHistory, summed over heaps and generations', () => {
  // v3 on 64-bit: u16, 6 pointers, 6 u32 (HeapIndex last), pointer, u32 Count, Count entries of 10 pointers.
  const perHeap = (heap: number, before: number[], freeList: number[], freeObj: number[]): Uint8Array => {
    const b = new Uint8Array(86 + before.length * 80);
    const v = new DataView(b.buffer);
    v.setUint32(70, heap, true);
    v.setUint32(82, before.length, true);
    before.forEach((size, g) => {
      v.setBigUint64(86 + g * 80, BigInt(size), true);
      v.setBigUint64(86 + g * 80 + 32, BigInt(freeList[g]), true);
      v.setBigUint64(86 + g * 80 + 40, BigInt(freeObj[g]), true);
    });
    return b;
  };
  const events = [
    ev(2, TRIGGER, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(1, 1)),
    ev(3, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(2, 2, 1, 0)),
    ev(4, TRIGGER, GcEventId.GCPerHeapHistory, 3, perHeap(0, [10, 20, 30, 40, 50], [1, 0, 0, 0, 0], [0, 2, 0, 0, 0])),
    ev(4, TRIGGER, GcEventId.GCPerHeapHistory, 3, perHeap(1, [1, 2, 3, 4, 5], [0, 0, 0, 0, 4], [0, 0, 0, 0, 0])),
    ev(5, TRIGGER, GcEventId.GCEnd, 1, gcEndPayload(2, 2)),
    ev(5, TRIGGER, GcEventId.GCHeapStats, 2, gcHeapStatsPayload(heapAfterBgc)),
    ev(6, TRIGGER, GcEventId.GCRestartEEEnd, 1, none),
  ];
  const [row] = buildGcStats(events).rows;
  assert.equal(row.heapBeforeBytes, 165);
  assert.equal(row.fragmentationBytes, 7);
});

test('a GC\'s suspension that begins while the sample profiler\'s is still being undone on another thread keeps its GCs', () => {
  // As dotnet-trace's default profile records it: the sampler thread's restart comes after the
  // GC's GCSuspendEEBegin, so only the thread that began a suspension may end it.
  const SAMPLER = 300;
  const events = [
    ev(1, SAMPLER, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(0, 4)),
    ev(2, TRIGGER, GcEventId.GCSuspendEEBegin, 1, gcSuspendEEBeginPayload(1, 4)),
    ev(3, SAMPLER, GcEventId.GCSuspendEEEnd, 1, none),
    ev(4, SAMPLER, GcEventId.GCRestartEEEnd, 1, none),
    ev(5, TRIGGER, GcEventId.GCSuspendEEEnd, 1, none),
    ev(6, TRIGGER, GcEventId.GCStart, 2, gcStartPayload(5, 0, 0, 0)),
    ev(7, TRIGGER, GcEventId.GCEnd, 1, gcEndPayload(5, 0)),
    ev(7, TRIGGER, GcEventId.GCHeapStats, 2, gcHeapStatsPayload(heapAfterBgc)),
    ev(9, TRIGGER, GcEventId.GCRestartEEEnd, 1, none),
  ];
  const { rows } = buildGcStats(events);
  assert.deepEqual(rows.map((r) => [r.number, r.pauseMs, r.suspendMs, r.complete]), [[5, 7, 3, true]]);
});
