// Collects what a .nettrace file says, block by block, into compact tables: samples (columns),
// distinct stacks, method and module definitions, GC events, thread names. Nothing is resolved
// until the end, because the runtime writes its method rundown last.

import { BlockName, ClrscopeEvent, Provider, RundownEvent, RuntimeEvent, ThreadSampleType } from './constants.js';
import { forEachEvent, forEachStack, readMetadataRecord, type EventHeader } from './block-readers.js';
import { readEventCounter, readFieldLayout, type EventCounterValue, type FieldLayout } from './event-counters.js';
import { counted, ImportBudgetError, MAX_SAMPLES, MAX_STACK_FRAMES, samplesClause, type RecordingLimits } from '../../profile/read-budget.js';
import { ImportColumns } from './import-columns.js';
import { ImportEventSamples, NO_STACK, readAllocationTick, readContentionStop, readExceptionThrown, type ImportedEventValues } from './import-event-samples.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import type { ObjectSink } from './object-reader.js';
import { readGcStart, readMethodVerbose, readModule, readRuntimeVersion, readSuspendReason } from './runtime-event-readers.js';
import { SpanReader } from './span-reader.js';
import { StackInterner } from './stack-interner.js';
import { SuspensionBuilder } from './suspension-builder.js';
import { gcEventFigures, isGcTableEvent } from './gc-event-payloads.js';
import type { GcEventRecord } from '../../wire/records.js';
import type { TraceObjectFields } from './object-writer.js';
import { Symbolizer } from './symbolizer.js';

/** The Trace object's fields, as the writer's TraceObjectFields say them. */
export type TraceHeader = TraceObjectFields;

export interface RecordingInfo {
  startMonoNs: number;
  runtimeVersion: string;
  profilerVersion: string;
  flags: number;
  wallThreadsPerTick: number;
}

export interface ImportThread {
  index: number;
  osTid: number;
  firstTimestamp: number;
  name: string;
}

const enum Kind {
  Other,
  ThreadSample,
  Method,
  Module,
  SuspendBegin,
  SuspendEnd,
  GcStart,
  GcEnd,
  RestartEnd,
  RuntimeInfo,
  ClrscopeThread,
  ClrscopeRecording,
  EventCounters,
  AllocationTick,
  ContentionStop,
  ExceptionThrown,
}

interface MetadataKind {
  kind: Kind;
  version: number;
  /** The runtime's GC event this is, when the GC table reads it (gc-event-payloads.ts). */
  gcEvent?: number;
  /** EventCounters: the provider and the payload's field layout. */
  provider?: string;
  layout?: FieldLayout[];
}

const EVENT_COUNTERS = 'EventCounters';
/** About ten events per GC: room for a hundred thousand GCs, and a bound on what a file can make us hold. */
const MAX_GC_EVENTS = 1_000_000;

function kindOf(provider: string, eventId: number): Kind {
  if (provider === Provider.SampleProfiler) return eventId === 0 ? Kind.ThreadSample : Kind.Other;
  if (provider === Provider.Runtime) {
    switch (eventId) {
      case RuntimeEvent.MethodLoadVerbose: case RuntimeEvent.MethodUnloadVerbose: return Kind.Method;
      case RuntimeEvent.ModuleLoad: case RuntimeEvent.ModuleUnload: return Kind.Module;
      case RuntimeEvent.GCSuspendEEBegin: return Kind.SuspendBegin;
      case RuntimeEvent.GCSuspendEEEnd: return Kind.SuspendEnd;
      case RuntimeEvent.GCStart: return Kind.GcStart;
      case RuntimeEvent.GCEnd: return Kind.GcEnd;
      case RuntimeEvent.GCRestartEEEnd: return Kind.RestartEnd;
      case RuntimeEvent.RuntimeInformation: return Kind.RuntimeInfo;
      case RuntimeEvent.GCAllocationTick: return Kind.AllocationTick;
      case RuntimeEvent.ContentionStop: return Kind.ContentionStop;
      case RuntimeEvent.ExceptionThrown: return Kind.ExceptionThrown;
      default: return Kind.Other;
    }
  }
  if (provider === Provider.Rundown) {
    switch (eventId) {
      case RundownEvent.MethodDCStartVerbose: case RundownEvent.MethodDCEndVerbose: return Kind.Method;
      case RundownEvent.ModuleDCStart: case RundownEvent.ModuleDCEnd: return Kind.Module;
      case RundownEvent.RuntimeInformation: return Kind.RuntimeInfo;
      default: return Kind.Other;
    }
  }
  if (provider === Provider.Clrscope) {
    if (eventId === ClrscopeEvent.ThreadInfo) return Kind.ClrscopeThread;
    if (eventId === ClrscopeEvent.RecordingInfo) return Kind.ClrscopeRecording;
  }
  return Kind.Other;
}

