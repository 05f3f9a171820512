// The runtime's own events that are not a GC's, one RUNTIME_EVENT record each (PROTOCOL.md,
// RUNTIME_EVENT): the thread pool's Threading events (workers started and stopped, the injection
// algorithm's samples and adjustments), which `record --requests` asks for, and, on .NET 9 and
// later, a thread's WaitHandleWaitStart/Stop. They have a kind of their own so that the GC table
// reads only GC events; recordings made before it carried the pool's under GC_EVENT, and the
// decoder moves those here (gc-events.ts, belongsTo).

import { RecordType, type GcEventRecord, type RuntimeEventRecord } from '../records.js';
import type { TimelineField, TimelineKind } from './timeline-kind.js';

/** The fields of GC_EVENT (an event id of a byte) and RUNTIME_EVENT (two bytes), in wire order. */
export function fourValueEventFields(eventType: 'u8' | 'u16'): readonly TimelineField<GcEventRecord>[] {
  return Object.freeze([
    { key: 'mono', type: 'u64' },
    { key: 'tid', type: 'u32' },
    { key: 'event', type: eventType },
    { key: 'version', type: 'u8' },
    { key: 'a', type: 'u64' },
    { key: 'b', type: 'u64' },
    { key: 'c', type: 'u64' },
    { key: 'd', type: 'u64' },
  ]);
}

/** Event ids of provider Microsoft-Windows-DotNETRuntime that RUNTIME_EVENT carries. */
export const RuntimeEventId = {
  /** Keyword Threading (0x10000), Informational. */
  WorkerThreadStart: 50,
  WorkerThreadStop: 51,
  AdjustmentSample: 54,
  Adjustment: 55,
  /** Keyword WaitHandle (0x40000000000), Verbose, .NET 9+. */
  WaitHandleWaitStart: 301,
  WaitHandleWaitStop: 302,
} as const;

/** WaitHandleWaitStart's WaitSource, as the runtime's manifest names its values. */
export const WAIT_SOURCES = ['Unknown', 'MonitorWait'] as const;

/** The pool's events, the ones older recordings carried as GC_EVENT. */
export function isPoolEvent(event: number): boolean {
  return event === RuntimeEventId.WorkerThreadStart || event === RuntimeEventId.WorkerThreadStop || event === RuntimeEventId.AdjustmentSample || event === RuntimeEventId.Adjustment;
}

/**
 * What `a`..`d` hold per event (absent: 0):
 * WorkerThreadStart/Stop: ActiveWorkerThreadCount, RetiredWorkerThreadCount. AdjustmentSample:
 * Throughput in thousandths of an item per second. Adjustment: NewWorkerThreadCount, Reason,
 * AverageThroughput in thousandths. WaitHandleWaitStart: WaitSource (0 Unknown, 1 MonitorWait),
 * AssociatedObjectID (the object waited on, an address). WaitHandleWaitStop: nothing.
 */
export const RUNTIME_EVENTS: TimelineKind<RuntimeEventRecord> = Object.freeze({
  name: 'RUNTIME_EVENT',
  recordType: RecordType.RuntimeEvent,
  fields: fourValueEventFields('u16'),
  startField: 'mono',
  end: (e: RuntimeEventRecord) => e.mono,
  dumpName: 'runtime-event',
});
