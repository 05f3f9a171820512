// The recording of one process's stream: what it holds (threads, functions, modules, frames,
// stacks, samples in typed-array columns, events, suspensions, processes) and the questions
// readers ask of it. It is built by its sink (recording-sink.ts), the WireSink a decoder feeds:
// `new WireDecoder(recording.sink)`, so samples go from socket bytes to the columns with no
// intermediate objects; both work on one RecordingStore.

import type { EndRecord, StatsRecord, SuspensionRecord } from '../wire/records.js';
import { HelloFlags } from '../wire/records.js';
import type { EventColumnViews } from './event-columns.js';
import type { FunctionInfo } from './frame-label.js';
import type { RecordingLimits } from './read-budget.js';
import { RecordingError } from './recording-error.js';
import { RecordingSink } from './recording-sink.js';
import { RecordingStore } from './recording-store.js';
import type {
  FrameInfo, ModuleInfo, ProcessInfo, RecentSamples, RecordingMeta, SampleMetric, SampleVisitor, ThreadInfo,
} from './recording-types.js';
import { SampleColumns, type SampleColumnViews } from './sample-columns.js';
import { StackTable } from './stack-table.js';
import type { TimelineColumnViews } from './timeline-columns.js';
import { SUSPENSIONS } from '../wire/timeline/suspensions.js';
import { genericTimelineKind, type TimelineKind } from '../wire/timeline/timeline-kind.js';

export * from './recording-types.js';

// Rough per-entry costs for byteSize(): a JS object with a handful of fields plus a Map entry.
const OBJECT_OVERHEAD = 96;

export interface RecordingOptions {
  /**
   * true (default): every sample is kept in columns.
   * false: samples are counted but not kept (a live session's model in the workstation's main
   * process, whose samples live in the spool file and the renderer's worker); every per-sample
   * accessor then throws.
   * 'recent': only the samples since the last releaseSamples() are kept (recentSamples()), for
   * readers that fold each sample in once as it arrives (the worker's sums); the first call of a
   * per-sample accessor then takes every sample from `restoreSamples` and keeps them all from there on.
   */
  keepSamples?: boolean | 'recent';
  /**
   * With keepSamples 'recent': a Recording that keeps every sample, decoded from the same bytes
   * as this one (so its stack ids are this one's); its samples are taken over.
   */
  restoreSamples?: () => Recording;
  /** What the recording may hold and walk (a file read whole); none by default. */
  limits?: RecordingLimits;
}

export class Recording {
  /** The WireSink that builds this recording: hand it to a WireDecoder, or call its on* methods to add records. */
  readonly sink: RecordingSink;
  private readonly store: RecordingStore;
  private readonly restoreSamples: (() => Recording) | undefined;

  constructor(options: RecordingOptions = {}) {
    this.restoreSamples = options.restoreSamples;
    // The stack table asks the sink about each new stack: only the sink knows what the stream defined.
    const stacks = new StackTable((frames, toFunction) => this.sink.checkNewStack(frames, toFunction));
    this.store = new RecordingStore(options.keepSamples ?? true, stacks);
    this.sink = new RecordingSink(this.store, options.limits);
  }

  /** From HELLO; undefined until it arrives. */
  get meta(): RecordingMeta | undefined {
    return this.store.meta;
  }

  /** The latest STATS (cumulative counters). */
  get stats(): StatsRecord | undefined {
    return this.store.stats;
  }

  /** The END record, when the stream ended cleanly. */
  get end(): EndRecord | undefined {
    return this.store.end;
  }

  /** True once finish() was called on a stream that stopped without END. */
  get cut(): boolean {
    return this.store.cut;
  }

  get isFinished(): boolean {
    return this.store.finished;
  }

  /** Every runtime suspension in order of its end; GC pauses have reason 1. */
  suspensions(): readonly SuspensionRecord[] {
    return this.timeline(SUSPENSIONS);
  }

