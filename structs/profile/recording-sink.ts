// Builds a Recording from wire records: the WireSink a decoder feeds (new WireDecoder(recording.sink)).
// Every rule a stream must obey to become a recording lives here (definitions before use, nothing
// after END, the read budget of a file read whole), and so do the wire's own numbering: the
// writer's stack ids mapped to the recording's, v1's modules known by file name. What it builds
// is a RecordingStore the Recording reads.
//
// Wire v1 samples carry their frames, so each is interned here (a hash per sample). Wire v2
// samples name a stack the writer defined once: the STACK definition is interned when it
// arrives, and a sample's stack is then an array lookup from the writer's id to ours.

import type { WireSink } from '../wire/decoder.js';
import {
  EventFlags, FunctionKind, HelloFlags, MAX_STACK_ID, ModuleKind, STACK_FLAGS, SampleFlags,
  type EndRecord, type FrameRecord, type FunctionRecord, type HelloRecord, type ModuleRecord, type StatsRecord,
  type StringRecord, type TaskRecord, type ThreadEndRecord, type ThreadRecord,
} from '../wire/records.js';
import type { FunctionInfo } from './frame-label.js';
import { bytesText, counted, ImportBudgetError, type RecordingLimits } from './read-budget.js';
import { RecordingError } from './recording-error.js';
import { DIRECT_THREAD_IDS, type RecordingStore } from './recording-store.js';
import { INCOMPLETE_STACK_FUNCTION_ID, INCOMPLETE_STACK_NAME, type FrameInfo } from './recording-types.js';
import { BYTES_PER_SAMPLE_SLOT } from './sample-columns.js';
import { NO_EXTRA_ROOT, type FrameMapper } from './stack-table.js';
import { type TimelineKind, type TimelineRecord } from '../wire/timeline/timeline-kind.js';

const NO_MVID = '0'.repeat(32);
/**
 * What a definition costs while it is read, for the limits: its object and map entry, the
 * decoder's record and strings; measured, 1.88 M FUNCTION and FRAME records peaked at 380 MiB.
 */
const DEFINITION_BYTES = 320;

function fileName(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return slash < 0 ? path : path.slice(slash + 1);
}

export class RecordingSink implements WireSink {
  private readonly store: RecordingStore;
  private readonly limits: RecordingLimits | undefined;
  // With limits: definitions stored, frames of the stacks stored, frames of every stack walked.
  private definitions = 0;
  private storedFrames = 0;
  private walkedFrames = 0;
  // v2: the writer's stack id -> ours (-1: not defined since the last STACK_RESET).
  private wireStacks = new Int32Array(256).fill(-1);
  // v1 names modules by file name only; each distinct one gets an id of ours.
  private readonly moduleIdsByName = new Map<string, number>();
  private readonly frameToFunction: FrameMapper;

  constructor(store: RecordingStore, limits: RecordingLimits | undefined) {
    this.store = store;
    this.limits = limits;
    const frames = store.frames;
    this.frameToFunction = (frameId) => (frames.get(frameId) as FrameInfo).functionId;
  }

  /** Bytes of the sink's own tables (the writer's stack ids), for Recording.byteSize(). */
  get byteSize(): number {
    return this.wireStacks.byteLength;
  }

  /** The stack table's check of each new stack: its frames are defined, and it fits the limits. */
  checkNewStack(frames: Uint32Array, toFunction: FrameMapper | null): void {
    this.checkFrames(frames, toFunction);
    if (this.limits !== undefined) this.checkStackRoom(frames.length);
  }

