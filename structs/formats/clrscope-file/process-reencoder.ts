// One process's part of process-tree-stream.ts: its wire stream decoded as it arrives and each
// record written again in the merged ids (merged-encoder.ts), or, for the first process while it
// is alone, its own bytes passed on whole records at a time. Samples and events are held back
// until it is known whether the records that complete them (task and request marks, messages)
// follow.
// A failing record stops this process's part there; what it sent before is kept.

import { functionKey, frameKey, moduleKey, processThreadName } from '../../profile/merged-ids.js';
import { renumberedTimelineRecord } from '../../profile/timeline-merge.js';
import { MEASURE_RECORD_TYPES } from '../../wire/measure-records.js';
import { WireDecoder, type CodingState, type TimelineKind, type TimelineRecord, type WireSink } from '../../wire/decoder.js';
import type { WireEncoder } from '../../wire/encoder.js';
import { WireFormatError } from '../../wire/wire-format-error.js';
import {
  EventFlags, HelloFlags, type EndRecord, type FrameRecord, type FunctionRecord, type HelloRecord, type ModuleRecord,
  type StatsRecord, type StringRecord, type TaskRecord, type ThreadEndRecord, type ThreadRecord,
} from '../../wire/records.js';
import type { MergedEncoder, PartStack } from './merged-encoder.js';
import { joined } from '../../wire/joined-bytes.js';
import { RecordTap } from './record-tap.js';

// How many of a process's latest samples a REQUEST_BACKFILL can name in a merge: its profiler
// names samples up to 30 s old (core/request_tracker.h), a few thousand at the sampling rate.
const BACKFILL_SPAN = 1 << 16;

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
  /** Suspended operations the sample stands for (OPERATION_COUNTS), 0 for none. */
  operations: number;
  /** Its number among this process's samples (from 1), for REQUEST_BACKFILL. */
  ordinal: number;
  /** The merged seq of the request it was taken in (REQUEST_SAMPLES), 0 for none. */
  request: number;
}

/** An event written again in the merged ids, held until it is known whether messages follow it. */
interface HeldEvent {
  kind: number;
  mono: number;
  thread: number;
  stack: number;
  label: number;
  value1: number;
  value2: number | undefined;
  message: number;
}

/** A part's id -> the merged id; an id the part never defined is a failure of that part. */
function mapped(map: Map<number, number>, id: number, what: string): number {
  const m = map.get(id);
  if (m === undefined) throw new Error(`names ${what} ${id}, which it never defined`);
  return m;
}

/** One process's stream: decoded as it arrives, each record written again in the merged ids. */
export class ProcessReencoder implements WireSink {
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
  // Its request seqs -> the merged ones (every process numbers its requests from 1).
  private readonly requests = new Map<number, number>();
  // Its samples so far, and where the latest BACKFILL_SPAN of them went in the merged stream (by
  // their number here modulo the span; 0: not written): REQUEST_BACKFILL names samples by how far
  // back they are, which differs in the merged stream once other processes' samples come between.
  private samples = 0;
  private readonly mergedOrdinals = new Float64Array(BACKFILL_SPAN);
  // REQUEST_BACKFILL entries read and not written yet: (merged seq, merged ordinal) pairs.
  private backfill: number[] = [];
  // The samples of the latest SAMPLES record, held until it is known whether a TASK_SAMPLES or
  // REQUEST_SAMPLES record follows it (they come right after, maybe in the next chunk).
  private held: HeldSample[] = [];
  private heldRecord = -1;
  // Likewise the events of the latest EVENTS record, until it is known whether an EVENT_MESSAGES
  // record follows it. A message that follows an EVENTS record passed on as this process's own
  // bytes, just before another process joined, is not written again.
  private heldEvents: HeldEvent[] = [];
  private heldEventsRecord = -1;
  // The first process's measuring records go into the merged stream (the Measure view reads them
  // there): as its own bytes while they pass, written again once the encoder took over. The tap
  // also says where its last whole record ends.
  private readonly measureTap: RecordTap | undefined;
  private readonly enc: WireEncoder;
  /** The first process, while the stream is its own bytes (see the top). */
  passThrough: boolean;
  // Its bytes not passed on yet (from stream offset rawFrom): a record not whole yet, or the END.
  private raw: Uint8Array = new Uint8Array(0);
  private rawFrom = 0;
  // Where its END starts: its bytes pass up to there at most, until the finish.
  private rawLimit = Infinity;