  /** The records of a timeline kind (structs/wire/timeline/timeline-kinds.ts), in order of arrival (of their end), frozen. */
  timeline<R extends object>(kind: TimelineKind<R>): readonly R[] {
    // The store made each record from the kind's own fields, so it is an R.
    return this.store.timelines.records(genericTimelineKind(kind)) as unknown as readonly R[];
  }

  /** The same records as column views by field key; valid until the next record of the kind arrives. */
  timelineColumns<R extends object>(kind: TimelineKind<R>): TimelineColumnViews {
    return this.store.timelines.views(genericTimelineKind(kind));
  }

  get sampleCount(): number {
    return this.store.sampleMode === false ? this.store.uncounted : this.store.sampleBase + this.store.columns.count;
  }

  /** Whether every sample is kept in columns (RecordingOptions.keepSamples). */
  get keepsSamples(): boolean {
    return this.store.sampleMode === true;
  }

  /**
   * The samples still held: every one (base 0) when all are kept, those since the last
   * releaseSamples() with 'recent'. Throws when samples are not kept at all.
   */
  recentSamples(): RecentSamples {
    if (this.store.sampleMode === false) this.kept();
    return { base: this.store.sampleBase, columns: this.store.columns.views() };
  }

  /** Lets go of every sample kept, keeping their count: from now on the recording keeps none (keepSamples false). */
  dropSamples(): void {
    if (this.store.sampleMode === false) return;
    this.store.uncounted = this.sampleCount;
    this.store.sampleMode = false;
    this.store.sampleBase = 0;
    this.store.columns = new SampleColumns(0);
  }

  /** With keepSamples 'recent': forgets the samples held (their readers have folded them in); otherwise nothing. */
  releaseSamples(): void {
    if (this.store.sampleMode !== 'recent') return;
    this.store.sampleBase += this.store.columns.count;
    this.store.columns.count = 0;
  }

  /**
   * Forgets the samples and events taken before `cutMono` and the pauses that began before it,
   * for a view that keeps only a recording's last minutes; definitions (threads, functions,
   * stacks) stay. Sample indexes change, so readers that remember indexes or counts start over.
   * Returns the samples dropped.
   */
  dropBefore(cutMono: number): number {
    if (this.store.sampleMode !== true) throw new Error('Only a recording that keeps every sample can let its oldest go.');
    if (!(cutMono > this.store.keptFrom)) return 0;
    this.store.keptFrom = cutMono;
    const chains = this.store.asyncChains;
    const requests = this.store.requestMarks;
    const marked = chains.hasMarks || requests.hasMarks;
    const dropped = this.store.columns.retainFrom(cutMono, marked ? (from, to) => { chains.moveMark(from, to); requests.moveMark(from, to); } : undefined);
    chains.clearFrom(this.store.columns.count);
    requests.clearFrom(this.store.columns.count);
    this.store.events.retainFrom(cutMono);
    this.store.timelines.retainFrom(cutMono);
    return dropped;
  }

  /** dropBefore's latest cut (target mono ns): nothing before it is held; -Infinity while everything is. */
  get keptFromMono(): number {
    return this.store.keptFrom;
  }

  /** Sample slots allocated (held or free). */
  get sampleCapacity(): number {
    return this.store.columns.capacity;
  }

  /** Reallocates the sample columns to `slots` (at least the samples held), e.g. after dropBefore. */
  resizeSamples(slots: number): void {
    if (this.store.sampleMode === true) this.store.columns.resize(slots);
  }

  get stackCount(): number {
    return this.store.stacks.count;
  }

  /** Marks the stream over: no more records are accepted, and `cut` says whether END was missing. */
  finish(): void {
    this.store.finished = true;
    this.store.closed = true;
    this.store.cut = this.store.end === undefined;
  }

  /** How many threads THREAD records defined. */
  get threadCount(): number {
    return this.store.threads.size;
  }

  threads(): ThreadInfo[] {
    return Array.from(this.store.threads.values(), (t) => this.store.threadInfo(t));
  }

  thread(id: number): ThreadInfo | undefined {
    const t = this.store.threads.get(id);
    return t === undefined ? undefined : this.store.threadInfo(t);
  }

