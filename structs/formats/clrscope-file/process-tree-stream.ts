// Several processes' wire streams -> one .clrscope stream, as their bytes arrive: the streaming
// form of merge-processes.ts, for a workstation session that records every .NET process a
// launched program starts. The session spools one stream and every page decodes one stream, the
// format of a saved multi-process file, so the live views, an export and a reopened file read the
// same thing. Each process's records are decoded as they come and written again in the merged
// recording's id spaces: a definition two processes share (module path and MVID; function; frame;
// string) gets one id, threads, stacks and tasks get their own. The first process's HELLO is the
// stream's; no process's END is written: finish() writes the recording's once every stream is over.
//
// While one process has connected the stream is that process's own, renumbered: no PROCESS record
// and unprefixed thread names, so a program that starts no .NET child reads as it would without
// children. When a second one connects, the first one's threads are named again with their
// "[pid name] " prefix and a PROCESS record lists them; from then on every new thread gets its
// prefix and a PROCESS record of its own (a PROCESS record of a pid already listed adds threads).
//
// A process whose stream turns out corrupt, or names what it never defined, stops there: what it
// sent before stays, and nothing it sent after can make the merged stream unreadable.

import { processPrefix } from '../../profile/merge-processes.js';
import { MEASURE_RECORD_TYPES } from '../../wire/measure-records.js';
import { WireDecoder, type WireSink } from '../../wire/decoder.js';
import { WireEncoder } from '../../wire/encoder.js';
import { WireFormatError } from '../../wire/wire-format-error.js';
import {
  EventFlags, HelloFlags, MAX_STACK_ID, type EndRecord, type FrameRecord, type FunctionRecord, type HelloRecord, type ModuleRecord,
  type StatsRecord, type StringRecord, type SuspensionRecord, type TaskRecord, type ThreadEndRecord, type ThreadRecord,
} from '../../wire/records.js';
import { encodeProcessBody, PROCESS_RECORD_TYPE } from './process-record.js';
import { RecordTap } from './record-tap.js';

export interface ProcessTreeStreamOptions {
  /** The kernel's name of a process ("dotnet"), asked once when its HELLO arrives; '' when unknown. */
  nameOf: (pid: number) => string;
  /** Called once per process that stops being merged, with why. */
  onFailure?: (pid: number | undefined, sentence: string) => void;
}

/** One stack of a process: its frames in the merged ids, and the merged stack id it has now (0: none since the last merged STACK_RESET). */
interface PartStack {
  flags: number;
  frames: Uint32Array;
  merged: number;
  epoch: number;
}

interface PartThread {
  merged: number;
  osTid: number;
  clrThreadId: number;
  mono: number;
  name: string;
}

interface HeldSample {
  thread: number;
  flags: number;
  stack: PartStack;
  mono: number;
  cpuNs: number;
  wallNs: number;
  task: number;
}

const ENCODER_BYTES = 1 << 16;

/** Interns one kind of definition across processes: the merged id of a key, and whether it is new. */
class Interned {
  private readonly ids = new Map<string, number>();
  private next = 1;
  intern(key: string): [number, boolean] {
    const known = this.ids.get(key);
    if (known !== undefined) return [known, false];
    const id = this.next++;
    this.ids.set(key, id);
    return [id, true];
  }
}

/** A part's id -> the merged id; an id the part never defined is a failure of that part. */
function mapped(map: Map<number, number>, id: number, what: string): number {
  const m = map.get(id);
  if (m === undefined) throw new Error(`names ${what} ${id}, which it never defined`);
  return m;
}

export class ProcessTreeStream {
  private readonly merged: MergedStream;
  private readonly parts = new Map<object, Part>();
  private first: Part | undefined;
  // Chunks of later processes that came before the first process's HELLO (the stream's own).
  private waiting: [Part, Uint8Array][] = [];
  private finished = false;

  constructor(options: ProcessTreeStreamOptions) {
    this.merged = new MergedStream(options);
  }

  /** True once a second process joined: thread names carry their process and PROCESS records say whose they are. */
  get hasSeveralProcesses(): boolean {
    return this.merged.several;
  }