  /** `first`: the recording's own process (its HELLO is the stream's). */
  constructor(private readonly tree: MergedEncoder, readonly first: boolean) {
    this.enc = tree.enc;
    this.passThrough = first;
    this.measureTap = first ? new RecordTap(MEASURE_RECORD_TYPES, (body, _offset, type) => { if (!this.passThrough) this.enc.raw(type, body); }) : undefined;
  }

  push(chunk: Uint8Array): void {
    if (this.passThrough) this.raw = this.raw.length === 0 ? chunk : joined([this.raw, chunk]);
    if (this.failed) return;
    try {
      this.decoder.push(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.measureTap?.push(chunk);
  }

  /**
   * While the stream is this process's own bytes: those of its whole records not passed on yet,
   * up to its END (`withEnd`: and the END, at the finish). Once it turned out corrupt, every byte
   * as it comes, so readers stop where they would without children. Nothing once the encoder took over.
   */
  takeRaw(withEnd = false): Uint8Array {
    // Not before its HELLO: whether its bytes may pass at all is known from there (async stacks).
    if (!this.passThrough || (this.pid === undefined && !this.failed)) return new Uint8Array(0);
    const whole = this.failed ? this.rawFrom + this.raw.length : this.measureTap?.completeBytes ?? 0;
    const to = withEnd || this.failed ? whole : Math.min(whole, this.rawLimit);
    const n = Math.max(0, to - this.rawFrom);
    if (n === 0) return new Uint8Array(0);
    const out = n === this.raw.length ? this.raw : this.raw.slice(0, n);
    this.raw = n === this.raw.length ? new Uint8Array(0) : this.raw.slice(n);
    this.rawFrom += n;
    return out;
  }

  /** Another process joined: from here on the encoder writes this one's records; returns where the reader of its own bytes is. */
  stopPassingThrough(): CodingState {
    this.passThrough = false;
    // A record not whole yet is written again once it is, a held END by finish().
    this.raw = new Uint8Array(0);
    return this.decoder.codingState();
  }

  private fail(err: unknown): void {
    this.failed = true;
    // What it sent before the failing record is merged already; samples held back are whole.
    this.flush();
    const what = err instanceof WireFormatError ? err.message
      : `The record at byte ${this.decoder.recordOffset} of process ${this.pid ?? '?'}'s stream ${(err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '')}.`;
    this.tree.options.onFailure?.(this.pid, `${what} That process is merged no further; what it sent before is kept.`);
  }

  /** Writes what is held back: samples for their task marks, events for their messages. */
  flush(): void {
    this.flushSamples();
    this.flushEvents();
    this.flushBackfill();
  }

  private flushBackfill(): void {
    const b = this.backfill;
    if (b.length === 0) return;
    this.backfill = [];
    // Consecutive entries of one request make one record, their samples in stream order.
    for (let i = 0; i < b.length;) {
      const seq = b[i];
      const backs: number[] = [];
      for (; i < b.length && b[i] === seq; i += 2) {
        const back = this.tree.samplesWritten - b[i + 1] + 1;
        if (backs.length === 0 || back < backs[backs.length - 1]) backs.push(back);
      }
      this.enc.requestBackfill(seq, backs);
    }
  }

  private flushEvents(): void {
    const held = this.heldEvents;
    if (held.length === 0) return;
    this.heldEvents = [];
    this.heldEventsRecord = -1;
    for (const e of held) {
      this.enc.event({ kind: e.kind, mono: e.mono, threadId: e.thread, stackId: e.stack, labelId: e.label, value1: e.value1, value2: e.value2, messageId: e.message });
    }
  }

  private flushSamples(): void {
    const held = this.held;
    if (held.length === 0) return;
    this.held = [];
    this.heldRecord = -1;
    for (const s of held) {
      this.enc.stackSample(s.mono, s.thread, s.flags, s.cpuNs, s.wallNs, this.tree.stackId(s.stack), s.task, s.operations, s.request);
      this.mergedOrdinals[s.ordinal % BACKFILL_SPAN] = ++this.tree.samplesWritten;
    }
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
    const name = this.tree.several ? processThreadName({ pid: this.pid ?? 0, name: this.name }, t.name, t.osTid) : t.name;
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
    if (this.first) {
      if (this.async) {
        this.passThrough = false;
        this.raw = new Uint8Array(0);
        this.tree.writeHello(r);
      } else {
        this.tree.helloWritten = true;
      }
    }
    this.tree.joined(this);
  }

  onThread(r: ThreadRecord): void {
    this.flush();
    const known = this.threads.get(r.threadId);
    if (known !== undefined) {
      known.name = r.name;
      known.osTid = r.osTid;
      known.clrThreadId = r.clrThreadId;
      if (!this.passThrough) this.writeThread(known, r.mono);
      return;
    }
    if (this.passThrough) {
      this.threads.set(r.threadId, { merged: r.threadId, osTid: r.osTid, clrThreadId: r.clrThreadId, mono: r.mono, name: r.name });
      this.tree.adoptThread(r.threadId);
      return;
    }
    const t: PartThread = { merged: this.tree.newThreadId(), osTid: r.osTid, clrThreadId: r.clrThreadId, mono: r.mono, name: r.name };
    this.threads.set(r.threadId, t);
    this.writeThread(t);
    if (this.tree.several) this.tree.writeProcess(this, [t.merged]);
  }

  onThreadEnd(r: ThreadEndRecord): void {
    this.flush();
    const thread = this.thread(r.threadId);
    if (!this.passThrough) this.enc.threadEnd({ threadId: thread, mono: r.mono });
  }

  onModule(r: ModuleRecord): void {
    this.flush();
    const key = moduleKey(r);
    if (this.passThrough) {
      this.tree.modules.adopt(key, r.moduleId);
      this.modules.set(r.moduleId, r.moduleId);
      return;
    }
    const [id, fresh] = this.tree.modules.intern(key);
    this.modules.set(r.moduleId, id);
    if (fresh) this.enc.module({ moduleId: id, kind: r.kind, mvid: r.mvid, path: r.path });
  }

  onFunction(r: FunctionRecord): void {
    this.flush();
    const moduleId = r.moduleId === 0 ? 0 : mapped(this.modules, r.moduleId, 'module');
    const module = r.moduleId === 0 ? r.module : '';
    const key = functionKey({ kind: r.kind, name: r.name, module, moduleId, file: r.file, token: r.token });
    if (this.passThrough) {
      this.tree.functions.adopt(key, r.functionId);
      this.functions.set(r.functionId, r.functionId);
      return;
    }
    const [id, fresh] = this.tree.functions.intern(key);
    this.functions.set(r.functionId, id);
    if (fresh) this.enc.function({ functionId: id, kind: r.kind, name: r.name, module, file: r.file, moduleId, token: r.token });
  }

  onFrame(r: FrameRecord): void {
    this.flush();
    const functionId = mapped(this.functions, r.functionId, 'function');
    const key = frameKey(functionId, r.offsetKind, r.offset);
    if (this.passThrough) {
      this.tree.frames.adopt(key, r.frameId);
      this.frames.set(r.frameId, r.frameId);
      return;
    }
    const [id, fresh] = this.tree.frames.intern(key);
    this.frames.set(r.frameId, id);
    if (fresh) this.enc.frame({ frameId: id, functionId, offsetKind: r.offsetKind, offset: r.offset });
  }

  onStack(stackId: number, flags: number, frames: Uint32Array): void {
    this.flush();
    const merged = new Uint32Array(frames.length);
    for (let i = 0; i < frames.length; i++) merged[i] = mapped(this.frames, frames[i], 'frame');
    if (this.passThrough) {
      // In the merged stream already, under its own id.
      this.stacks.set(stackId, { flags, frames: merged, merged: stackId, epoch: this.tree.currentStackEpoch });
      this.tree.adoptStack(stackId);
      return;
    }
    // Defined in the merged stream on its first use: most stacks are, right after.
    this.stacks.set(stackId, { flags, frames: merged, merged: 0, epoch: -1 });
  }

  onStackReset(): void {
    this.flush();
    this.stacks = new Map();
    if (this.passThrough) this.tree.adoptStackReset();
  }

  onString(r: StringRecord): void {
    this.flush();
    if (this.passThrough) {
      this.tree.strings.adopt(r.text, r.stringId);
      this.strings.set(r.stringId, r.stringId);
      return;
    }
    const [id, fresh] = this.tree.strings.intern(r.text);
    this.strings.set(r.stringId, id);
    if (fresh) this.enc.string(id, r.text);
  }

  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void {
    const ordinal = ++this.samples;
    if (this.passThrough) {
      // Its own bytes are the merged stream's: the same place there.
      this.mergedOrdinals[ordinal % BACKFILL_SPAN] = ++this.tree.samplesWritten;
      return;
    }
    this.flushEvents();
    const thread = this.thread(threadId);
    const stack = this.stack(stackId);
    const record = this.decoder.recordOffset;
    if (record !== this.heldRecord) {
      this.flush();
      this.heldRecord = record;
    }
    this.held.push({ thread, flags, stack, mono: values[0], cpuNs: values[1], wallNs: values[2], task: 0, operations: 0, ordinal, request: 0 });
  }

  onRequestSample(back: number, seq: number): void {
    const merged = this.requestSeq(seq);
    if (this.passThrough) return;
    const sample = this.held[this.held.length - back];
    if (sample === undefined) throw new Error(`names a sample ${back} back, which is not in the SAMPLES record before it`);
    sample.request = merged;
  }

  onRequestBackfill(back: number, seq: number): void {
    const merged = this.requestSeq(seq);
    if (this.passThrough) return;
    const ordinal = this.samples - back + 1;
    if (back > BACKFILL_SPAN) return;  // older than any merge keeps track of
    this.flushSamples();  // so that the sample has its place in the merged stream
    const at = this.mergedOrdinals[ordinal % BACKFILL_SPAN];
    if (at !== 0) this.backfill.push(merged, at);
  }

  /**
   * The merged seq of a request of this process's, given on its first mention (its samples' marks
   * come before its REQUEST). While its bytes pass on whole, the seq is its own.
   */
  private requestSeq(seq: number): number {
    let m = this.requests.get(seq);
    if (m === undefined) {
      if (this.passThrough) {
        m = seq;
        this.tree.adoptRequestSeq(seq);
      } else m = this.tree.newRequestSeq();
      this.requests.set(seq, m);
    }
    return m;
  }

  onTaskSample(back: number, taskId: number): void {
    if (this.passThrough) return;
    const task = this.tasks.get(taskId);
    if (task === undefined || !this.tree.definedTasks.has(task)) throw new Error(`names task ${taskId}, which it never defined`);
    const sample = this.held[this.held.length - back];
    if (sample === undefined) throw new Error(`names a sample ${back} back, which is not in the SAMPLES record before it`);
    sample.task = task;
  }

  onOperationCount(back: number, count: number): void {
    if (this.passThrough) return;
    const sample = this.held[this.held.length - back];
    if (sample === undefined || sample.task === 0) throw new Error(`counts operations of a sample ${back} back, which no TASK_SAMPLES record marked`);
    sample.operations = count;
  }

  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void {
    this.flushSamples();
    if (this.passThrough) return;
    const hasStack = (flags & EventFlags.HasStack) !== 0;
    // Thread 0 is no thread: counts sent without a stack.
    const thread = threadId === 0 && !hasStack ? 0 : this.thread(threadId);
    const label = labelId === 0 ? 0 : mapped(this.strings, labelId, 'string');
    const stack = hasStack ? this.tree.stackId(this.stack(stackId)) : 0;
    const record = this.decoder.recordOffset;
    if (record !== this.heldEventsRecord) {
      this.flushEvents();
      this.heldEventsRecord = record;
    }
    this.heldEvents.push({ kind, mono, thread, stack, label, value1, value2: (flags & EventFlags.HasValue2) !== 0 ? value2 : undefined, message: 0 });
  }

  onEventMessage(back: number, stringId: number): void {
    if (this.passThrough) return;
    const message = mapped(this.strings, stringId, 'string');
    const event = this.heldEvents[this.heldEvents.length - back];
    if (event !== undefined) event.message = message;
  }

  onTask(r: TaskRecord): void {
    this.flush();
    if (this.passThrough) {
      // Only a first process without async stacks passes, so this is a writer's oddity: kept under its own ids.
      for (const id of [r.taskId, r.awaiterId]) {
        if (id === 0) continue;
        this.tasks.set(id, id);
        this.tree.adoptTask(id);
      }
      this.tree.definedTasks.add(r.taskId);
      return;
    }
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
    if (!this.passThrough) this.tree.writeStats();
  }

  onTimeline(kind: TimelineKind, r: TimelineRecord): void {
    this.flush();
    // Its threads, strings and requests in the merged ids, and its pid, as merge-processes.ts renumbers them after the fact.
    const ids = { thread: (id: number) => this.thread(id), string: (id: number) => mapped(this.strings, id, 'string'), request: (seq: number) => this.requestSeq(seq), pid: this.pid ?? 0 };
    if (!this.passThrough) this.enc.timeline(kind, renumberedTimelineRecord(kind, r, ids));
    else for (const f of kind.fields) if (f.ref === 'request' && r[f.key] !== 0) this.requestSeq(r[f.key]);
  }

  /** The recording's END is written by finish(): another process may still be sending. */
  onEnd(_r: EndRecord): void {
    this.flush();
    if (this.passThrough) this.rawLimit = Math.min(this.rawLimit, this.decoder.recordOffset);
  }

  onSample(): void {
    throw new Error('is a wire v1 SAMPLE: only v2 streams are merged');
  }

  onUnknown(): void {
    this.flush();
  }
}