  /**
   * The processes of a recording that holds several (empty for the usual one-process recording,
   * whose process is `meta.pid`), in the order they were added.
   */
  processes(): readonly ProcessInfo[] {
    return this.store.processes;
  }

  /** The process a thread belongs to, when the recording holds several. */
  processOf(threadId: number): ProcessInfo | undefined {
    const i = this.store.threadProcess.get(threadId);
    return i === undefined ? undefined : this.store.processes[i];
  }

  /**
   * Declares a process and its threads (already defined by THREAD records); a thread belongs to
   * one process. A process already declared (same pid) gets the threads added: a live stream
   * names each process's threads as they appear.
   */
  addProcess(process: ProcessInfo, threadIds: Iterable<number>): void {
    let index = this.store.processes.findIndex((p) => p.pid === process.pid);
    const known = index >= 0;
    if (!known) index = this.store.processes.length;
    const ids = [...threadIds];
    // Checked whole first, so a refused record changes nothing.
    for (const id of ids) {
      if (!this.store.threads.has(id)) throw new RecordingError(`gives process ${process.pid} thread ${id}, which no THREAD record defined`);
      const owner = this.store.threadProcess.get(id);
      if (owner !== undefined && owner !== index) throw new RecordingError(`gives process ${process.pid} thread ${id}, which belongs to process ${this.store.processes[owner]?.pid ?? '?'} already`);
    }
    for (const id of ids) this.store.threadProcess.set(id, index);
    if (!known) this.store.processes.push(Object.freeze({ pid: process.pid, name: process.name }));
  }

  /** Every function, including the synthetic INCOMPLETE_STACK one. */
  functions(): FunctionInfo[] {
    return this.store.functionOrder.slice();
  }

  /** How many functions are defined, the synthetic one included. */
  get functionCount(): number {
    return this.store.functionOrder.length;
  }

  /** The functions defined after the first `start`, in order of definition. */
  functionsFrom(start: number): FunctionInfo[] {
    return this.store.functionOrder.slice(start);
  }

  functionInfo(id: number): FunctionInfo | undefined {
    return this.store.functions.get(id);
  }

  /** Every module the functions name, in order of definition. */
  modules(): ModuleInfo[] {
    return Array.from(this.store.modules.values());
  }

  moduleInfo(id: number): ModuleInfo | undefined {
    return this.store.modules.get(id);
  }

  /** True when the stream defined frames (wire v2); a v1 recording's stacks are function ids, each function its own frame. */
  get hasFrames(): boolean {
    return this.store.frames.size > 0;
  }

  /** The frames a v2 stream defined, in order of definition (empty for v1: see hasFrames). */
  frames(): FrameInfo[] {
    return Array.from(this.store.frames.values());
  }

  frameInfo(id: number): FrameInfo | undefined {
    return this.store.frames.get(id);
  }

  /** The label strings of event samples, by id. */
  strings(): ReadonlyMap<number, string> {
    return this.store.strings;
  }

  /** Function ids of a stack, leaf first, as a view into the stack table: read it, do not keep or write it. */
  stackFrames(stackId: number): Uint32Array {
    return this.store.stacks.frames(stackId);
  }

  /** The stack's frames as the wire names them (v2 frame ids, v1 function ids), leaf first; a view, as stackFrames. */
  stackFrameIds(stackId: number): Uint32Array {
    return this.store.stacks.wireFrames(stackId);
  }

  /** SampleFlags.Incomplete / Elided of the walk that found the stack. */
  stackFlags(stackId: number): number {
    return this.store.stacks.flags(stackId);
  }

  /** The recording has async call stacks: the profiler tracked tasks (HELLO flag Async) or samples name one. */
  get hasAsync(): boolean {
    return (this.store.meta !== undefined && (this.store.meta.flags & HelloFlags.Async) !== 0) || this.store.asyncChains.count > 0;
  }

  /** The logical chain sample i ran in: 0 for none, else an id for asyncChain(). */
  sampleAsyncChain(i: number): number {
    return this.store.asyncChains.ofSample(i);
  }

