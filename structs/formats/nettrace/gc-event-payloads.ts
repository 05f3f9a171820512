// The figures a GC table needs from the runtime's GC event payloads, decoded into a GC_EVENT's
// `a`..`d` (structs/wire/timeline/gc-events.ts says which figure goes where). The layouts are
// the runtime manifest's templates as TraceEvent's ClrTraceEventParser reads them: packed,
// little-endian, pointers of the target's size. The profiler decodes the same figures from the
// same payloads (native-profiler/core/gc_event_payloads.cpp).

import { GcEventId } from '../../wire/timeline/gc-events.js';

export interface GcEventFigures {
  a: number;
  b: number;
  c: number;
  d: number;
}

/** GCHeapStats: generation size and promoted bytes of gens 0..3 in pairs, then (v2+) at 94 gen 4's pair. */
const HEAP_STATS_V1 = 94;
const HEAP_STATS_V2 = 110;
/** GCPerHeapHistory v3+: ten pointers per generation entry (SizeBefore, FreeListBefore, ...). */
const PER_HEAP_ENTRY_POINTERS = 10;

/** The decoded figures of one of the GC events GcEventId lists; undefined for other events and short payloads. */
export function gcEventFigures(event: number, version: number, payload: Uint8Array, pointerSize: number): GcEventFigures | undefined {
  const v = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const size = payload.byteLength;
  const u32 = (at: number): number => v.getUint32(at, true);
  const u64 = (at: number): number => Number(v.getBigUint64(at, true));
  const ptr = (at: number): number => (pointerSize === 8 ? u64(at) : u32(at));
  switch (event) {
    case GcEventId.GCStart:
      // v0: Count, Reason; v1+: Count, Depth, Reason, Type.
      if (version >= 1 && size >= 16) return { a: u32(0), b: u32(4), c: u32(8), d: u32(12) };
      if (size >= 8) return { a: u32(0), b: 0, c: u32(4), d: 0 };
      return undefined;
    case GcEventId.GCEnd:
      if (version >= 1 && size >= 8) return { a: u32(0), b: u32(4), c: 0, d: 0 };
      if (size >= 6) return { a: u32(0), b: v.getUint16(4, true), c: 0, d: 0 };
      return undefined;
    case GcEventId.GCSuspendEEBegin:
      if (version >= 1 && size >= 8) return { a: u32(0), b: u32(4), c: 0, d: 0 };
      if (size >= 2) return { a: v.getUint16(0, true), b: 0, c: 0, d: 0 };
      return undefined;
    case GcEventId.GCTriggered:
      return size >= 4 ? { a: u32(0), b: 0, c: 0, d: 0 } : undefined;
    case GcEventId.GCSuspendEEEnd:
    case GcEventId.GCRestartEEBegin:
    case GcEventId.GCRestartEEEnd:
      return { a: 0, b: 0, c: 0, d: 0 };
    case GcEventId.GCHeapStats: {
      if (size < HEAP_STATS_V1) return undefined;
      let heap = u64(0) + u64(16) + u64(32) + u64(48);
      let promoted = u64(8) + u64(24) + u64(40) + u64(56);
      if (size >= HEAP_STATS_V2) {
        heap += u64(94);
        promoted += u64(102);
      }
      return { a: heap, b: promoted, c: u32(88), d: u32(80) };
    }
    case GcEventId.GCPerHeapHistory: {
      if (version < 3 || (pointerSize !== 4 && pointerSize !== 8)) return undefined;
      // u16 ClrInstanceID, 6 pointers, 6 u32 (HeapIndex the last), pointer ExtraGen0Commit, u32 Count, entries.
      const heapIndexAt = 2 + 6 * pointerSize + 5 * 4;
      const countAt = heapIndexAt + 4 + pointerSize;
      const entriesAt = countAt + 4;
      if (size < entriesAt) return undefined;
      const count = u32(countAt);
      const entry = PER_HEAP_ENTRY_POINTERS * pointerSize;
      let before = 0, free = 0, after = 0;
      for (let g = 0; g < count && entriesAt + (g + 1) * entry <= size; g++) {
        const at = entriesAt + g * entry;
        before += ptr(at);
        after += ptr(at + 3 * pointerSize);
        free += ptr(at + 4 * pointerSize) + ptr(at + 5 * pointerSize);
      }
      return { a: before, b: free, c: u32(heapIndexAt), d: after };
    }
    case GcEventId.GCGlobalHeapHistory:
      // u64 FinalYoungestDesired, i32 NumHeaps, u32 CondemnedGeneration, u32 Gen0ReductionCount, u32 Reason, u32 GlobalMechanisms.
      if (size < 28) return undefined;
      return { a: u32(12), b: u32(24), c: u32(8), d: u32(20) };
    default:
      return undefined;
  }
}

/** Whether an event of the runtime provider is one the GC table reads. */
export function isGcTableEvent(event: number): boolean {
  return GC_TABLE_EVENTS.has(event);
}

const GC_TABLE_EVENTS = new Set<number>(Object.values(GcEventId));