export class NettraceImport implements ObjectSink {
  header: TraceHeader | undefined;
  readonly samples = new ImportColumns();
  /** Allocations, lock waits and exceptions (import-event-samples.ts). */
  readonly eventSamples = new ImportEventSamples();
  readonly stacks = new StackInterner();
  readonly symbolizer = new Symbolizer();
  readonly suspensions = new SuspensionBuilder();
  /** The runtime's GC events as GC_EVENT records (`mono` in the file's ticks), for the GC table. */
  readonly gcEvents: GcEventRecord[] = [];
  readonly threads: ImportThread[] = [];
  runtimeVersion = '';
  recordingInfo: RecordingInfo | undefined;
  firstTimestamp = Number.POSITIVE_INFINITY;
  lastTimestamp = Number.NEGATIVE_INFINITY;
  events = 0;
  /** Samples whose stack id named no stack of their sequence-point region. */
  missingStacks = 0;
  /** A file read whole: samples and stack frames held until the end are counted against the read budget. */
  limits: RecordingLimits | undefined;
  /** Called for each EventCounters value as its block is read; without it they are skipped. */
  onEventCounter: ((counter: EventCounterValue) => void) | undefined;

  private readonly kinds = new Map<number, MetadataKind>();
  private readonly threadIndex = new Map<number, number>();
  private readonly names = new Map<number, string>();
  /** File stack id → interned index, for the current sequence-point region. */
  private region: number[] = [];
  private scratch = new Float64Array(256);
  private lastMetadataId = -1;
  private lastKind: MetadataKind = { kind: Kind.Other, version: 0 };
  private lastTid = -1;
  private lastThread = 0;

  onTrace(fields: Uint8Array, offset: number): void {
    const r = new SpanReader(fields, offset, 'Trace object');
    const year = r.i16();
    const month = r.i16();
    r.skip(2); // day of week
    const day = r.i16();
    const hour = r.i16();
    const minute = r.i16();
    const second = r.i16();
    const ms = r.i16();
    this.header = {
      syncTimeUnixMs: Date.UTC(year, month - 1, day, hour, minute, second, ms),
      syncTimeQpc: r.i64(),
      qpcFrequency: r.i64(),
      pointerSize: r.i32(),
      processId: r.i32(),
      numberOfProcessors: r.i32(),
      expectedCpuSamplingRate: r.i32(),
    };
  }

  onBlock(name: string, contents: Uint8Array, offset: number): void {
    switch (name) {
      case BlockName.Metadata:
        forEachEvent(contents, offset, `MetadataBlock at byte ${offset}`, (_h, r, end) => {
          const m = readMetadataRecord(r);
          const kind = kindOf(m.provider, m.eventId);
          if (kind === Kind.Other && m.eventName === EVENT_COUNTERS && this.onEventCounter !== undefined) {
            this.kinds.set(m.metadataId, { kind: Kind.EventCounters, version: m.version, provider: m.provider, layout: readFieldLayout(new SpanReader(r.bytes, r.base, r.what, r.pos, end)) });
          } else {
            const gcEvent = m.provider === Provider.Runtime && isGcTableEvent(m.eventId) ? m.eventId : undefined;
            this.kinds.set(m.metadataId, { kind, version: m.version, gcEvent });
          }
        });
        break;
      case BlockName.Event:
        forEachEvent(contents, offset, `EventBlock at byte ${offset}`, (h, r, end) => this.onEvent(h, r, end));
        break;
      case BlockName.Stack:
        forEachStack(contents, offset, (id, r, size) => this.onStack(id, r, size));
        break;
      case BlockName.SequencePoint:
        // Stack ids are only valid up to the next sequence point.
        this.region = [];
        break;
    }
  }