  /**
   * Takes the next bytes of one process's stream (`source` stands for the stream: the first one
   * given is the recording's own) and returns the merged stream's bytes they made, possibly none.
   */
  push(source: object, chunk: Uint8Array): Uint8Array {
    if (this.finished) return new Uint8Array(0);
    let part = this.parts.get(source);
    if (part === undefined) {
      part = new Part(this.merged, this.first === undefined);
      this.parts.set(source, part);
      this.merged.parts.push(part);
      this.first ??= part;
    }
    if (!this.merged.helloWritten) {
      if (part !== this.first) {
        // Held only while the first stream may still say HELLO.
        if (this.first?.failed !== true) this.waiting.push([part, chunk.slice()]);
        return new Uint8Array(0);
      }
      part.push(chunk);
      if (!this.merged.helloWritten) {
        if (part.failed) this.waiting = [];
        return this.merged.enc.takeBytes(true);
      }
      const waiting = this.waiting;
      this.waiting = [];
      for (const [p, c] of waiting) p.push(c);
      return this.merged.enc.takeBytes(true);
    }
    part.push(chunk);
    return this.merged.enc.takeBytes(true);
  }

  /** A process's stream is over: samples it still held back (waiting for their tasks) go out. */
  endSource(source: object): Uint8Array {
    this.parts.get(source)?.flush();
    return this.merged.enc.takeBytes(true);
  }

  /** Every stream is over: what any process held back, then the recording's END (the first process's, as the session saw it). */
  finish(end: EndRecord | undefined): Uint8Array {
    if (this.finished) return new Uint8Array(0);
    for (const part of this.merged.parts) part.flush();
    this.finished = true;
    this.waiting = [];
    if (this.merged.helloWritten && end !== undefined) this.merged.enc.end({ mono: end.mono, reason: end.reason });
    return this.merged.enc.takeBytes(true);
  }
}

/** What every process's records are written into: the encoder and the merged id spaces. */
class MergedStream {
  readonly enc = new WireEncoder(ENCODER_BYTES);
  readonly parts: Part[] = [];
  helloWritten = false;
  several = false;
  readonly modules = new Interned();
  readonly functions = new Interned();
  readonly frames = new Interned();
  readonly strings = new Interned();
  private nextThread = 1;
  private nextStack = 1;
  /** Counts merged STACK_RESETs: a part's stack defined in an earlier epoch is defined again on its next use. */
  private stackEpoch = 0;
  private nextTask = 1;
  readonly definedTasks = new Set<number>();

  constructor(readonly options: ProcessTreeStreamOptions) {}

  writeHello(r: HelloRecord): void {
    this.enc.preamble().hello({
      pid: r.pid, flags: r.flags, mono: r.mono, unixNs: r.unixNs, intervalNs: r.intervalNs,
      wallThreadsPerTick: r.wallThreadsPerTick, runtimeVersion: r.runtimeVersion, profilerVersion: r.profilerVersion,
    });
    this.helloWritten = true;
  }

  /** A process said HELLO; once a second one has, the stream holds several. */
  joined(part: Part): void {
    if (this.several) {
      this.writeProcess(part, []);
    } else if (!part.first) {
      this.several = true;
      for (const p of this.parts) if (p.pid !== undefined) p.nameThreadsAgain();
    }
  }

  newThreadId(): number {
    return this.nextThread++;
  }

  newTaskId(): number {
    return this.nextTask++;
  }

  /** The merged id of a part's stack now, defined (after a STACK_RESET when the ids ran out) on its first use. */
  stackId(stack: PartStack): number {
    if (stack.merged !== 0 && stack.epoch === this.stackEpoch) return stack.merged;
    if (this.nextStack > MAX_STACK_ID) {
      this.enc.stackReset();
      this.stackEpoch++;
      this.nextStack = 1;
    }
    const id = this.nextStack++;
    this.enc.stack(id, stack.flags, stack.frames);
    stack.merged = id;
    stack.epoch = this.stackEpoch;
    return id;
  }

  /** Every process's latest STATS, summed: the recording's. */
  writeStats(): void {
    let mono = 0;
    const sum = { samples: 0, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 };
    for (const p of this.parts) {
      const s = p.stats;
      if (s === undefined) continue;
      mono = Math.max(mono, s.mono);
      sum.samples += s.samples;
      sum.droppedRingFull += s.droppedRingFull;
      sum.droppedBufferFull += s.droppedBufferFull;
      sum.droppedWatchdog += s.droppedWatchdog;
      sum.droppedOther += s.droppedOther;
    }
    this.enc.stats({ mono, ...sum });
  }

  /** A PROCESS record; one with no threads declares the process (so processes are listed in the order they connected). */
  writeProcess(part: Part, threadIds: readonly number[]): void {
    if (part.pid === undefined) return;
    this.enc.raw(PROCESS_RECORD_TYPE, encodeProcessBody({ pid: part.pid, name: part.name }, threadIds));
  }
}

