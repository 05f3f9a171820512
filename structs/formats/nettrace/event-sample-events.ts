// clrscope's event samples (wire v2 EVENTS: allocations, lock waits, exceptions) as the events the
// .NET runtime itself raises for them, so TraceEvent's ClrTraceEventParser and PerfView read them
// as they read a dotnet-trace file (GC Heap Alloc, contention and exception views):
//
// - an allocation sample → GCAllocationTick v4 on the allocating thread, with its stack. The
//   runtime's tick says "AllocationAmount64 bytes were allocated since the previous tick, and this
//   object of ObjectSize bytes crossed the threshold"; PerfView weighs each tick by that amount.
//   A clrscope sample is already an estimate of the bytes (value1) and objects (value2) it stands
//   for (AllocationTick's own amount on .NET 8/9; AllocationSampled's unbiased upscaling on .NET
//   10), so AllocationAmount64 = value1 rounded, ObjectSize = value1 / value2 (the sampled
//   object's size: exact for AllocationSampled, the tick object's size for AllocationTick) and
//   AllocationKind large from 85,000 bytes, the runtime's large-object threshold. Summing
//   AllocationAmount64 per type gives the recording's alloc-space totals.
// - a lock wait → ContentionStart v2 at (its time − the wait) and ContentionStop v1 (DurationNs =
//   the wait) at its time, both on the waiting thread with its stack: clrscope records the wait
//   when it ends, with the duration the runtime measured. Lock and owner are not recorded (0).
// - an exception → ExceptionThrown v1 on the throwing thread with its stack; type = the label,
//   ExceptionMessage = the recorded message (the thrown object's _message field; empty when it
//   had none or was over the stack budget), HRESULT 0 (not recorded), the leaf frame's address
//   as the throwing IP.
//   An event counted without a stack (over the profiler's stack budget, value1 = how many) becomes
//   that many events without a stack, so per-type counts stay exact.
//
// Kinds this writer does not know are left out (a nettrace has no place for them).

import type { EventColumnViews, Recording } from '../../profile/recording.js';
import { EventFlags, EventKind } from '../../wire/records.js';
import { ContentionStartEvent, ContentionStopEvent, ExceptionThrownEvent, GCAllocationTickEvent } from './event-definitions.js';
import type { NettraceFileWriter } from './nettrace-file-writer.js';
import {
  AllocationKind, ContentionFlags, contentionStartPayload, contentionStopPayload, EXCEPTION_FLAG_CLS_COMPLIANT, exceptionThrownPayload,
  gcAllocationTickPayload,
} from './runtime-payloads.js';

/** The runtime's large-object threshold: objects from this size go to the LOH. */
export const LARGE_OBJECT_BYTES = 85_000;
/** Made-up TypeIDs (the runtime writes the MethodTable): one per type name, apart from code and module addresses. */
export const TYPE_ID_BASE = 0x7e0000000000;
const TYPE_ID_STRIDE = 0x10;

/** An entry's low bit: 1 for the ContentionStart half of a lock wait. */
const START_BIT = 1;

export interface EventSampleTarget {
  writer: NettraceFileWriter;
  /** The writer's stack id for a recording stack id (0 when it is negative: no stack). */
  stackId(recordingStackId: number): number;
  /** The OS thread id of a recording thread id (thread 0, no thread, included). */
  osTid(threadId: number): number;
  /** The code address of a stack's leaf frame, for ExceptionEIP (0 when there is none). */
  leafAddress(recordingStackId: number): number;
}

/** The recording's event samples as runtime events, in time order, written one time step at a time. */
export class EventSampleEvents {
  private readonly rec: Recording;
  private readonly e: EventColumnViews;
  private readonly times: Float64Array;
  /** Event index × 2, + START_BIT for a ContentionStart. */
  private readonly codes: Uint32Array;
  private next = 0;

