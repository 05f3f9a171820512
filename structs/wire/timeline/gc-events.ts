// The runtime's own GC events (GCStart, GCEnd, GCHeapStats, the GCSuspendEE/GCRestartEE pairs,
// GCTriggered, the heap histories), one GC_EVENT record each (PROTOCOL.md, GC_EVENT). The
// profiler decodes the few figures a GC table needs from each payload, and a .nettrace import
// decodes the same figures from the same payloads, so one builder (structs/analysis/gc-stats.ts)
// reads both. Recordings made before RUNTIME_EVENT existed carried the thread pool's events here
// too; they are moved to their own kind as they are decoded, so the GC table sees GC events only.

import { RecordType, type GcEventRecord } from '../records.js';
import { genericTimelineKind, type TimelineKind } from './timeline-kind.js';
import { RUNTIME_EVENTS, fourValueEventFields, isPoolEvent } from './runtime-events.js';

const RUNTIME_KIND = genericTimelineKind(RUNTIME_EVENTS);

/** Event ids of provider Microsoft-Windows-DotNETRuntime (keyword GC 0x1). */
export const GcEventId = {
  GCStart: 1,
  GCEnd: 2,
  GCRestartEEEnd: 3,
  GCHeapStats: 4,
  GCRestartEEBegin: 7,
  GCSuspendEEEnd: 8,
  GCSuspendEEBegin: 9,
  GCTriggered: 35,
  GCPerHeapHistory: 204,
  GCGlobalHeapHistory: 205,
} as const;

/**
 * What `a`..`d` hold per event (absent: 0):
 * GCStart: Count, Depth, Reason, Type. GCEnd: Count, Depth. GCSuspendEEBegin: Reason (ETW's:
 * 1 GC, 6 GC preparation), Count. GCTriggered: Reason. GCHeapStats: GenerationSize0..4 summed
 * (the heap after the GC), TotalPromotedSize0..4 summed, GCHandleCount as written (a u32 of a
 * signed value), PinnedObjectCount. GCPerHeapHistory: SizeBefore over the generations, free
 * list and free objects after over the generations (fragmentation), HeapIndex, SizeAfter over the
 * generations. GCGlobalHeapHistory: CondemnedGeneration, GlobalMechanisms, NumHeaps, Reason.
 */
export const GC_EVENTS: TimelineKind<GcEventRecord> = Object.freeze({
  name: 'GC_EVENT',
  recordType: RecordType.GcEvent,
  fields: fourValueEventFields('u8'),
  startField: 'mono',
  end: (e: GcEventRecord) => e.mono,
  dumpName: 'gc-event',
  belongsTo: (e: GcEventRecord) => (isPoolEvent(e.event) ? RUNTIME_KIND : undefined),
});
