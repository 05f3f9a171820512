// The recording of one process's stream: an append-only store the decoder feeds directly
// (it is the WireSink), so samples go from socket bytes to typed-array columns with no
// intermediate objects.
//
// Wire v1 samples carry their frames, so each is interned here (a hash per sample). Wire v2
// samples name a stack the writer defined once: the STACK definition is interned when it
// arrives, and a sample's stack is then an array lookup from the writer's id to ours.

import type { WireSink } from '../wire/decoder.js';
import {
  EventFlags, FunctionKind, HelloFlags, MAX_STACK_ID, ModuleKind, STACK_FLAGS, SampleFlags,
  type EndRecord, type FrameRecord, type FunctionRecord, type HelloRecord, type ModuleRecord, type StatsRecord,
  type StringRecord, type SuspensionRecord, type TaskRecord, type ThreadEndRecord, type ThreadRecord,
} from '../wire/records.js';
import { AsyncChains } from './async-chains.js';
import { EventColumns, type EventColumnViews } from './event-columns.js';
import type { FunctionInfo } from './frame-label.js';
import { RecordingError } from './recording-error.js';
import { SampleColumns, type SampleColumnViews } from './sample-columns.js';
import { NO_EXTRA_ROOT, StackTable, type FrameMapper } from './stack-table.js';
import { bytesText, counted, ImportBudgetError, type RecordingLimits } from './read-budget.js';
import { BYTES_PER_SAMPLE_SLOT } from './sample-columns.js';

export type { FunctionInfo } from './frame-label.js';
export type { SampleColumnViews } from './sample-columns.js';
export type { EventColumnViews } from './event-columns.js';

export interface ModuleInfo {
  readonly id: number;
  /** ModuleKind. */
  readonly kind: number;
  /** The path the process loaded it from (a v1 recording knows only the file name). */
  readonly path: string;
  /** 32 hex digits; all zeros when unknown. */
  readonly mvid: string;
}

export interface FrameInfo {
  readonly id: number;
  readonly functionId: number;
  /** OffsetKind. */
  readonly offsetKind: number;
  readonly offset: number;
}

const NO_MVID = '0'.repeat(32);

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
  ended: boolean;
  /** Where its last-seen time is kept (Recording.lastSeen): a double stored into an object field may be boxed, an allocation per sample. */
  index: number;
}

/** One .NET process of a recording that holds several (`record --children`). */
export interface ProcessInfo {
  readonly pid: number;
  /** A short name (the kernel's process name, e.g. "dotnet"); may be empty. */
  readonly name: string;
}

export type SampleVisitor = (index: number, mono: number, threadId: number, stackId: number, cpuNs: number, wallNs: number, flags: number) => void;

const INCOMPLETE_STACK: FunctionInfo = Object.freeze({
  id: INCOMPLETE_STACK_FUNCTION_ID, kind: FunctionKind.Synthetic, name: INCOMPLETE_STACK_NAME, module: '', file: '', moduleId: 0, token: 0,
});

function fileName(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return slash < 0 ? path : path.slice(slash + 1);
}

// Rough per-entry costs for byteSize(): a JS object with a handful of fields plus a Map entry.
const OBJECT_OVERHEAD = 96;
const DIRECT_THREAD_IDS = 1 << 16;
/**
 * What a definition costs while it is read, for the limits: its object and map entry, the
 * decoder's record and strings; measured, 1.88 M FUNCTION and FRAME records peaked at 380 MiB.
 */
const DEFINITION_BYTES = 320;

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

/** Samples from index `base` on, as column views (index i of the recording is index i - base of the views). */
export interface RecentSamples {
  readonly base: number;
  readonly columns: SampleColumnViews;
}