  constructor(rec: Recording) {
    this.rec = rec;
    const e = rec.events();
    this.e = e;
    let n = 0;
    for (let i = 0; i < e.kind.length; i++) {
      const k = e.kind[i];
      if (k === EventKind.Contention) n += 2;
      else if (k === EventKind.Allocation || k === EventKind.Exception) n++;
    }
    const times = new Float64Array(n);
    const codes = new Uint32Array(n);
    let at = 0;
    for (let i = 0; i < e.kind.length; i++) {
      const k = e.kind[i];
      if (k === EventKind.Contention) {
        times[at] = Math.max(0, e.mono[i] - e.value1[i]);
        codes[at++] = i * 2 + START_BIT;
      }
      if (k === EventKind.Contention || k === EventKind.Allocation || k === EventKind.Exception) {
        times[at] = e.mono[i];
        codes[at++] = i * 2;
      }
    }
    // Time order; a wait's start before its stop, and otherwise the recording's order.
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => times[a] - times[b] || a - b);
    this.times = new Float64Array(n);
    this.codes = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      this.times[i] = times[order[i]];
      this.codes[i] = codes[order[i]];
    }
  }

  get length(): number {
    return this.times.length;
  }

  /** The time of the first entry, +Infinity when there is none. */
  get firstTime(): number {
    return this.times.length > 0 ? this.times[0] : Number.POSITIVE_INFINITY;
  }

  /** The time of the next entry to write, +Infinity when all are written. */
  get nextTime(): number {
    return this.next < this.times.length ? this.times[this.next] : Number.POSITIVE_INFINITY;
  }

  /** Writes the next entry (one event, or several for a count of exceptions without a stack). */
  writeNext(to: EventSampleTarget): void {
    const ts = this.times[this.next];
    const code = this.codes[this.next++];
    const i = code >>> 1;
    const e = this.e;
    const tid = to.osTid(e.threadId[i]);
    const stack = e.stackId[i];
    const sid = to.stackId(stack);
    switch (e.kind[i]) {
      case EventKind.Allocation: {
        const bytes = Math.max(0, Math.round(e.value1[i]));
        const objects = (e.flags[i] & EventFlags.HasValue2) !== 0 ? e.value2[i] : 1;
        const objectSize = objects > 0 ? Math.round(e.value1[i] / objects) : bytes;
        to.writer.writeEvent(GCAllocationTickEvent, tid, sid, ts, gcAllocationTickPayload({
          amount: bytes,
          kind: objectSize >= LARGE_OBJECT_BYTES ? AllocationKind.Large : AllocationKind.Small,
          typeId: e.labelId[i] === 0 ? 0 : TYPE_ID_BASE + e.labelId[i] * TYPE_ID_STRIDE,
          typeName: this.rec.strings().get(e.labelId[i]) ?? '',
          heapIndex: 0,
          address: 0,
          objectSize,
        }));
        break;
      }
      case EventKind.Contention:
        if ((code & START_BIT) !== 0) {
          to.writer.writeEvent(ContentionStartEvent, tid, sid, ts, contentionStartPayload(ContentionFlags.Managed, 0, 0, 0));
        } else {
          to.writer.writeEvent(ContentionStopEvent, tid, sid, ts, contentionStopPayload(ContentionFlags.Managed, e.value1[i]));
        }
        break;
      case EventKind.Exception: {
        const strings = this.rec.strings();
        const message = e.messageId[i] !== 0 ? strings.get(e.messageId[i]) ?? '' : '';
        const payload = exceptionThrownPayload(strings.get(e.labelId[i]) ?? '', message, to.leafAddress(stack), 0, EXCEPTION_FLAG_CLS_COMPLIANT);
        const count = Math.max(1, Math.round(e.value1[i]));
        for (let c = 0; c < count; c++) to.writer.writeEvent(ExceptionThrownEvent, tid, sid, ts, payload);
        break;
      }
    }
  }
}
