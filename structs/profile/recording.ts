// The recording of one process's stream: an append-only store the decoder feeds directly
// (it is the WireSink), so samples go from socket bytes to typed-array columns with no
// intermediate objects.

import type { WireSink } from '../wire/decoder.js';
import {
  FunctionKind, HelloFlags, SampleFlags,
  type EndRecord, type FunctionRecord, type HelloRecord, type StatsRecord, type SuspensionRecord, type ThreadEndRecord,
  type ThreadRecord,
} from '../wire/records.js';
import type { FunctionInfo } from './frame-label.js';
import { RecordingError } from './recording-error.js';
import { SampleColumns, type SampleColumnViews } from './sample-columns.js';
import { NO_EXTRA_ROOT, StackTable } from './stack-table.js';

export type { FunctionInfo } from './frame-label.js';
export type { SampleColumnViews } from './sample-columns.js';

/**
 * Function id of the synthetic root frame added to incomplete stacks. Wire ids are writer
 * numbers starting low; the top u32 is the one value this reader reserves for itself.
 */
export const INCOMPLETE_STACK_FUNCTION_ID = 0xffffffff;
export const INCOMPLETE_STACK_NAME = '[incomplete stack]';

export type SampleMetric = 'cpu' | 'wall' | 'samples';

export interface RecordingMeta {
  readonly pid: number;
  readonly flags: number;
  readonly intervalNs: number;
  readonly wallThreadsPerTick: number;
  readonly runtimeVersion: string;
  readonly profilerVersion: string;
  /** Target's CLOCK_MONOTONIC at HELLO, in ns; pairs with startUnixNs to place mono times on the calendar. */
  readonly startMono: number;
  readonly startUnixNs: bigint;
  /** The profiler was attached to a running process rather than loaded at startup. */
  readonly attached: boolean;
  /** CPU values are estimates (HELLO flag ApproximateCpu): e.g. the runtime's EventPipe sample profiler counted them from samples in managed code. */
  readonly approximateCpu: boolean;
}

export interface ThreadInfo {
  readonly id: number;
  readonly osTid: number;
  readonly clrThreadId: number;
  /** The latest name the writer sent; empty when unnamed. */
  readonly name: string;
  readonly firstSeenMono: number;
  readonly lastSeenMono: number;
  readonly ended: boolean;
}

interface MutableThread {
  id: number;
  osTid: number;
  clrThreadId: number;
  name: string;
  firstSeenMono: number;
  lastSeenMono: number;
  ended: boolean;
}

export type SampleVisitor = (index: number, mono: number, threadId: number, stackId: number, cpuNs: number, wallNs: number, flags: number) => void;

const INCOMPLETE_STACK: FunctionInfo = Object.freeze({
  id: INCOMPLETE_STACK_FUNCTION_ID, kind: FunctionKind.Synthetic, name: INCOMPLETE_STACK_NAME, module: '', file: '',
});

// Rough per-entry costs for byteSize(): a JS object with a handful of fields plus a Map entry.
const OBJECT_OVERHEAD = 96;

export class Recording implements WireSink {
  private metaValue: RecordingMeta | undefined;
  private statsValue: StatsRecord | undefined;
  private endValue: EndRecord | undefined;
  private finished = false;
  // END received or finish() called: one flag so the sample path tests a single boolean.
  private closed = false;
  private cutValue = false;
  private readonly threadMap = new Map<number, MutableThread>();
  private readonly functionMap = new Map<number, FunctionInfo>();
  private readonly columns = new SampleColumns();
  private readonly suspensionList: SuspensionRecord[] = [];
  private readonly stacks: StackTable;
  private stringBytes = 0;

  constructor() {
    this.functionMap.set(INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK);
    this.stacks = new StackTable((frames) => this.checkFrames(frames));
  }

  /** From HELLO; undefined until it arrives. */
  get meta(): RecordingMeta | undefined {
    return this.metaValue;
  }