export class Recording implements WireSink {
  // RecordingOptions.keepSamples: true, false or 'recent' (until restored).
  private sampleMode: boolean | 'recent';
  private readonly restoreSamples: (() => Recording) | undefined;
  // Samples seen while sampleMode is false.
  private uncounted = 0;
  // With 'recent': the index of the first sample `columns` holds.
  private sampleBase = 0;
  // dropBefore's cut: samples, events and pauses before it were let go.
  private keptFromValue = -Infinity;
  private metaValue: RecordingMeta | undefined;
  private statsValue: StatsRecord | undefined;
  private endValue: EndRecord | undefined;
  private finished = false;
  // END received or finish() called: one flag so the sample path tests a single boolean.
  private closed = false;
  private cutValue = false;
  private readonly threadMap = new Map<number, MutableThread>();
  // The same threads by id for ids below DIRECT_THREAD_IDS (writers number threads from 1): an
  // array index per sample instead of a map lookup.
  private readonly threadById: (MutableThread | undefined)[] = [];
  // Each thread's last-seen time, by MutableThread.index.
  private lastSeen = new Float64Array(64);
  private readonly functionMap = new Map<number, FunctionInfo>();
  // The same functions in order of definition (never redefined nor dropped): readers that index
  // names read only the functions defined since they last looked.
  private readonly functionOrder: FunctionInfo[] = [];
  private readonly moduleMap = new Map<number, ModuleInfo>();
  // v1 names modules by file name only; each distinct one gets an id of ours.
  private readonly moduleIdsByName = new Map<string, number>();
  private readonly frameMap = new Map<number, FrameInfo>();
  private readonly stringMap = new Map<number, string>();
  private columns: SampleColumns;
  private readonly eventColumns = new EventColumns();
  private suspensionList: SuspensionRecord[] = [];
  private readonly stacks: StackTable;
  // v2: the writer's stack id -> ours (-1: not defined since the last STACK_RESET).
  private wireStacks = new Int32Array(256).fill(-1);
  private readonly frameToFunction: FrameMapper = (frameId) => (this.frameMap.get(frameId) as FrameInfo).functionId;
  private stringBytes = 0;
  // Several processes in one recording: thread id -> index in processList. Empty for one process.
  private readonly processList: ProcessInfo[] = [];
  private readonly threadProcess = new Map<number, number>();
  private readonly asyncChains = new AsyncChains();
  private readonly limits: RecordingLimits | undefined;
  // With limits: definitions stored, frames of the stacks stored, frames of every stack walked.
  private definitions = 0;
  private storedFrames = 0;
  private walkedFrames = 0;

  constructor(options: RecordingOptions = {}) {
    this.limits = options.limits;
    this.sampleMode = options.keepSamples ?? true;
    this.restoreSamples = options.restoreSamples;
    // No capacity at all when samples are not kept: the model holds no per-sample bytes.
    this.columns = new SampleColumns(this.sampleMode === false ? 0 : 1024);
    this.functionMap.set(INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK);
    this.functionOrder.push(INCOMPLETE_STACK);
    this.stacks = new StackTable((frames, toFunction) => {
      this.checkFrames(frames, toFunction);
      if (this.limits !== undefined) this.checkStackRoom(frames.length);
    });
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
    return this.sampleMode === false ? this.uncounted : this.sampleBase + this.columns.count;
  }

  /** Whether every sample is kept in columns (RecordingOptions.keepSamples). */
  get keepsSamples(): boolean {
    return this.sampleMode === true;
  }

  /**
   * The samples still held: every one (base 0) when all are kept, those since the last
   * releaseSamples() with 'recent'. Throws when samples are not kept at all.
   */
  recentSamples(): RecentSamples {
    if (this.sampleMode === false) this.kept();
    return { base: this.sampleBase, columns: this.columns.views() };
  }

  /** Lets go of every sample kept, keeping their count: from now on the recording keeps none (keepSamples false). */
  dropSamples(): void {
    if (this.sampleMode === false) return;
    this.uncounted = this.sampleCount;
    this.sampleMode = false;
    this.sampleBase = 0;
    this.columns = new SampleColumns(0);
  }