/** One process's stream: decoded as it arrives, each record written again in the merged ids. */
class Part implements WireSink {
  pid: number | undefined;
  name = '';
  stats: StatsRecord | undefined;
  failed = false;
  private readonly decoder = new WireDecoder(this);
  private async = false;
  private readonly threads = new Map<number, PartThread>();
  private readonly modules = new Map<number, number>();
  private readonly functions = new Map<number, number>();
  private readonly frames = new Map<number, number>();
  private readonly strings = new Map<number, number>();
  private stacks = new Map<number, PartStack>();
  private readonly tasks = new Map<number, number>();
  // With async stacks: the samples of the latest SAMPLES record, held until it is known whether
  // a TASK_SAMPLES record follows it (it must come right after, maybe in the next chunk).
  private held: HeldSample[] = [];
  private heldRecord = -1;
  // The first process's measuring records go into the merged stream (the Measure view reads them there).
  private readonly measureTap: RecordTap | undefined;

  private readonly enc: WireEncoder;

  /** `first`: the recording's own process (its HELLO is the stream's). */
  constructor(private readonly tree: MergedStream, readonly first: boolean) {
    this.enc = tree.enc;
    this.measureTap = first ? new RecordTap(MEASURE_RECORD_TYPES, (body, _offset, type) => this.enc.raw(type, body)) : undefined;
  }