  /** The latest STATS (cumulative counters). */
  get stats(): StatsRecord | undefined {
    return this.statsValue;
  }

  /** The END record, when the stream ended cleanly. */
  get end(): EndRecord | undefined {
    return this.endValue;
  }

  /** True once finish() was called on a stream that stopped without END. */
  get cut(): boolean {
    return this.cutValue;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Every runtime suspension in order of its end; GC pauses have reason 1. */
  suspensions(): readonly SuspensionRecord[] {
    return this.suspensionList;
  }

  get sampleCount(): number {
    return this.columns.count;
  }

  get stackCount(): number {
    return this.stacks.count;
  }

  /** Marks the stream over: no more records are accepted, and `cut` says whether END was missing. */
  finish(): void {
    this.finished = true;
    this.closed = true;
    this.cutValue = this.endValue === undefined;
  }

  threads(): ThreadInfo[] {
    return Array.from(this.threadMap.values());
  }

  thread(id: number): ThreadInfo | undefined {
    return this.threadMap.get(id);
  }

  /** Every function, including the synthetic INCOMPLETE_STACK one. */
  functions(): FunctionInfo[] {
    return Array.from(this.functionMap.values());
  }

  functionInfo(id: number): FunctionInfo | undefined {
    return this.functionMap.get(id);
  }

  /** Frames of a stack, leaf first, as a view into the stack table: read it, do not keep or write it. */
  stackFrames(stackId: number): Uint32Array {
    return this.stacks.frames(stackId);
  }

  sampleMono(i: number): number { return this.columns.mono[i]; }
  sampleThreadId(i: number): number { return this.columns.threadId[i]; }
  sampleStackId(i: number): number { return this.columns.stackId[i]; }
  sampleCpuNs(i: number): number { return this.columns.cpuNs[i]; }
  sampleWallNs(i: number): number { return this.columns.wallNs[i]; }
  sampleFlags(i: number): number { return this.columns.flags[i]; }

  /** The metric's value of sample i: ns for cpu/wall, 1 for samples. */
  sampleValue(i: number, metric: SampleMetric): number {
    if (metric === 'cpu') return this.columns.cpuNs[i];
    if (metric === 'wall') return this.columns.wallNs[i];
    return 1;
  }

  /** Column views over the stored samples; valid until the next sample is appended. */
  sampleColumns(): SampleColumnViews {
    return this.columns.views();
  }

  forEachSample(visit: SampleVisitor): void {
    const c = this.columns;
    const n = c.count;
    for (let i = 0; i < n; i++) visit(i, c.mono[i], c.threadId[i], c.stackId[i], c.cpuNs[i], c.wallNs[i], c.flags[i]);
  }

  /** Approximate bytes held: typed-array capacity plus an estimate for thread and function objects. */
  byteSize(): number {
    return this.columns.byteSize() + this.stacks.byteSize()
      + (this.threadMap.size + this.functionMap.size) * OBJECT_OVERHEAD + this.stringBytes;
  }

  onHello(r: HelloRecord): void {
    this.checkOpen();
    if (this.metaValue !== undefined) throw new RecordingError('is a second HELLO');
    this.metaValue = Object.freeze({
      pid: r.pid,
      flags: r.flags,
      intervalNs: r.intervalNs,
      wallThreadsPerTick: r.wallThreadsPerTick,
      runtimeVersion: r.runtimeVersion,
      profilerVersion: r.profilerVersion,
      startMono: r.mono,
      startUnixNs: r.unixNs,
      attached: (r.flags & HelloFlags.Attached) !== 0,
      approximateCpu: (r.flags & HelloFlags.ApproximateCpu) !== 0,
    });
  }

  onThread(r: ThreadRecord): void {
    this.checkDefining('THREAD');
    const known = this.threadMap.get(r.threadId);
    if (known === undefined) {
      this.threadMap.set(r.threadId, {
        id: r.threadId, osTid: r.osTid, clrThreadId: r.clrThreadId, name: r.name,
        firstSeenMono: r.mono, lastSeenMono: r.mono, ended: false,
      });
    } else {
      known.name = r.name;
      known.osTid = r.osTid;
      known.clrThreadId = r.clrThreadId;
      if (r.mono > known.lastSeenMono) known.lastSeenMono = r.mono;
    }
    this.stringBytes += 2 * r.name.length;
  }

  onThreadEnd(r: ThreadEndRecord): void {
    this.checkDefining('THREAD_END');
    const known = this.threadMap.get(r.threadId);
    if (known === undefined) throw new RecordingError(`is a THREAD_END for thread ${r.threadId}, which no THREAD record defined`);
    known.ended = true;
    if (r.mono > known.lastSeenMono) known.lastSeenMono = r.mono;
  }

  onFunction(r: FunctionRecord): void {
    this.checkDefining('FUNCTION');
    if (r.functionId === INCOMPLETE_STACK_FUNCTION_ID) {
      throw new RecordingError(`is a FUNCTION with id ${r.functionId}, which clrscope reserves for its ${INCOMPLETE_STACK_NAME} frame`);
    }
    if (this.functionMap.has(r.functionId)) throw new RecordingError(`is a FUNCTION redefining function ${r.functionId}`);
    this.functionMap.set(r.functionId, Object.freeze({ id: r.functionId, kind: r.kind, name: r.name, module: r.module, file: r.file }));
    this.stringBytes += 2 * (r.name.length + r.module.length + r.file.length);
  }

  onSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: Uint32Array): void {
    // Kept small so the optimizer inlines it into the decoder: a call it does not inline
    // would box mono/cpuNs/wallNs, three heap numbers per sample. Errors go to a cold method;
    // function ids are checked once per distinct stack, when the stack table stores it.
    const thread = this.threadMap.get(threadId);
    if (thread === undefined || this.closed) return this.rejectSample(threadId);
    thread.lastSeenMono = mono;
    // A walk that produced no frames never reached the entry point either, so it is marked too.
    const extraRoot = (flags & SampleFlags.Incomplete) !== 0 || frames.length === 0 ? INCOMPLETE_STACK_FUNCTION_ID : NO_EXTRA_ROOT;
    const stackId = this.stacks.intern(frames, extraRoot);
    this.columns.append(mono, threadId, stackId, cpuNs, wallNs, flags);
  }