  /** With keepSamples 'recent': forgets the samples held (their readers have folded them in); otherwise nothing. */
  releaseSamples(): void {
    if (this.sampleMode !== 'recent') return;
    this.sampleBase += this.columns.count;
    this.columns.count = 0;
  }

  /**
   * Forgets the samples and events taken before `cutMono` and the pauses that began before it,
   * for a view that keeps only a recording's last minutes; definitions (threads, functions,
   * stacks) stay. Sample indexes change, so readers that remember indexes or counts start over.
   * Returns the samples dropped.
   */
  dropBefore(cutMono: number): number {
    if (this.sampleMode !== true) throw new Error('Only a recording that keeps every sample can let its oldest go.');
    if (!(cutMono > this.keptFromValue)) return 0;
    this.keptFromValue = cutMono;
    const chains = this.asyncChains;
    const dropped = this.columns.retainFrom(cutMono, chains.hasMarks ? (from, to) => chains.moveMark(from, to) : undefined);
    chains.clearFrom(this.columns.count);
    this.eventColumns.retainFrom(cutMono);
    this.suspensionList = this.suspensionList.filter((s) => s.mono >= cutMono);
    return dropped;
  }

  /** dropBefore's latest cut (target mono ns): nothing before it is held; -Infinity while everything is. */
  get keptFromMono(): number {
    return this.keptFromValue;
  }

  /** Sample slots allocated (held or free). */
  get sampleCapacity(): number {
    return this.columns.capacity;
  }

