// The runtime's allocation, lock-wait and exception events of a .nettrace (clrscope's own export,
// or a dotnet-trace file with the GC keyword at Verbose, Contention or Exception on), held column
// by column until the stacks are named, then turned into event samples (wire EVENTS) the way the
// profiler records them:
// - GCAllocationTick → an allocation: value1 = the bytes the tick stands for (AllocationAmount64
//   from v2, AllocationAmount before), value2 = objects = bytes / ObjectSize (v4; 1 without it),
//   label = TypeName (v2+);
// - ContentionStop → a lock wait of DurationNs (v1+, .NET 8; 0 before), label none. Starts are
//   not needed: the stop has the duration and the waiting thread's stack;
// - ExceptionThrown → one exception of ExceptionType, its message ExceptionMessage (none when empty).

import { EventKind } from '../../wire/records.js';
import type { SpanReader } from './span-reader.js';

/** `stack` of an event without one. */
export const NO_STACK = 0xffffffff;

export class ImportEventSamples {
  kind = new Uint8Array(0);
  timestamp = new Float64Array(0);
  thread = new Uint32Array(0);
  /** Interned stack index, NO_STACK for none. */
  stack = new Uint32Array(0);
  /** 1 + index into `labels`, 0 for none. */
  label = new Uint32Array(0);
  value1 = new Float64Array(0);
  value2 = new Float64Array(0);
  hasValue2 = new Uint8Array(0);
  /** 1 + index into `labels` of the event's message, 0 for none. */
  message = new Uint32Array(0);
  count = 0;
  readonly labels: string[] = [];
  private readonly labelIds = new Map<string, number>();

  append(kind: number, timestamp: number, thread: number, stack: number, label: string, value1: number, value2: number | undefined, message = ''): void {
    const i = this.count;
    if (i === this.kind.length) this.grow();
    this.kind[i] = kind;
    this.timestamp[i] = timestamp;
    this.thread[i] = thread;
    this.stack[i] = stack;
    this.label[i] = this.labelId(label);
    this.value1[i] = value1;
    this.value2[i] = value2 ?? 0;
    this.hasValue2[i] = value2 === undefined ? 0 : 1;
    this.message[i] = this.labelId(message);
    this.count = i + 1;
  }

  /** Indexes in time order. */
  timeOrder(): Uint32Array {
    const order = new Uint32Array(this.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const ts = this.timestamp;
    return order.sort((a, b) => ts[a] - ts[b] || a - b);
  }

  private labelId(label: string): number {
    if (label === '') return 0;
    let id = this.labelIds.get(label);
    if (id === undefined) {
      this.labels.push(label);
      id = this.labels.length;
      this.labelIds.set(label, id);
    }
    return id;
  }

  private grow(): void {
    const size = Math.max(256, this.kind.length * 2);
    const kind = new Uint8Array(size); kind.set(this.kind); this.kind = kind;
    const timestamp = new Float64Array(size); timestamp.set(this.timestamp); this.timestamp = timestamp;
    const thread = new Uint32Array(size); thread.set(this.thread); this.thread = thread;
    const stack = new Uint32Array(size); stack.set(this.stack); this.stack = stack;
    const label = new Uint32Array(size); label.set(this.label); this.label = label;
    const value1 = new Float64Array(size); value1.set(this.value1); this.value1 = value1;
    const value2 = new Float64Array(size); value2.set(this.value2); this.value2 = value2;
    const hasValue2 = new Uint8Array(size); hasValue2.set(this.hasValue2); this.hasValue2 = hasValue2;
    const message = new Uint32Array(size); message.set(this.message); this.message = message;
  }
}

export interface ImportedEventValues {
  kind: number;
  label: string;
  value1: number;
  value2: number | undefined;
  /** An exception's message; absent or '': none. */
  message?: string;
}

/**
 * GCAllocationTick of any version: v0 u32 amount, u32 kind; v1 + u16 ClrInstanceID; v2 + u64
 * amount64, pointer TypeID, string TypeName, u32 HeapIndex; v3 + pointer Address; v4 + u64
 * ObjectSize. Undefined when the payload is too short for its version.
 */
export function readAllocationTick(r: SpanReader, end: number, version: number, pointerSize: number): ImportedEventValues | undefined {
  if (end - r.pos < 8) return undefined;
  let bytes = r.u32();
  r.skip(4);
  let label = '';
  let objectSize = 0;
  if (version >= 2 && end - r.pos >= 10 + pointerSize) {
    r.skip(2);
    bytes = r.u64();
    r.skip(pointerSize);
    label = r.utf16z();
    if (version >= 4 && end - r.pos >= 4 + pointerSize + 8) {
      r.skip(4 + pointerSize);
      objectSize = r.u64();
    }
  }
  const objects = objectSize > 0 ? Math.max(1, Math.round(bytes / objectSize)) : 1;
  return { kind: EventKind.Allocation, label, value1: bytes, value2: objects };
}

/** ContentionStop: u8 flags, u16 ClrInstanceID, then (v1+) double DurationNs. */
export function readContentionStop(r: SpanReader, end: number, version: number): ImportedEventValues {
  let waitNs = 0;
  if (version >= 1 && end - r.pos >= 11) {
    r.skip(3);
    const d = r.f64();
    if (Number.isFinite(d) && d > 0) waitNs = Math.round(d);
  }
  return { kind: EventKind.Contention, label: '', value1: waitNs, value2: undefined };
}

/** ExceptionThrown (v1): string ExceptionType, string ExceptionMessage first. */
export function readExceptionThrown(r: SpanReader, end: number): ImportedEventValues | undefined {
  if (end - r.pos < 2) return undefined;
  const label = r.utf16z();
  const message = end - r.pos >= 2 ? r.utf16z() : '';
  return { kind: EventKind.Exception, label, value1: 1, value2: undefined, message };
}