  /**
   * How many suspended operations sample i stands for (a sample of the profiler's `[async
   * operations]` thread: those of its operations still suspended there at its tick), 0 when none.
   */
  sampleOperations(i: number): number {
    return this.store.asyncChains.operationsOf(i);
  }

  /** Whether samples say how many suspended operations they stand for (profilers before OPERATION_COUNTS sent none). */
  get hasOperationCounts(): boolean {
    return this.store.asyncChains.hasOperationCounts;
  }

  /** Number of distinct chains; ids are 1..asyncChainCount. */
  get asyncChainCount(): number {
    return this.store.asyncChains.count;
  }

  /**
   * The chain's tasks by name (STRING ids, 0 unknown), innermost first: the task the thread was
   * running, then the task awaiting it, and so on to the root operation.
   */
  asyncChain(chainId: number): Uint32Array {
    return this.store.asyncChains.chain(chainId);
  }

  /**
   * The seq of the request sample i was taken in (REQUEST_SAMPLES: the profiler follows a request
   * through its awaits onto other threads), 0 for none; a seq no REQUEST of the recording has is a
   * request the recording does not hold.
   */
  requestSeqOf(i: number): number {
    return this.store.requestMarks.of(i);
  }

  /** Whether any sample says which request it was taken in (profilers before REQUEST_SAMPLES sent none). */
  get hasRequestMarks(): boolean {
    return this.store.requestMarks.hasMarks;
  }

  get eventCount(): number {
    return this.store.events.count;
  }

  /** Column views over the stored event samples (v2 EVENTS); valid until the next event arrives. */
  events(): EventColumnViews {
    return this.store.events.views();
  }

  sampleMono(i: number): number { return this.kept().mono[i]; }
  sampleThreadId(i: number): number { return this.kept().threadId[i]; }
  sampleStackId(i: number): number { return this.kept().stackId[i]; }
  sampleCpuNs(i: number): number { return this.kept().cpuNs[i]; }
  sampleWallNs(i: number): number { return this.kept().wallNs[i]; }
  sampleFlags(i: number): number { return this.kept().flags[i]; }

  /** The metric's value of sample i: ns for cpu/wall, 1 for samples. */
  sampleValue(i: number, metric: SampleMetric): number {
    if (metric === 'cpu') return this.kept().cpuNs[i];
    if (metric === 'wall') return this.kept().wallNs[i];
    return 1;
  }

  /** Column views over the stored samples; valid until the next sample is appended. */
  sampleColumns(): SampleColumnViews {
    return this.kept().views();
  }

  forEachSample(visit: SampleVisitor): void {
    const c = this.kept();
    const n = c.count;
    for (let i = 0; i < n; i++) visit(i, c.mono[i], c.threadId[i], c.stackId[i], c.cpuNs[i], c.wallNs[i], c.flags[i]);
  }

  /** Approximate bytes held: typed-array capacity plus an estimate for thread and function objects. */
  byteSize(): number {
    return this.store.columns.byteSize() + this.store.stacks.byteSize() + this.store.events.byteSize() + this.store.timelines.byteSize() + this.sink.byteSize + this.store.asyncChains.byteSize() + this.store.requestMarks.byteSize()
      + (this.store.threads.size + this.store.functions.size + this.store.modules.size + this.store.frames.size + this.store.strings.size) * OBJECT_OVERHEAD
      + this.store.stringBytes;
  }

  /** The columns, for a recording that keeps them; a caller that needs every sample of one that does not is a bug. */
  private kept(): SampleColumns {
    if (this.store.sampleMode === true) return this.store.columns;
    if (this.store.sampleMode === false || this.restoreSamples === undefined) {
      throw new Error('This recording keeps no samples (a live session\'s model): read them from its stream.');
    }
    const full = this.restoreSamples();
    if (full.store.sampleMode !== true || full.sampleCount !== this.sampleCount) {
      throw new Error(`The samples read back number ${full.sampleCount}, not the ${this.sampleCount} this recording counted.`);
    }
    this.store.columns = full.store.columns;
    this.store.sampleBase = 0;
    this.store.sampleMode = true;
    return this.store.columns;
  }
}