  /** Reallocates the sample columns to `slots` (at least the samples held), e.g. after dropBefore. */
  resizeSamples(slots: number): void {
    if (this.sampleMode === true) this.columns.resize(slots);
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

  /** How many threads THREAD records defined. */
  get threadCount(): number {
    return this.threadMap.size;
  }

  threads(): ThreadInfo[] {
    return Array.from(this.threadMap.values(), (t) => this.threadInfo(t));
  }

  thread(id: number): ThreadInfo | undefined {
    const t = this.threadMap.get(id);
    return t === undefined ? undefined : this.threadInfo(t);
  }

  /**
   * The processes of a recording that holds several (empty for the usual one-process recording,
   * whose process is `meta.pid`), in the order they were added.
   */
  processes(): readonly ProcessInfo[] {
    return this.processList;
  }

  /** The process a thread belongs to, when the recording holds several. */
  processOf(threadId: number): ProcessInfo | undefined {
    const i = this.threadProcess.get(threadId);
    return i === undefined ? undefined : this.processList[i];
  }

  /**
   * Declares a process and its threads (already defined by THREAD records); a thread belongs to
   * one process. A process already declared (same pid) gets the threads added: a live stream
   * names each process's threads as they appear.
   */
  addProcess(process: ProcessInfo, threadIds: Iterable<number>): void {
    let index = this.processList.findIndex((p) => p.pid === process.pid);
    const known = index >= 0;
    if (!known) index = this.processList.length;
    const ids = [...threadIds];
    // Checked whole first, so a refused record changes nothing.
    for (const id of ids) {
      if (!this.threadMap.has(id)) throw new RecordingError(`gives process ${process.pid} thread ${id}, which no THREAD record defined`);
      const owner = this.threadProcess.get(id);
      if (owner !== undefined && owner !== index) throw new RecordingError(`gives process ${process.pid} thread ${id}, which belongs to process ${this.processList[owner]?.pid ?? '?'} already`);
    }
    for (const id of ids) this.threadProcess.set(id, index);
    if (!known) this.processList.push(Object.freeze({ pid: process.pid, name: process.name }));
  }

  /** Every function, including the synthetic INCOMPLETE_STACK one. */
  functions(): FunctionInfo[] {
    return this.functionOrder.slice();
  }

  /** How many functions are defined, the synthetic one included. */
  get functionCount(): number {
    return this.functionOrder.length;
  }

  /** The functions defined after the first `start`, in order of definition. */
  functionsFrom(start: number): FunctionInfo[] {
    return this.functionOrder.slice(start);
  }

  functionInfo(id: number): FunctionInfo | undefined {
    return this.functionMap.get(id);
  }

  /** Every module the functions name, in order of definition. */
  modules(): ModuleInfo[] {
    return Array.from(this.moduleMap.values());
  }

  moduleInfo(id: number): ModuleInfo | undefined {
    return this.moduleMap.get(id);
  }

  /** True when the stream defined frames (wire v2); a v1 recording's stacks are function ids, each function its own frame. */
  get hasFrames(): boolean {
    return this.frameMap.size > 0;
  }

  /** The frames a v2 stream defined, in order of definition (empty for v1: see hasFrames). */
  frames(): FrameInfo[] {
    return Array.from(this.frameMap.values());
  }

  frameInfo(id: number): FrameInfo | undefined {
    return this.frameMap.get(id);
  }

  /** The label strings of event samples, by id. */
  strings(): ReadonlyMap<number, string> {
    return this.stringMap;
  }

  /** Function ids of a stack, leaf first, as a view into the stack table: read it, do not keep or write it. */
  stackFrames(stackId: number): Uint32Array {
    return this.stacks.frames(stackId);
  }

  /** The stack's frames as the wire names them (v2 frame ids, v1 function ids), leaf first; a view, as stackFrames. */
  stackFrameIds(stackId: number): Uint32Array {
    return this.stacks.wireFrames(stackId);
  }

  /** SampleFlags.Incomplete / Elided of the walk that found the stack. */
  stackFlags(stackId: number): number {
    return this.stacks.flags(stackId);
  }

  /** The recording has async call stacks: the profiler tracked tasks (HELLO flag Async) or samples name one. */
  get hasAsync(): boolean {
    return (this.metaValue !== undefined && (this.metaValue.flags & HelloFlags.Async) !== 0) || this.asyncChains.count > 0;
  }

  /** The logical chain sample i ran in: 0 for none, else an id for asyncChain(). */
  sampleAsyncChain(i: number): number {
    return this.asyncChains.ofSample(i);
  }

  /**
   * How many suspended operations sample i stands for (a sample of the profiler's `[async
   * operations]` thread: those of its operations still suspended there at its tick), 0 when none.
   */
  sampleOperations(i: number): number {
    return this.asyncChains.operationsOf(i);
  }

  /** Whether samples say how many suspended operations they stand for (profilers before OPERATION_COUNTS sent none). */
  get hasOperationCounts(): boolean {
    return this.asyncChains.hasOperationCounts;
  }

  /** Number of distinct chains; ids are 1..asyncChainCount. */
  get asyncChainCount(): number {
    return this.asyncChains.count;
  }

  /**
   * The chain's tasks by name (STRING ids, 0 unknown), innermost first: the task the thread was
   * running, then the task awaiting it, and so on to the root operation.
   */
  asyncChain(chainId: number): Uint32Array {
    return this.asyncChains.chain(chainId);
  }

  get eventCount(): number {
    return this.eventColumns.count;
  }

  /** Column views over the stored event samples (v2 EVENTS); valid until the next event arrives. */
  events(): EventColumnViews {
    return this.eventColumns.views();
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
    return this.columns.byteSize() + this.stacks.byteSize() + this.eventColumns.byteSize() + this.wireStacks.byteLength + this.asyncChains.byteSize()
      + (this.threadMap.size + this.functionMap.size + this.moduleMap.size + this.frameMap.size + this.stringMap.size) * OBJECT_OVERHEAD
      + this.stringBytes;
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
    if (this.limits !== undefined) this.checkDefinitionRoom(r.name.length);
    const known = this.threadMap.get(r.threadId);
    if (known === undefined) {
      const thread: MutableThread = {
        id: r.threadId, osTid: r.osTid, clrThreadId: r.clrThreadId, name: r.name, firstSeenMono: r.mono, ended: false, index: this.threadMap.size,
      };
      if (thread.index === this.lastSeen.length) {
        const grown = new Float64Array(this.lastSeen.length * 2);
        grown.set(this.lastSeen);
        this.lastSeen = grown;
      }
      this.lastSeen[thread.index] = r.mono;
      this.threadMap.set(r.threadId, thread);
      if (r.threadId < DIRECT_THREAD_IDS) this.threadById[r.threadId] = thread;
    } else {
      known.name = r.name;
      known.osTid = r.osTid;
      known.clrThreadId = r.clrThreadId;
      if (r.mono > this.lastSeen[known.index]) this.lastSeen[known.index] = r.mono;
    }
    this.stringBytes += 2 * r.name.length;
  }

  onThreadEnd(r: ThreadEndRecord): void {
    this.checkDefining('THREAD_END');
    const known = this.threadMap.get(r.threadId);
    if (known === undefined) throw new RecordingError(`is a THREAD_END for thread ${r.threadId}, which no THREAD record defined`);
    known.ended = true;
    if (r.mono > this.lastSeen[known.index]) this.lastSeen[known.index] = r.mono;
  }

  onFunction(r: FunctionRecord): void {
    this.checkDefining('FUNCTION');
    if (r.functionId === INCOMPLETE_STACK_FUNCTION_ID) {
      throw new RecordingError(`is a FUNCTION with id ${r.functionId}, which clrscope reserves for its ${INCOMPLETE_STACK_NAME} frame`);
    }
    if (this.functionMap.has(r.functionId)) throw new RecordingError(`is a FUNCTION redefining function ${r.functionId}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.name.length + r.module.length + r.file.length);
    let moduleId = r.moduleId;
    let module = r.module;
    if (moduleId !== 0) {
      const m = this.moduleMap.get(moduleId);
      if (m === undefined) throw new RecordingError(`is a FUNCTION naming module ${moduleId}, which no MODULE record defined`);
      module = fileName(m.path);
    } else if (module !== '') moduleId = this.moduleNamed(r.kind, module);
    const fn: FunctionInfo = Object.freeze({ id: r.functionId, kind: r.kind, name: r.name, module, file: r.file, moduleId, token: r.token });
    this.functionMap.set(r.functionId, fn);
    this.functionOrder.push(fn);
    this.stringBytes += 2 * (r.name.length + module.length + r.file.length);
  }

  onModule(r: ModuleRecord): void {
    this.checkDefining('MODULE');
    if (r.moduleId === 0 || this.moduleMap.has(r.moduleId)) throw new RecordingError(`is a MODULE ${r.moduleId === 0 ? 'with id 0' : `redefining module ${r.moduleId}`}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.path.length);
    this.moduleMap.set(r.moduleId, Object.freeze({ id: r.moduleId, kind: r.kind, path: r.path, mvid: r.mvid }));
    this.stringBytes += 2 * r.path.length;
  }

  onFrame(r: FrameRecord): void {
    this.checkDefining('FRAME');
    if (r.frameId === INCOMPLETE_STACK_FUNCTION_ID) throw new RecordingError(`is a FRAME with id ${r.frameId}, which clrscope reserves for its ${INCOMPLETE_STACK_NAME} frame`);
    if (this.frameMap.has(r.frameId)) throw new RecordingError(`is a FRAME redefining frame ${r.frameId}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(0);
    if (!this.functionMap.has(r.functionId) || r.functionId === INCOMPLETE_STACK_FUNCTION_ID) {
      throw new RecordingError(`is a FRAME naming function ${r.functionId}, which no FUNCTION record defined`);
    }
    this.frameMap.set(r.frameId, Object.freeze({ id: r.frameId, functionId: r.functionId, offsetKind: r.offsetKind, offset: r.offset }));
  }

  onStack(stackId: number, flags: number, frames: Uint32Array): void {
    this.checkDefining('STACK');
    if (stackId < this.wireStacks.length && this.wireStacks[stackId] >= 0) throw new RecordingError(`is a STACK redefining stack ${stackId}`);
    if (this.limits !== undefined) this.walk(frames.length);
    // A walk that produced no frames never reached the entry point either.
    const incomplete = (flags & SampleFlags.Incomplete) !== 0 || frames.length === 0;
    const id = this.stacks.intern(frames, incomplete ? INCOMPLETE_STACK_FUNCTION_ID : NO_EXTRA_ROOT, (flags & STACK_FLAGS) | (incomplete ? SampleFlags.Incomplete : 0), this.frameToFunction);
    if (stackId >= this.wireStacks.length) this.growWireStacks(stackId);
    this.wireStacks[stackId] = id;
  }

  onStackReset(): void {
    this.checkDefining('STACK_RESET');
    this.wireStacks.fill(-1);
  }

  onString(r: StringRecord): void {
    this.checkDefining('STRING');
    if (this.stringMap.has(r.stringId) || r.stringId === 0) throw new RecordingError(`is a STRING ${r.stringId === 0 ? 'with id 0' : `redefining string ${r.stringId}`}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.text.length);
    this.stringMap.set(r.stringId, r.text);
    this.stringBytes += 2 * r.text.length;
  }

  onSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: Uint32Array): void {
    // Kept small so the optimizer inlines it into the decoder: a call it does not inline
    // would box mono/cpuNs/wallNs, three heap numbers per sample. Errors go to a cold method;
    // function ids are checked once per distinct stack, when the stack table stores it.
    const thread = this.threadMap.get(threadId);
    if (thread === undefined || this.closed) return this.rejectSample(threadId);
    this.lastSeen[thread.index] = mono;
    // A v1 sample's frames are all in the file (a byte or more each), so its bytes bound their
    // walk; only a STACK record can name frames it does not hold (those it shares).
    // A walk that produced no frames never reached the entry point either, so it is marked too.
    const incomplete = (flags & SampleFlags.Incomplete) !== 0 || frames.length === 0;
    const stackId = this.stacks.intern(frames, incomplete ? INCOMPLETE_STACK_FUNCTION_ID : NO_EXTRA_ROOT, (flags & STACK_FLAGS) | (incomplete ? SampleFlags.Incomplete : 0));
    if (this.sampleMode !== false) {
      if (this.columns.count === this.columns.capacity && this.limits !== undefined) this.checkSampleRoom();
      this.columns.append(mono, threadId, stackId, cpuNs, wallNs, flags);
    } else this.uncounted++;
  }

  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void {
    // The v2 hot path: no frames to look at, the stack is the writer's id mapped to ours; the
    // u64 values stay in typed arrays all the way to the columns, so nothing is boxed.
    const thread = threadId < DIRECT_THREAD_IDS ? this.threadById[threadId] : this.threadMap.get(threadId);
    if (thread === undefined || this.closed) return this.rejectSample(threadId);
    const id = stackId < this.wireStacks.length ? this.wireStacks[stackId] : -1;
    if (id < 0) return this.rejectStack(stackId);
    if (this.sampleMode !== false) {
      if (this.columns.count === this.columns.capacity && this.limits !== undefined) this.checkSampleRoom();
      this.columns.appendValues(threadId, id, flags | this.stacks.flags(id), values);
    } else this.uncounted++;
    this.lastSeen[thread.index] = values[0];
  }

  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    // Thread 0 is no thread: counts sent without a stack (exceptions over their stack budget).
    const thread = threadId === 0 ? undefined : this.threadMap.get(threadId);
    if ((thread === undefined && (threadId !== 0 || (flags & EventFlags.HasStack) !== 0)) || this.closed) {
      return this.rejectEvent(`naming thread ${threadId}, which no THREAD record defined`);
    }
    let id = -1;
    if ((flags & EventFlags.HasStack) !== 0) {
      id = stackId < this.wireStacks.length ? this.wireStacks[stackId] : -1;
      if (id < 0) return this.rejectEvent(`naming stack ${stackId}, which no STACK record defined since the last STACK_RESET`);
    }
    if (labelId !== 0 && !this.stringMap.has(labelId)) return this.rejectEvent(`naming string ${labelId}, which no STRING record defined`);
    if (thread !== undefined && mono > this.lastSeen[thread.index]) this.lastSeen[thread.index] = mono;
    this.eventColumns.append(kind, flags, mono, threadId, id, labelId, value1, value2);
  }

  onEventMessage(back: number, stringId: number): void {
    this.checkOpen();
    if (!this.stringMap.has(stringId)) throw new RecordingError(`is an EVENT_MESSAGES record naming string ${stringId}, which no STRING record defined`);
    // Counted from the end, so a kept window's cut (dropBefore, between the EVENTS record and this
    // one) still finds the record's events, which are the newest; one the cut let go has no message to keep.
    if (!this.eventColumns.setMessage(back, stringId) && this.keptFromValue === -Infinity) {
      throw new RecordingError(`is an EVENT_MESSAGES record naming an event ${back} back, before the first`);
    }
  }

  onTask(r: TaskRecord): void {
    this.checkDefining('TASK');
    if (r.taskId === 0) throw new RecordingError('is a TASK with id 0');
    if (r.nameId !== 0 && !this.stringMap.has(r.nameId)) throw new RecordingError(`is a TASK naming string ${r.nameId}, which no STRING record defined`);
    this.asyncChains.define(r.taskId, r.awaiterId, r.nameId);
  }

  onTaskSample(back: number, taskId: number): void {
    this.checkOpen();
    // Without samples (a live session's model in the main process) there is nothing to mark.
    if (this.sampleMode === false) {
      if (!this.asyncChains.has(taskId)) throw new RecordingError(`is a TASK_SAMPLES record naming task ${taskId}, which no TASK record defined`);
      return;
    }
    // An index over every sample of the stream, also when only the recent ones are held.
    const index = this.sampleBase + this.columns.count - back;
    if (index < 0) throw new RecordingError(`is a TASK_SAMPLES record naming a sample ${back} back, before the first`);
    if (!this.asyncChains.mark(index, taskId)) throw new RecordingError(`is a TASK_SAMPLES record naming task ${taskId}, which no TASK record defined`);
  }

  onOperationCount(back: number, count: number): void {
    this.checkOpen();
    if (this.sampleMode === false) return;
    const index = this.sampleBase + this.columns.count - back;
    if (index < 0) throw new RecordingError(`is an OPERATION_COUNTS record naming a sample ${back} back, before the first`);
    if (this.asyncChains.ofSample(index) === 0) throw new RecordingError(`is an OPERATION_COUNTS record counting a sample no TASK_SAMPLES marked`);
    this.asyncChains.setOperations(index, count);
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

  /** The columns, for a recording that keeps them; a caller that needs every sample of one that does not is a bug. */
  private kept(): SampleColumns {
    if (this.sampleMode === true) return this.columns;
    if (this.sampleMode === false || this.restoreSamples === undefined) {
      throw new Error('This recording keeps no samples (a live session\'s model): read them from its stream.');
    }
    const full = this.restoreSamples();
    if (full.sampleMode !== true || full.sampleCount !== this.sampleCount) {
      throw new Error(`The samples read back number ${full.sampleCount}, not the ${this.sampleCount} this recording counted.`);
    }
    this.columns = full.columns;
    this.sampleBase = 0;
    this.sampleMode = true;
    return this.columns;
  }

  private threadInfo(t: MutableThread): ThreadInfo {
    return { id: t.id, osTid: t.osTid, clrThreadId: t.clrThreadId, name: t.name, firstSeenMono: t.firstSeenMono, lastSeenMono: this.lastSeen[t.index], ended: t.ended };
  }

  private rejectSample(threadId: number): never {
    this.checkOpen();
    throw new RecordingError(`is a SAMPLE naming thread ${threadId}, which no THREAD record defined`);
  }

  private rejectStack(stackId: number): never {
    throw new RecordingError(`is a SAMPLES record naming stack ${stackId}, which no STACK record defined since the last STACK_RESET`);
  }

  private rejectEvent(what: string): never {
    this.checkOpen();
    throw new RecordingError(`is an EVENTS record ${what}`);
  }

  /** With limits: what is held so far, as byteSize() estimates it, plus the stack table's growth to come. */
  private heldEstimate(): number {
    return this.columns.capacity * BYTES_PER_SAMPLE_SLOT + this.storedFrames * 16 + this.definitions * DEFINITION_BYTES + this.stringBytes;
  }

  private overLimits(what: string): never {
    const limits = this.limits as RecordingLimits;
    throw new ImportBudgetError(`${what} would take more than ${bytesText(limits.maxBytes)} of memory once read, the most clrscope reads of one file`);
  }

  private checkDefinitionRoom(textLength: number): void {
    this.definitions++;
    if (this.heldEstimate() + 2 * textLength > (this.limits as RecordingLimits).maxBytes) this.overLimits(`its ${counted(this.definitions)} definitions (threads, functions, frames, strings) with its samples and stacks`);
  }

  private checkStackRoom(length: number): void {
    // 16 bytes a frame: wire and function ids, 4 bytes each, in tables that may have doubled.
    this.storedFrames += length;
    if (this.heldEstimate() > (this.limits as RecordingLimits).maxBytes) this.overLimits(`its ${counted(this.stacks.count + 1)} distinct stacks (${counted(this.storedFrames)} frames) with its samples and definitions`);
  }

  private checkSampleRoom(): void {
    // The columns are about to double: their new capacity is what must fit.
    const grownBy = Math.max(1024, this.columns.capacity) * BYTES_PER_SAMPLE_SLOT;
    if (this.heldEstimate() + grownBy > (this.limits as RecordingLimits).maxBytes) this.overLimits(`its samples (more than ${counted(this.columns.count)})`);
  }

  private walk(frames: number): void {
    this.walkedFrames += frames;
    const limits = this.limits as RecordingLimits;
    if (this.walkedFrames > limits.maxWalkedFrames) {
      throw new ImportBudgetError(`its stacks hold more than ${counted(limits.maxWalkedFrames)} frames in all (each STACK record counted with the frames it shares with the one before), the most clrscope reads of one file`);
    }
  }

  private checkFrames(frames: Uint32Array, toFunction: FrameMapper | null): void {
    for (let i = 0; i < frames.length; i++) {
      const id = frames[i];
      if (toFunction !== null) {
        if (!this.frameMap.has(id)) throw new RecordingError(`is a STACK naming frame ${id}, which no FRAME record defined`);
      } else if (id === INCOMPLETE_STACK_FUNCTION_ID || !this.functionMap.has(id)) {
        throw new RecordingError(`is a SAMPLE naming function ${id}, which no FUNCTION record defined`);
      }
    }
  }

  /** A v1 module, known by its file name only: one id of ours per distinct one. */
  private moduleNamed(functionKind: number, name: string): number {
    const kind = functionKind === FunctionKind.Managed ? ModuleKind.Managed : ModuleKind.Native;
    const key = `${kind}\u0000${name}`;
    let id = this.moduleIdsByName.get(key);
    if (id === undefined) {
      id = this.moduleMap.size + 1;
      this.moduleIdsByName.set(key, id);
      this.moduleMap.set(id, Object.freeze({ id, kind, path: name, mvid: NO_MVID }));
    }
    return id;
  }

  private growWireStacks(stackId: number): void {
    if (stackId > MAX_STACK_ID) throw new RecordingError(`is a STACK with id ${stackId}, above ${MAX_STACK_ID}`);
    let size = this.wireStacks.length * 2;
    while (size <= stackId) size *= 2;
    const grown = new Int32Array(Math.min(size, MAX_STACK_ID + 1)).fill(-1);
    grown.set(this.wireStacks);
    this.wireStacks = grown;
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