  /** Name from clrscope's ThreadInfo event, if the file has one. */
  threadName(osTid: number): string {
    return this.names.get(osTid) ?? '';
  }

  private onEvent(h: EventHeader, r: SpanReader, end: number): void {
    this.events++;
    if (h.metadataId !== this.lastMetadataId) {
      this.lastMetadataId = h.metadataId;
      this.lastKind = this.kinds.get(h.metadataId) ?? { kind: Kind.Other, version: 0 };
    }
    const ts = h.timestamp;
    if (!(ts >= 0 && ts <= Number.MAX_SAFE_INTEGER)) this.badTimestamp(ts, r);
    if (ts < this.firstTimestamp) this.firstTimestamp = ts;
    if (ts > this.lastTimestamp) this.lastTimestamp = ts;
    if (this.lastKind.gcEvent !== undefined) this.onGcEvent(h, r, end, ts);
    switch (this.lastKind.kind) {
      case Kind.ThreadSample: {
        const type = end - r.pos >= 4 ? r.i32() : ThreadSampleType.Error;
        let stack = StackInterner.EMPTY;
        if (h.stackId !== 0) {
          const found = this.region[h.stackId];
          if (found === undefined) this.missingStacks++;
          else stack = found;
        }
        if (this.limits !== undefined && this.samples.count + this.eventSamples.count >= MAX_SAMPLES) throw new ImportBudgetError(samplesClause('its events'));
        this.samples.append(ts, this.threadOf(h.threadId, ts), stack, type);
        break;
      }
      case Kind.Method:
        this.symbolizer.addMethod(readMethodVerbose(r));
        break;
      case Kind.Module: {
        const m = readModule(r);
        this.symbolizer.addModule(m.moduleId, m.ilPath);
        break;
      }
      case Kind.SuspendBegin:
        this.suspensions.add(ts, RuntimeEvent.GCSuspendEEBegin, readSuspendReason(r, this.lastKind.version));
        break;
      case Kind.SuspendEnd:
        this.suspensions.add(ts, RuntimeEvent.GCSuspendEEEnd);
        break;
      case Kind.GcStart: {
        const g = readGcStart(r, end - r.pos);
        this.suspensions.add(ts, RuntimeEvent.GCStart, g.depth, g.reason, g.type);
        break;
      }
      case Kind.GcEnd:
        // GCEnd: u32 Count, u32 Depth (the version 0 payload has them too).
        if (end - r.pos >= 8) {
          r.skip(4);
          this.suspensions.add(ts, RuntimeEvent.GCEnd, r.u32());
        }
        break;
      case Kind.RestartEnd:
        this.suspensions.add(ts, RuntimeEvent.GCRestartEEEnd);
        break;
      case Kind.AllocationTick:
      case Kind.ContentionStop:
      case Kind.ExceptionThrown:
        this.onEventSample(h, new SpanReader(r.bytes, r.base, r.what, r.pos, end), end, ts);
        break;
      case Kind.RuntimeInfo:
        if (this.runtimeVersion === '' && end - r.pos >= 18) this.runtimeVersion = readRuntimeVersion(r);
        break;
      case Kind.ClrscopeThread: {
        const osTid = r.u64();
        this.names.set(osTid, r.utf16z());
        break;
      }
      case Kind.EventCounters: {
        // A reader of its own, bounded by the payload: the layout came from the file, not from us.
        const payload = new SpanReader(r.bytes, r.base, r.what, r.pos, end);
        const counter = readEventCounter(payload, this.lastKind.layout ?? [], this.lastKind.provider ?? '', ts);
        if (counter !== undefined) this.onEventCounter?.(counter);
        break;
      }
      case Kind.ClrscopeRecording: {
        const info = { startMonoNs: r.u64(), runtimeVersion: r.utf16z(), profilerVersion: r.utf16z(), flags: r.u32(), wallThreadsPerTick: r.u32() };
        // A value no clock could have is corruption; the file's own clock still works without it.
        if (info.startMonoNs <= Number.MAX_SAFE_INTEGER) this.recordingInfo = info;
        break;
      }
    }
  }

