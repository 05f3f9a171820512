// A clrscope suspension as the runtime's own GC events, at the times the runtime would raise
// them: GCSuspendEEBegin when the suspension starts, GCSuspendEEEnd when every thread stopped,
// GCStart/GCEnd around the collection when a GC ran in the pause, GCRestartEEBegin/End when the
// threads run again. Reasons are translated between the profiling API's COR_PRF_SUSPEND_REASON
// (what clrscope records) and ETW's GCSuspendEE reason (what the events carry).

import type { GcEventRecord, SuspensionRecord } from '../../wire/records.js';
import { GcEventId } from '../../wire/timeline/gc-events.js';
import { SuspensionFlags } from '../../wire/records.js';
import { EtwSuspendReason } from './constants.js';
import type { EventDefinition } from './event-definitions.js';
import {
  GCEndEvent, GCRestartEEBeginEvent, GCRestartEEEndEvent, GCStartEvent, GCSuspendEEBeginEvent, GCSuspendEEEndEvent,
} from './event-definitions.js';
import { gcEndPayload, gcNoUserDataPayload, gcStartPayload, gcSuspendEEBeginPayload } from './runtime-payloads.js';

/** COR_PRF_SUSPEND_REASON → ETW GCSuspendEE reason. */
export function etwSuspendReason(corPrfReason: number): number {
  switch (corPrfReason) {
    case 1: return EtwSuspendReason.GC;
    case 2: return EtwSuspendReason.AppDomainShutdown;
    case 3: return EtwSuspendReason.CodePitching;
    case 4: return EtwSuspendReason.Shutdown;
    case 6: return EtwSuspendReason.Debugger;
    case 7: return EtwSuspendReason.GCPrep;
    default: return EtwSuspendReason.Other;
  }
}

/** ETW GCSuspendEE reason → COR_PRF_SUSPEND_REASON. */
export function corPrfSuspendReason(etwReason: number): number {
  switch (etwReason) {
    case EtwSuspendReason.GC: return 1;
    case EtwSuspendReason.AppDomainShutdown: return 2;
    case EtwSuspendReason.CodePitching: return 3;
    case EtwSuspendReason.Shutdown: return 4;
    case EtwSuspendReason.Debugger:
    case EtwSuspendReason.DebuggerSweep: return 6;
    case EtwSuspendReason.GCPrep: return 7;
    default: return 0;
  }
}

export interface GcEvent {
  timestamp: number;
  def: EventDefinition;
  payload: Uint8Array;
  /** The OS thread that raised it, when the recording says (GC_EVENT records). */
  tid?: number;
}

const NO_USER_DATA = gcNoUserDataPayload();
/** GCStart reasons: 1 induced, 0 "small object allocation" (the usual trigger). */
const GC_REASON_INDUCED = 1;
const GC_REASON_ALLOC_SMALL = 0;
/** GCStart type 0: a blocking (non-concurrent) GC. */
const GC_TYPE_NON_CONCURRENT = 0;

/** The events of every suspension, in time order (ties keep the order above). */
export function gcEventsOf(suspensions: readonly SuspensionRecord[]): GcEvent[] {
  const events: GcEvent[] = [];
  let gcCount = 0;
  for (const s of suspensions) {
    const hasGc = s.generation >= 0;
    if (hasGc) gcCount++;
    const stopped = s.mono + s.suspendNs;
    const resumed = s.mono + s.durationNs;
    events.push({ timestamp: s.mono, def: GCSuspendEEBeginEvent, payload: gcSuspendEEBeginPayload(etwSuspendReason(s.reason), gcCount) });
    events.push({ timestamp: stopped, def: GCSuspendEEEndEvent, payload: NO_USER_DATA });
    if (hasGc) {
      const reason = (s.flags & SuspensionFlags.Induced) !== 0 ? GC_REASON_INDUCED : GC_REASON_ALLOC_SMALL;
      events.push({ timestamp: stopped, def: GCStartEvent, payload: gcStartPayload(gcCount, s.generation, reason, GC_TYPE_NON_CONCURRENT) });
      events.push({ timestamp: resumed, def: GCEndEvent, payload: gcEndPayload(gcCount, s.generation) });
    }
    events.push({ timestamp: resumed, def: GCRestartEEBeginEvent, payload: NO_USER_DATA });
    events.push({ timestamp: resumed, def: GCRestartEEEndEvent, payload: NO_USER_DATA });
  }
  // Suspensions arrive in order of their end; events must go out in order of their time.
  const order = events.map((_, i) => i);
  order.sort((a, b) => events[a].timestamp - events[b].timestamp || a - b);
  return order.map((i) => events[i]);
}

/**
 * The runtime's own GC events as the recording kept them (GC_EVENT records), on the threads that
 * raised them: every GCStart with its number, generation, reason and type, and the suspensions
 * with ETW's own reasons, so a reader counts each collection as the runtime did. GCHeapStats and
 * the heap histories are left out: a GC_EVENT keeps their sums, not the per-generation figures
 * their payloads need.
 */
export function gcEventsOfRecords(records: readonly GcEventRecord[]): GcEvent[] {
  const events: GcEvent[] = [];
  for (const r of records) {
    const at = { timestamp: r.mono, tid: r.tid };
    switch (r.event) {
      case GcEventId.GCSuspendEEBegin: events.push({ ...at, def: GCSuspendEEBeginEvent, payload: gcSuspendEEBeginPayload(r.a, r.b) }); break;
      case GcEventId.GCSuspendEEEnd: events.push({ ...at, def: GCSuspendEEEndEvent, payload: NO_USER_DATA }); break;
      case GcEventId.GCStart: events.push({ ...at, def: GCStartEvent, payload: gcStartPayload(r.a, r.b, r.c, r.d) }); break;
      case GcEventId.GCEnd: events.push({ ...at, def: GCEndEvent, payload: gcEndPayload(r.a, r.b) }); break;
      case GcEventId.GCRestartEEBegin: events.push({ ...at, def: GCRestartEEBeginEvent, payload: NO_USER_DATA }); break;
      case GcEventId.GCRestartEEEnd: events.push({ ...at, def: GCRestartEEEndEvent, payload: NO_USER_DATA }); break;
    }
  }
  const order = events.map((_, i) => i);
  order.sort((a, b) => events[a].timestamp - events[b].timestamp || a - b);
  return order.map((i) => events[i]);
}