  onHello(r: HelloRecord): void {
    const s = this.store;
    this.checkOpen();
    if (s.meta !== undefined) throw new RecordingError('is a second HELLO');
    s.meta = Object.freeze({
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
    const s = this.store;
    this.checkDefining('THREAD');
    if (this.limits !== undefined) this.checkDefinitionRoom(r.name.length);
    const known = s.threads.get(r.threadId);
    if (known === undefined) {
      s.addThread({
        id: r.threadId, osTid: r.osTid, clrThreadId: r.clrThreadId, name: r.name, firstSeenMono: r.mono, ended: false, index: s.threads.size,
      }, r.mono);
    } else {
      known.name = r.name;
      known.osTid = r.osTid;
      known.clrThreadId = r.clrThreadId;
      if (r.mono > s.lastSeen[known.index]) s.lastSeen[known.index] = r.mono;
    }
    s.stringBytes += 2 * r.name.length;
  }

  onThreadEnd(r: ThreadEndRecord): void {
    const s = this.store;
    this.checkDefining('THREAD_END');
    const known = s.threads.get(r.threadId);
    if (known === undefined) throw new RecordingError(`is a THREAD_END for thread ${r.threadId}, which no THREAD record defined`);
    known.ended = true;
    if (r.mono > s.lastSeen[known.index]) s.lastSeen[known.index] = r.mono;
  }

  onFunction(r: FunctionRecord): void {
    const s = this.store;
    this.checkDefining('FUNCTION');
    if (r.functionId === INCOMPLETE_STACK_FUNCTION_ID) {
      throw new RecordingError(`is a FUNCTION with id ${r.functionId}, which clrscope reserves for its ${INCOMPLETE_STACK_NAME} frame`);
    }
    if (s.functions.has(r.functionId)) throw new RecordingError(`is a FUNCTION redefining function ${r.functionId}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.name.length + r.module.length + r.file.length);
    let moduleId = r.moduleId;
    let module = r.module;
    if (moduleId !== 0) {
      const m = s.modules.get(moduleId);
      if (m === undefined) throw new RecordingError(`is a FUNCTION naming module ${moduleId}, which no MODULE record defined`);
      module = fileName(m.path);
    } else if (module !== '') moduleId = this.moduleNamed(r.kind, module);
    const fn: FunctionInfo = Object.freeze({ id: r.functionId, kind: r.kind, name: r.name, module, file: r.file, moduleId, token: r.token });
    s.functions.set(r.functionId, fn);
    s.functionOrder.push(fn);
    s.stringBytes += 2 * (r.name.length + module.length + r.file.length);
  }

  onModule(r: ModuleRecord): void {
    const s = this.store;
    this.checkDefining('MODULE');
    if (r.moduleId === 0 || s.modules.has(r.moduleId)) throw new RecordingError(`is a MODULE ${r.moduleId === 0 ? 'with id 0' : `redefining module ${r.moduleId}`}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.path.length);
    s.modules.set(r.moduleId, Object.freeze({ id: r.moduleId, kind: r.kind, path: r.path, mvid: r.mvid }));
    s.stringBytes += 2 * r.path.length;
  }

  onFrame(r: FrameRecord): void {
    const s = this.store;
    this.checkDefining('FRAME');
    if (r.frameId === INCOMPLETE_STACK_FUNCTION_ID) throw new RecordingError(`is a FRAME with id ${r.frameId}, which clrscope reserves for its ${INCOMPLETE_STACK_NAME} frame`);
    if (s.frames.has(r.frameId)) throw new RecordingError(`is a FRAME redefining frame ${r.frameId}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(0);
    if (!s.functions.has(r.functionId) || r.functionId === INCOMPLETE_STACK_FUNCTION_ID) {
      throw new RecordingError(`is a FRAME naming function ${r.functionId}, which no FUNCTION record defined`);
    }
    s.frames.set(r.frameId, Object.freeze({ id: r.frameId, functionId: r.functionId, offsetKind: r.offsetKind, offset: r.offset }));
  }

  onStack(stackId: number, flags: number, frames: Uint32Array): void {
    const s = this.store;
    this.checkDefining('STACK');
    if (stackId < this.wireStacks.length && this.wireStacks[stackId] >= 0) throw new RecordingError(`is a STACK redefining stack ${stackId}`);
    if (this.limits !== undefined) this.walk(frames.length);
    // A walk that produced no frames never reached the entry point either.
    const incomplete = (flags & SampleFlags.Incomplete) !== 0 || frames.length === 0;
    const id = s.stacks.intern(frames, incomplete ? INCOMPLETE_STACK_FUNCTION_ID : NO_EXTRA_ROOT, (flags & STACK_FLAGS) | (incomplete ? SampleFlags.Incomplete : 0), this.frameToFunction);
    if (stackId >= this.wireStacks.length) this.growWireStacks(stackId);
    this.wireStacks[stackId] = id;
  }

  onStackReset(): void {
    this.checkDefining('STACK_RESET');
    this.wireStacks.fill(-1);
  }

  onString(r: StringRecord): void {
    const s = this.store;
    this.checkDefining('STRING');
    if (s.strings.has(r.stringId) || r.stringId === 0) throw new RecordingError(`is a STRING ${r.stringId === 0 ? 'with id 0' : `redefining string ${r.stringId}`}`);
    if (this.limits !== undefined) this.checkDefinitionRoom(r.text.length);
    s.strings.set(r.stringId, r.text);
    s.stringBytes += 2 * r.text.length;
  }

  onSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: Uint32Array): void {
    // Kept small so the optimizer inlines it into the decoder: a call it does not inline
    // would box mono/cpuNs/wallNs, three heap numbers per sample. Errors go to a cold method;
    // function ids are checked once per distinct stack, when the stack table stores it.
    const s = this.store;
    const thread = s.threads.get(threadId);
    if (thread === undefined || s.closed) return this.rejectSample(threadId);
    s.lastSeen[thread.index] = mono;
    // A v1 sample's frames are all in the file (a byte or more each), so its bytes bound their
    // walk; only a STACK record can name frames it does not hold (those it shares).
    // A walk that produced no frames never reached the entry point either, so it is marked too.
    const incomplete = (flags & SampleFlags.Incomplete) !== 0 || frames.length === 0;
    const stackId = s.stacks.intern(frames, incomplete ? INCOMPLETE_STACK_FUNCTION_ID : NO_EXTRA_ROOT, (flags & STACK_FLAGS) | (incomplete ? SampleFlags.Incomplete : 0));
    if (s.sampleMode !== false) {
      if (s.columns.count === s.columns.capacity && this.limits !== undefined) this.checkSampleRoom();
      s.columns.append(mono, threadId, stackId, cpuNs, wallNs, flags);
    } else s.uncounted++;
  }

  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void {
    // The v2 hot path: no frames to look at, the stack is the writer's id mapped to ours; the
    // u64 values stay in typed arrays all the way to the columns, so nothing is boxed.
    const s = this.store;
    const thread = threadId < DIRECT_THREAD_IDS ? s.threadById[threadId] : s.threads.get(threadId);
    if (thread === undefined || s.closed) return this.rejectSample(threadId);
    const id = stackId < this.wireStacks.length ? this.wireStacks[stackId] : -1;
    if (id < 0) return this.rejectStack(stackId);
    if (s.sampleMode !== false) {
      if (s.columns.count === s.columns.capacity && this.limits !== undefined) this.checkSampleRoom();
      s.columns.appendValues(threadId, id, flags | s.stacks.flags(id), values);
    } else s.uncounted++;
    s.lastSeen[thread.index] = values[0];
  }

  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    const s = this.store;
    // Thread 0 is no thread: counts sent without a stack (exceptions over their stack budget).
    const thread = threadId === 0 ? undefined : s.threads.get(threadId);
    if ((thread === undefined && (threadId !== 0 || (flags & EventFlags.HasStack) !== 0)) || s.closed) {
      return this.rejectEvent(`naming thread ${threadId}, which no THREAD record defined`);
    }
    let id = -1;
    if ((flags & EventFlags.HasStack) !== 0) {
      id = stackId < this.wireStacks.length ? this.wireStacks[stackId] : -1;
      if (id < 0) return this.rejectEvent(`naming stack ${stackId}, which no STACK record defined since the last STACK_RESET`);
    }
    if (labelId !== 0 && !s.strings.has(labelId)) return this.rejectEvent(`naming string ${labelId}, which no STRING record defined`);
    if (thread !== undefined && mono > s.lastSeen[thread.index]) s.lastSeen[thread.index] = mono;
    s.events.append(kind, flags, mono, threadId, id, labelId, value1, value2);
  }

  onEventMessage(back: number, stringId: number): void {
    const s = this.store;
    this.checkOpen();
    if (!s.strings.has(stringId)) throw new RecordingError(`is an EVENT_MESSAGES record naming string ${stringId}, which no STRING record defined`);
    // Counted from the end, so a kept window's cut (dropBefore, between the EVENTS record and this
    // one) still finds the record's events, which are the newest; one the cut let go has no message to keep.
    if (!s.events.setMessage(back, stringId) && s.keptFrom === -Infinity) {
      throw new RecordingError(`is an EVENT_MESSAGES record naming an event ${back} back, before the first`);
    }
  }

  onTask(r: TaskRecord): void {
    const s = this.store;
    this.checkDefining('TASK');
    if (r.taskId === 0) throw new RecordingError('is a TASK with id 0');
    if (r.nameId !== 0 && !s.strings.has(r.nameId)) throw new RecordingError(`is a TASK naming string ${r.nameId}, which no STRING record defined`);
    s.asyncChains.define(r.taskId, r.awaiterId, r.nameId);
  }

  onTaskSample(back: number, taskId: number): void {
    const s = this.store;
    this.checkOpen();
    // Without samples (a live session's model in the main process) there is nothing to mark.
    if (s.sampleMode === false) {
      if (!s.asyncChains.has(taskId)) throw new RecordingError(`is a TASK_SAMPLES record naming task ${taskId}, which no TASK record defined`);
      return;
    }
    // An index over every sample of the stream, also when only the recent ones are held.
    const index = s.sampleBase + s.columns.count - back;
    if (index < 0) throw new RecordingError(`is a TASK_SAMPLES record naming a sample ${back} back, before the first`);
    if (!s.asyncChains.mark(index, taskId)) throw new RecordingError(`is a TASK_SAMPLES record naming task ${taskId}, which no TASK record defined`);
  }

  onOperationCount(back: number, count: number): void {
    const s = this.store;
    this.checkOpen();
    if (s.sampleMode === false) return;
    const index = s.sampleBase + s.columns.count - back;
    if (index < 0) throw new RecordingError(`is an OPERATION_COUNTS record naming a sample ${back} back, before the first`);
    if (s.asyncChains.ofSample(index) === 0) throw new RecordingError(`is an OPERATION_COUNTS record counting a sample no TASK_SAMPLES marked`);
    s.asyncChains.setOperations(index, count);
  }

  onRequestSample(back: number, seq: number): void {
    const s = this.store;
    this.checkOpen();
    if (s.sampleMode === false) return;
    // Not checked against the REQUEST records: the request's comes when it ends, after its samples, or never.
    const index = s.sampleBase + s.columns.count - back;
    if (index < 0) throw new RecordingError(`is a REQUEST_SAMPLES record naming a sample ${back} back, before the first`);
    s.requestMarks.set(index, seq);
  }

  onRequestBackfill(back: number, seq: number): void {
    const s = this.store;
    this.checkOpen();
    if (s.sampleMode === false) return;
    // Up to 30 s back (the profiler's bound): a sample released ('recent') or dropped (dropBefore) since is no longer held to mark.
    if (back > s.columns.count) return;
    s.requestMarks.set(s.sampleBase + s.columns.count - back, seq);
  }

  onStats(r: StatsRecord): void {
    const s = this.store;
    this.checkDefining('STATS');
    s.stats = Object.freeze({ ...r });
  }

  onTimeline(kind: TimelineKind, r: TimelineRecord): void {
    const s = this.store;
    this.checkDefining(kind.name);
    for (const f of kind.fields) {
      // A request's seq names no record before this one (REQUEST_SAMPLES marks samples with it first),
      // and a pid no record at all (a merge's PROCESS records may come after it).
      const id = f.ref === 'thread' || f.ref === 'string' ? r[f.key] : 0;
      if (id !== 0 && !(f.ref === 'thread' ? s.threads.has(id) : s.strings.has(id))) {
        throw new RecordingError(`is a ${kind.name} naming ${f.ref} ${id}, which no ${f.ref === 'thread' ? 'THREAD' : 'STRING'} record defined`);
      }
    }
    s.timelines.append(kind, r);
  }

  onEnd(r: EndRecord): void {
    const s = this.store;
    this.checkDefining('END');
    s.end = Object.freeze({ ...r });
    s.closed = true;
  }

  onUnknown(): void {
    // Unknown record types are skipped by design (PROTOCOL.md), so newer writers still work.
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
    const s = this.store;
    return s.columns.capacity * BYTES_PER_SAMPLE_SLOT + this.storedFrames * 16 + this.definitions * DEFINITION_BYTES + s.stringBytes;
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
    const s = this.store;
    // 16 bytes a frame: wire and function ids, 4 bytes each, in tables that may have doubled.
    this.storedFrames += length;
    if (this.heldEstimate() > (this.limits as RecordingLimits).maxBytes) this.overLimits(`its ${counted(s.stacks.count + 1)} distinct stacks (${counted(this.storedFrames)} frames) with its samples and definitions`);
  }

  private checkSampleRoom(): void {
    const s = this.store;
    // The columns are about to double: their new capacity is what must fit.
    const grownBy = Math.max(1024, s.columns.capacity) * BYTES_PER_SAMPLE_SLOT;
    if (this.heldEstimate() + grownBy > (this.limits as RecordingLimits).maxBytes) this.overLimits(`its samples (more than ${counted(s.columns.count)})`);
  }

  private walk(frames: number): void {
    this.walkedFrames += frames;
    const limits = this.limits as RecordingLimits;
    if (this.walkedFrames > limits.maxWalkedFrames) {
      throw new ImportBudgetError(`its stacks hold more than ${counted(limits.maxWalkedFrames)} frames in all (each STACK record counted with the frames it shares with the one before), the most clrscope reads of one file`);
    }
  }

  private checkFrames(frames: Uint32Array, toFunction: FrameMapper | null): void {
    const s = this.store;
    for (let i = 0; i < frames.length; i++) {
      const id = frames[i];
      if (toFunction !== null) {
        if (!s.frames.has(id)) throw new RecordingError(`is a STACK naming frame ${id}, which no FRAME record defined`);
      } else if (id === INCOMPLETE_STACK_FUNCTION_ID || !s.functions.has(id)) {
        throw new RecordingError(`is a SAMPLE naming function ${id}, which no FUNCTION record defined`);
      }
    }
  }

  /** A v1 module, known by its file name only: one id of ours per distinct one. */
  private moduleNamed(functionKind: number, name: string): number {
    const s = this.store;
    const kind = functionKind === FunctionKind.Managed ? ModuleKind.Managed : ModuleKind.Native;
    const key = `${kind}\u0000${name}`;
    let id = this.moduleIdsByName.get(key);
    if (id === undefined) {
      id = s.modules.size + 1;
      this.moduleIdsByName.set(key, id);
      s.modules.set(id, Object.freeze({ id, kind, path: name, mvid: NO_MVID }));
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
    const s = this.store;
    this.checkOpen();
    if (s.meta === undefined) throw new RecordingError(`is a ${type} before the HELLO`);
  }

  private checkOpen(): void {
    const s = this.store;
    if (s.end !== undefined) throw new RecordingError('follows the END record');
    if (s.finished) throw new RecordingError('arrived after the recording was finished');
  }
}