  private onEventSample(h: EventHeader, r: SpanReader, end: number, ts: number): void {
    let v: ImportedEventValues | undefined;
    if (this.lastKind.kind === Kind.AllocationTick) v = readAllocationTick(r, end, this.lastKind.version, this.header?.pointerSize ?? 8);
    else if (this.lastKind.kind === Kind.ContentionStop) v = readContentionStop(r, end, this.lastKind.version);
    else v = readExceptionThrown(r, end);
    if (v === undefined) return;
    let stack = NO_STACK;
    if (h.stackId !== 0) {
      const found = this.region[h.stackId];
      if (found === undefined) this.missingStacks++;
      else stack = found;
    }
    if (this.limits !== undefined && this.samples.count + this.eventSamples.count >= MAX_SAMPLES) throw new ImportBudgetError(samplesClause('its events'));
    this.eventSamples.append(v.kind, ts, this.threadOf(h.threadId, ts), stack, v.label, v.value1, v.value2, v.message);
  }

  private onGcEvent(h: EventHeader, r: SpanReader, end: number, ts: number): void {
    const event = this.lastKind.gcEvent as number;
    const f = gcEventFigures(event, this.lastKind.version, r.bytes.subarray(r.pos, end), this.header?.pointerSize ?? 8);
    if (f === undefined || this.gcEvents.length >= MAX_GC_EVENTS) return;
    this.gcEvents.push({ mono: ts, tid: h.threadId >>> 0, event, version: this.lastKind.version, ...f });
  }

  private badTimestamp(ts: number, r: SpanReader): never {
    throw new NettraceFormatError(`Corrupt .nettrace file: the event before byte ${r.offset} in the ${r.what} has the timestamp ${ts}, outside any clock's range.`, r.offset);
  }

  private threadOf(osTid: number, ts: number): number {
    if (osTid === this.lastTid) return this.lastThread;
    let index = this.threadIndex.get(osTid);
    if (index === undefined) {
      index = this.threads.length;
      this.threads.push({ index, osTid, firstTimestamp: ts, name: '' });
      this.threadIndex.set(osTid, index);
    }
    this.lastTid = osTid;
    this.lastThread = index;
    return index;
  }

  private onStack(id: number, r: SpanReader, size: number): void {
    const wide = (this.header?.pointerSize ?? 8) === 8;
    const count = Math.floor(size / (wide ? 8 : 4));
    if (count > this.scratch.length) this.scratch = new Float64Array(Math.max(count, 2 * this.scratch.length));
    for (let i = 0; i < count; i++) this.scratch[i] = wide ? r.u64() : r.u32();
    if (this.limits !== undefined && this.stacks.frameCount + count > MAX_STACK_FRAMES) {
      // Only a new stack adds to the pool; a repeat of one already held is let through.
      const index = this.stacks.find(this.scratch, count);
      if (index < 0) throw new ImportBudgetError(`its distinct stacks hold more than ${counted(MAX_STACK_FRAMES)} frames, the most clrscope reads of one file`);
      this.region[id] = index;
      return;
    }
    this.region[id] = this.stacks.intern(this.scratch, count);
  }
}