  onStats(r: StatsRecord): void {
    this.checkDefining('STATS');
    this.statsValue = Object.freeze({ ...r });
  }

  onSuspension(r: SuspensionRecord): void {
    this.checkDefining('SUSPENSION');
    this.suspensionList.push(Object.freeze({ ...r }));
  }

  onEnd(r: EndRecord): void {
    this.checkDefining('END');
    this.endValue = Object.freeze({ ...r });
    this.closed = true;
  }

  onUnknown(): void {
    // Unknown record types are skipped by design (PROTOCOL.md), so newer writers still work.
  }

  private rejectSample(threadId: number): never {
    this.checkOpen();
    throw new RecordingError(`is a SAMPLE naming thread ${threadId}, which no THREAD record defined`);
  }

  private checkFrames(frames: Uint32Array): void {
    for (let i = 0; i < frames.length; i++) {
      const id = frames[i];
      if (id === INCOMPLETE_STACK_FUNCTION_ID || !this.functionMap.has(id)) {
        throw new RecordingError(`is a SAMPLE naming function ${id}, which no FUNCTION record defined`);
      }
    }
  }

  private checkDefining(type: string): void {
    this.checkOpen();
    if (this.metaValue === undefined) throw new RecordingError(`is a ${type} before the HELLO`);
  }

  private checkOpen(): void {
    if (this.endValue !== undefined) throw new RecordingError('follows the END record');
    if (this.finished) throw new RecordingError('arrived after the recording was finished');
  }
}