  push(chunk: Uint8Array): void {
    if (this.failed) return;
    try {
      this.decoder.push(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.measureTap?.push(chunk);
    if (!this.async) this.flush();
  }

  private fail(err: unknown): void {
    this.failed = true;
    // What it sent before the failing record is merged already; samples held back are whole.
    this.flush();
    const what = err instanceof WireFormatError ? err.message
      : `The record at byte ${this.decoder.recordOffset} of process ${this.pid ?? '?'}'s stream ${(err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '')}.`;
    this.tree.options.onFailure?.(this.pid, `${what} That process is merged no further; what it sent before is kept.`);
  }

  /** Writes the samples held back for their task marks. */
  flush(): void {
    const held = this.held;
    if (held.length === 0) return;
    this.held = [];
    this.heldRecord = -1;
    for (const s of held) this.enc.stackSample(s.mono, s.thread, s.flags, s.cpuNs, s.wallNs, this.tree.stackId(s.stack), s.task);
  }

  /** This process's threads once more, under their prefixed names, and the PROCESS record saying they are its. */
  nameThreadsAgain(): void {
    const ids: number[] = [];
    for (const t of this.threads.values()) {
      this.writeThread(t);
      ids.push(t.merged);
    }
    this.tree.writeProcess(this, ids);
  }

  private writeThread(t: PartThread, mono = t.mono): void {
    const name = this.tree.several ? `${processPrefix({ pid: this.pid ?? 0, name: this.name })} ${t.name !== '' ? t.name : `thread ${t.osTid}`}` : t.name;
    this.enc.thread({ threadId: t.merged, osTid: t.osTid, clrThreadId: t.clrThreadId, mono, name });
  }

  private thread(id: number): number {
    const t = this.threads.get(id);
    if (t === undefined) throw new Error(`names thread ${id}, which it never defined`);
    return t.merged;
  }

  private stack(id: number): PartStack {
    const s = this.stacks.get(id);
    if (s === undefined) throw new Error(`names stack ${id}, which it never defined since its last STACK_RESET`);
    return s;
  }

  onHello(r: HelloRecord): void {
    this.flush();
    if (this.pid !== undefined) throw new Error('is a second HELLO');
    this.pid = r.pid;
    this.name = this.tree.options.nameOf(r.pid);
    this.async = (r.flags & HelloFlags.Async) !== 0;
    if (this.first) this.tree.writeHello(r);
    this.tree.joined(this);
  }

  onThread(r: ThreadRecord): void {
    this.flush();
    const known = this.threads.get(r.threadId);
    if (known !== undefined) {
      known.name = r.name;
      known.osTid = r.osTid;
      known.clrThreadId = r.clrThreadId;
      this.writeThread(known, r.mono);
      return;
    }
    const t: PartThread = { merged: this.tree.newThreadId(), osTid: r.osTid, clrThreadId: r.clrThreadId, mono: r.mono, name: r.name };
    this.threads.set(r.threadId, t);
    this.writeThread(t);
    if (this.tree.several) this.tree.writeProcess(this, [t.merged]);
  }

  onThreadEnd(r: ThreadEndRecord): void {
    this.flush();
    this.enc.threadEnd({ threadId: this.thread(r.threadId), mono: r.mono });
  }

  onModule(r: ModuleRecord): void {
    this.flush();
    const [id, fresh] = this.tree.modules.intern(JSON.stringify([r.kind, r.path, r.mvid]));
    this.modules.set(r.moduleId, id);
    if (fresh) this.enc.module({ moduleId: id, kind: r.kind, mvid: r.mvid, path: r.path });
  }

  onFunction(r: FunctionRecord): void {
    this.flush();
    const moduleId = r.moduleId === 0 ? 0 : mapped(this.modules, r.moduleId, 'module');
    const module = r.moduleId === 0 ? r.module : '';
    const [id, fresh] = this.tree.functions.intern(JSON.stringify([r.kind, r.name, module, moduleId, r.file, r.token]));
    this.functions.set(r.functionId, id);
    if (fresh) this.enc.function({ functionId: id, kind: r.kind, name: r.name, module, file: r.file, moduleId, token: r.token });
  }

  onFrame(r: FrameRecord): void {
    this.flush();
    const functionId = mapped(this.functions, r.functionId, 'function');
    const [id, fresh] = this.tree.frames.intern(`${functionId}:${r.offsetKind}:${r.offset}`);
    this.frames.set(r.frameId, id);
    if (fresh) this.enc.frame({ frameId: id, functionId, offsetKind: r.offsetKind, offset: r.offset });
  }

  onStack(stackId: number, flags: number, frames: Uint32Array): void {
    this.flush();
    const merged = new Uint32Array(frames.length);
    for (let i = 0; i < frames.length; i++) merged[i] = mapped(this.frames, frames[i], 'frame');
    // Defined in the merged stream on its first use: most stacks are, right after.
    this.stacks.set(stackId, { flags, frames: merged, merged: 0, epoch: -1 });
  }

  onStackReset(): void {
    this.flush();
    this.stacks = new Map();
  }

  onString(r: StringRecord): void {
    this.flush();
    const [id, fresh] = this.tree.strings.intern(r.text);
    this.strings.set(r.stringId, id);
    if (fresh) this.enc.string(id, r.text);
  }

  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void {
    const thread = this.thread(threadId);
    const stack = this.stack(stackId);
    if (!this.async) {
      this.enc.stackSample(values[0], thread, flags, values[1], values[2], this.tree.stackId(stack));
      return;
    }
    const record = this.decoder.recordOffset;
    if (record !== this.heldRecord) {
      this.flush();
      this.heldRecord = record;
    }
    this.held.push({ thread, flags, stack, mono: values[0], cpuNs: values[1], wallNs: values[2], task: 0 });
  }

  onTaskSample(back: number, taskId: number): void {
    const task = this.tasks.get(taskId);
    if (task === undefined || !this.tree.definedTasks.has(task)) throw new Error(`names task ${taskId}, which it never defined`);
    const sample = this.held[this.held.length - back];
    if (sample === undefined) throw new Error(`names a sample ${back} back, which is not in the SAMPLES record before it`);
    sample.task = task;
  }

  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    this.flush();
    const hasStack = (flags & EventFlags.HasStack) !== 0;
    // Thread 0 is no thread: counts sent without a stack.
    const thread = threadId === 0 && !hasStack ? 0 : this.thread(threadId);
    const label = labelId === 0 ? 0 : mapped(this.strings, labelId, 'string');
    const stack = hasStack ? this.tree.stackId(this.stack(stackId)) : 0;
    this.enc.event({ kind, mono, threadId: thread, stackId: stack, labelId: label, value1, value2: (flags & EventFlags.HasValue2) !== 0 ? value2 : undefined });
  }

  onTask(r: TaskRecord): void {
    this.flush();
    const name = r.nameId === 0 ? 0 : mapped(this.strings, r.nameId, 'string');
    const id = this.taskId(r.taskId);
    const awaiter = r.awaiterId === 0 ? 0 : this.taskId(r.awaiterId);
    const again = this.tree.definedTasks.has(id);
    this.tree.definedTasks.add(id);
    this.enc.task({ taskId: id, awaiterId: awaiter, nameId: name }, again);
  }

  /** The merged id of a task, given on its first mention (an awaiter may be named before it is defined). */
  private taskId(id: number): number {
    let m = this.tasks.get(id);
    if (m === undefined) {
      m = this.tree.newTaskId();
      this.tasks.set(id, m);
    }
    return m;
  }

  onStats(r: StatsRecord): void {
    this.flush();
    this.stats = r;
    this.tree.writeStats();
  }

  onSuspension(r: SuspensionRecord): void {
    this.flush();
    this.enc.suspension(r);
  }

  /** The recording's END is written by finish(): another process may still be sending. */
  onEnd(_r: EndRecord): void {
    this.flush();
  }

  onSample(): void {
    throw new Error('is a wire v1 SAMPLE: only v2 streams are merged');
  }

  onUnknown(): void {
    this.flush();
  }
}
