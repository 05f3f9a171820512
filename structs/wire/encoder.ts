// Writes clrscope wire bytes from TypeScript: v2 by default, v1 when preamble(1) asks for it.
// The real writer is the native profiler; this one writes .clrscope files from the recording
// model and lets tests and benchmarks synthesize streams the decoder must accept byte for byte.
//
// Two ways to write v2 samples: explicitly (module/frame/stack records, then stackSample() naming
// a stack id: what a saved file does), or with sample() giving frames, as in v1: the encoder then
// defines on first use a FRAME per frame id (the function of the same id, offset unknown) and a
// STACK per distinct frame list, and names the stack. Consecutive samples share one SAMPLES
// record; any other record closes it, as do bytes() and takeBytes().

import {
  EventFlags, FunctionKind, MAX_STACK_ID, MAX_STRING_BYTES, ModuleKind, OffsetKind, PREAMBLE_SIZE, RecordType,
  STACK_FLAGS, SampleFlags, SampleHead, WIRE_MAGIC, WIRE_VERSION, WIRE_VERSION_1,
  type EndRecord, type FrameRecord, type SuspensionRecord, type TaskRecord, type ThreadEndRecord,
} from './records.js';
import { SampleState, TWO_POW_32 } from './sample-state.js';
import type { CodingState } from './decoder.js';
import { grownBytes } from './grown-bytes.js';

/** u64 input: a number must be a non-negative integer (above 2^53 it is the double it is); or a bigint. */
export type U64 = number | bigint;

export interface HelloInput {
  pid: number;
  flags: number;
  mono: U64;
  unixNs: U64;
  intervalNs: number;
  wallThreadsPerTick: number;
  runtimeVersion: string;
  profilerVersion: string;
}

export interface ThreadInput {
  threadId: number;
  osTid: number;
  clrThreadId: U64;
  mono: U64;
  name: string;
}

export interface SampleInput {
  mono: U64;
  threadId: number;
  /** All four SampleFlags (in v2 Incomplete and Elided go with the stack). */
  flags: number;
  cpuNs: U64;
  wallNs: U64;
  /** Function ids (v1) or frame ids (v2), leaf first. */
  frames: ArrayLike<number>;
}

export interface StatsInput {
  mono: U64;
  samples: U64;
  droppedRingFull: U64;
  droppedBufferFull: U64;
  droppedWatchdog: U64;
  droppedOther: U64;
  /** Written only when given and not 0 (PROTOCOL.md, STATS). */
  signalLostMono?: U64;
}

export interface FunctionInput {
  functionId: number;
  kind: number;
  name: string;
  /** v1: written as is. v2 without moduleId: a MODULE with this path is defined on first use (none when empty). */
  module: string;
  file: string;
  /** v2: the MODULE's id (0: none). */
  moduleId?: number;
  /** v2: the method's metadata token. */
  token?: number;
}

export interface ModuleInput {
  moduleId: number;
  kind: number;
  /** 32 hex digits (16 bytes in wire order), or empty for none. */
  mvid: string;
  path: string;
}

export interface EventInput {
  kind: number;
  mono: U64;
  threadId: number;
  /** 0: no stack. */
  stackId: number;
  /** A STRING id, 0: none. */
  labelId: number;
  value1: U64;
  /** Absent: the event has one value. */
  value2?: U64;
  /** The event's message (an exception's), a STRING id; absent or 0: none. Sent in the EVENT_MESSAGES record that follows the EVENTS record. */
  messageId?: number;
}

export type SuspensionInput = Omit<SuspensionRecord, 'mono' | 'durationNs' | 'suspendNs'> & { mono: U64; durationNs: U64; suspendNs: U64 };
export type ThreadEndInput = Omit<ThreadEndRecord, 'mono'> & { mono: U64 };
export type EndInput = Omit<EndRecord, 'mono'> & { mono: U64 };
export type FrameInput = FrameRecord;

/** Encodes `text` as UTF-8, cut to 65,535 bytes on a character boundary the way writers must. */
export function encodeWireString(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_STRING_BYTES) return bytes;
  let cut = MAX_STRING_BYTES;
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut);
}

function checkU64(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v >= 2 ** 64) throw new RangeError(`A u64 given as a number must be a non-negative integer below 2^64, not ${v}; pass a bigint.`);
}

/** The exact halves of a u64 (hi * 2^32 + lo). */
function halves(v: U64): [number, number] {
  if (typeof v === 'bigint') {
    if (v < 0n || v >= 1n << 64n) throw new RangeError(`A u64 must be in 0..2^64-1, not ${v}.`);
    return [Number(v >> 32n), Number(v & 0xffffffffn)];
  }
  checkU64(v);
  const hi = Math.floor(v / TWO_POW_32);
  return [hi, v - hi * TWO_POW_32];
}

const BATCH_BYTES = 16 * 1024;

/** Writes a non-negative integer as a varint at `p` (exact for any integer-valued double); returns the end. */
function varint(buf: Uint8Array, p: number, v: number): number {
  if (v < 0x80) {
    buf[p] = v;
    return p + 1;
  }
  while (v >= 0x80000000) {
    const low = v % 128;
    buf[p++] = low | 0x80;
    v = (v - low) / 128;
  }
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

function zigzag(d: number): number {
  return d >= 0 ? 2 * d : -2 * d - 1;
}

export class WireEncoder {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;
  private readonly capacity: number;
  private versionValue = WIRE_VERSION;
  // The SAMPLES/EVENTS record being filled (type 0: none): its body, kept aside.
  private batchType = 0;
  private batch = new Uint8Array(1024);
  private batchLen = 0;
  // TASK_SAMPLES of the open SAMPLES record: (index in it, task) pairs, and its sample count.
  private taskMarks: number[] = [];
  // OPERATION_COUNTS of the open SAMPLES record: (index in it, operations) pairs.
  private operationCounts: number[] = [];
  // EVENT_MESSAGES of the open EVENTS record: (index in it, message) pairs.
  private eventMessages: number[] = [];
  private batchSamples = 0;
  private state = new SampleState();
  private lastStack: number[] = [];
  // What sample()/function() defined on their own in v2.
  private readonly autoStacks = new Map<string, number>();
  private readonly definedFrames = new Set<number>();
  private readonly autoModules = new Map<string, number>();
  private nextStackId = 1;
  private nextModuleId = 1;

  /** `capacity` pre-sizes the buffer, which saves copies when synthesizing large streams. */
  constructor(capacity = 4096) {
    this.capacity = Math.max(16, capacity);
    this.buf = new Uint8Array(this.capacity);
    this.view = new DataView(this.buf.buffer);
  }

  get byteLength(): number {
    return this.len;
  }

  /** The wire version being written (set by preamble()). */
  get version(): number {
    return this.versionValue;
  }

  /** The bytes written so far (a view; later writes may reallocate, so copy it to keep it). */
  bytes(): Uint8Array {
    this.closeBatch();
    return this.buf.subarray(0, this.len);
  }

  /** Bytes of whole records written so far (a SAMPLES/EVENTS record still being filled is not among them). */
  get completeLength(): number {
    return this.len;
  }

  /**
   * The whole records written so far, handed over: the encoder starts a new buffer but keeps its
   * stream state (v2 codes samples against earlier ones), so the next bytes continue the same
   * stream. A SAMPLES/EVENTS record still being filled stays (so where a writer cuts its output
   * never changes the bytes) unless `close` says to finish it first.
   */
  takeBytes(close = false): Uint8Array {
    if (close) this.closeBatch();
    const out = this.buf.slice(0, this.len);
    this.len = 0;
    return out;
  }

  /**
   * Goes on with a v2 stream someone else wrote up to a record boundary (the preamble and whole
   * records), whose reader is in `coding` (WireDecoder.codingState): no preamble is written, and
   * samples, events and stacks are coded against what that reader knows.
   */
  continueAfter(coding: CodingState): this {
    this.versionValue = WIRE_VERSION;
    this.state = coding.state.clone();
    this.lastStack = [...coding.lastStack];
    return this;
  }

  preamble(version = WIRE_VERSION): this {
    this.versionValue = version;
    this.reserve(PREAMBLE_SIZE);
    for (let i = 0; i < WIRE_MAGIC.length; i++) this.buf[this.len + i] = WIRE_MAGIC.charCodeAt(i);
    this.view.setUint16(this.len + 8, version, true);
    this.view.setUint16(this.len + 10, PREAMBLE_SIZE, true);
    this.view.setUint32(this.len + 12, 0, true);
    this.len += PREAMBLE_SIZE;
    return this;
  }

  hello(r: HelloInput): this {
    const runtime = encodeWireString(r.runtimeVersion);
    const profiler = encodeWireString(r.profilerVersion);
    let p = this.begin(RecordType.Hello, 32 + 4 + runtime.length + 4 + profiler.length);
    p = this.u32(p, r.pid);
    p = this.u32(p, r.flags);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.unixNs);
    p = this.u32(p, r.intervalNs);
    p = this.u32(p, r.wallThreadsPerTick);
    p = this.str(p, runtime);
    this.str(p, profiler);
    return this;
  }

  thread(r: ThreadInput): this {
    const name = encodeWireString(r.name);
    let p = this.beginDefinition(RecordType.Thread, 24 + 4 + name.length);
    p = this.u32(p, r.threadId);
    p = this.u32(p, r.osTid);
    p = this.u64(p, r.clrThreadId);
    p = this.u64(p, r.mono);
    this.str(p, name);
    return this;
  }

  threadEnd(r: ThreadEndInput): this {
    let p = this.begin(RecordType.ThreadEnd, 12);
    p = this.u32(p, r.threadId);
    this.u64(p, r.mono);
    this.state.forgetThread(r.threadId);
    return this;
  }

  function(r: FunctionInput): this {
    const name = encodeWireString(r.name);
    const file = encodeWireString(r.file);
    if (this.versionValue === WIRE_VERSION_1) {
      const module = encodeWireString(r.module);
      let p = this.beginDefinition(RecordType.Function, 5 + 12 + name.length + module.length + file.length);
      p = this.u32(p, r.functionId);
      this.buf[p++] = r.kind;
      p = this.str(p, name);
      p = this.str(p, module);
      this.str(p, file);
      return this;
    }
    const moduleId = r.moduleId ?? this.autoModule(r.kind, r.module);
    let p = this.beginDefinition(RecordType.Function, 13 + 8 + name.length + file.length);
    p = this.u32(p, r.functionId);
    this.buf[p++] = r.kind;
    p = this.u32(p, moduleId);
    p = this.u32(p, r.token ?? 0);
    p = this.str(p, name);
    this.str(p, file);
    return this;
  }

  module(r: ModuleInput): this {
    const path = encodeWireString(r.path);
    if (r.mvid !== '' && !/^[0-9a-fA-F]{32}$/.test(r.mvid)) throw new RangeError(`An MVID is 32 hex digits, not "${r.mvid}".`);
    let p = this.beginDefinition(RecordType.Module, 21 + 4 + path.length);
    p = this.u32(p, r.moduleId);
    this.buf[p++] = r.kind;
    for (let i = 0; i < 16; i++) this.buf[p++] = r.mvid === '' ? 0 : parseInt(r.mvid.slice(2 * i, 2 * i + 2), 16);
    this.str(p, path);
    if (r.moduleId >= this.nextModuleId) this.nextModuleId = r.moduleId + 1;
    return this;
  }

  frame(r: FrameInput): this {
    let p = this.beginDefinition(RecordType.Frame, 13);
    p = this.u32(p, r.frameId);
    p = this.u32(p, r.functionId);
    this.buf[p++] = r.offsetKind;
    this.u32(p, r.offset);
    this.definedFrames.add(r.frameId);
    return this;
  }

  string(stringId: number, text: string): this {
    const bytes = encodeWireString(text);
    this.str(this.u32(this.beginDefinition(RecordType.String, 8 + bytes.length), stringId), bytes);
    return this;
  }

  /** A STACK definition: `frames` are frame ids, leaf first; `flags` SampleFlags.Incomplete / Elided. */
  stack(stackId: number, flags: number, frames: ArrayLike<number>): this {
    if (!Number.isInteger(stackId) || stackId < 1 || stackId > MAX_STACK_ID) throw new RangeError(`A stack id is 1..${MAX_STACK_ID}, not ${stackId}.`);
    const n = frames.length;
    if (n > 0xffff) throw new RangeError(`A stack holds at most 65535 frames, not ${n}.`);
    // Send only the frames not shared, at the root end, with the previous definition.
    const prev = this.lastStack;
    let shared = 0;
    while (shared < n && shared < prev.length && frames[n - 1 - shared] === prev[prev.length - 1 - shared]) shared++;
    const start = this.len;
    this.reserve(5 + 12 + 5 * n);
    let p = start + 5;
    this.buf[start + 4] = RecordType.Stack;
    p = this.varint(p, stackId);
    this.buf[p++] = flags & STACK_FLAGS;
    p = this.varint(p, shared);
    p = this.varint(p, n - shared);
    for (let i = 0; i < n - shared; i++) p = this.varint(p, frames[i]);
    this.view.setUint32(start, p - start - 4, true);
    this.len = p;
    this.lastStack = Array.from(frames);
    if (stackId >= this.nextStackId) this.nextStackId = stackId + 1;
    return this;
  }

  /**
   * A TASK (async call stacks). `again`: the id was defined before with other values, so the open
   * SAMPLES record is closed first and its samples keep the old definition (as the profiler does).
   */
  task(r: TaskRecord, again = false): this {
    const at = again ? this.begin(RecordType.Task, 12) : this.beginDefinition(RecordType.Task, 12);
    this.u32(this.u32(this.u32(at, r.taskId), r.awaiterId), r.nameId);
    return this;
  }

  /** STACK_RESET: every stack id is forgotten. */
  stackReset(): this {
    this.begin(RecordType.StackReset, 0);
    this.lastStack = [];
    this.state.forgetStacks();
    this.autoStacks.clear();
    this.nextStackId = 1;
    return this;
  }

  /**
   * One v2 sample naming a defined stack. `flags`: SampleFlags.Cpu / Wall (others are ignored: they
   * belong to the stack). Numbers must be non-negative integers. `taskId`: the TASK it ran in (0:
   * none); `operations`: with a task, the suspended operations it stands for (OPERATION_COUNTS).
   */
  stackSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, stackId: number, taskId = 0, operations = 0): this {
    this.openBatch(RecordType.Samples, 48);
    if (taskId !== 0) {
      this.taskMarks.push(this.batchSamples, taskId);
      if (operations !== 0) this.operationCounts.push(this.batchSamples, operations);
    }
    this.batchSamples++;
    const st = this.state;
    const cpu = (flags & SampleFlags.Cpu) !== 0;
    const wall = (flags & SampleFlags.Wall) !== 0;
    const hi = mono < TWO_POW_32 ? 0 : Math.floor(mono / TWO_POW_32);
    const lo = mono - hi * TWO_POW_32;
    const slot = st.slotOf(threadId);
    let head = (cpu ? SampleHead.Cpu : 0) | (wall ? SampleHead.Wall : 0);
    if (threadId === st.thread) head |= SampleHead.ThreadSame;
    else if (threadId === st.thread + 1) head |= SampleHead.ThreadNext;
    const monoDelta = (hi - st.times[0]) * TWO_POW_32 + (lo - st.times[1]);
    if (monoDelta === 0) head |= SampleHead.MonoSame;
    if (stackId === st.stack[slot]) head |= SampleHead.StackSame;
    let wallField = 0;
    if (wall) {
      const predicted = st.hasWall[slot] === 1 ? (hi - st.wallHi[slot]) * TWO_POW_32 + (lo - st.wallLo[slot]) : 0;
      wallField = zigzag(wallNs - predicted);
      if (wallField === 0) head |= SampleHead.WallPredicted;
    }
    const b = this.batch;
    let p = this.batchLen;
    b[p++] = head;
    if ((head & SampleHead.ThreadMask) === 0) p = varint(b, p, zigzag(threadId - st.thread));
    if ((head & SampleHead.MonoSame) === 0) p = varint(b, p, zigzag(monoDelta));
    if ((head & SampleHead.StackSame) === 0) p = varint(b, p, stackId);
    if (cpu) p = varint(b, p, cpuNs);
    if (wallField !== 0) p = varint(b, p, wallField);
    this.batchLen = p;
    st.thread = threadId;
    st.times[0] = hi;
    st.times[1] = lo;
    st.stack[slot] = stackId;
    if (wall) {
      st.hasWall[slot] = 1;
      st.wallHi[slot] = hi;
      st.wallLo[slot] = lo;
    }
    return this;
  }

  /** One sample with its frames: a v1 SAMPLE, or in v2 the frames and stack defined on first use and named (see the top). */
  sample(r: SampleInput): this {
    const count = r.frames.length;
    if (count > 0xffff) throw new RangeError(`A SAMPLE holds at most 65535 frames, not ${count}.`);
    if (this.versionValue === WIRE_VERSION_1) return this.sampleV1(r, count);
    const stackFlags = r.flags & STACK_FLAGS;
    let key = String(stackFlags);
    for (let i = 0; i < count; i++) key += `,${r.frames[i]}`;
    let stackId = this.autoStacks.get(key);
    if (stackId === undefined) {
      for (let i = 0; i < count; i++) {
        const f = r.frames[i];
        if (!this.definedFrames.has(f)) this.frame({ frameId: f, functionId: f, offsetKind: OffsetKind.None, offset: 0 });
      }
      if (this.nextStackId > MAX_STACK_ID) this.stackReset();
      stackId = this.nextStackId;
      this.stack(stackId, stackFlags, r.frames);
      this.autoStacks.set(key, stackId);
    }
    return this.stackSample(this.number(r.mono), r.threadId, r.flags, this.number(r.cpuNs), this.number(r.wallNs), stackId);
  }

  /** One v2 event sample (EVENTS). */
  event(r: EventInput): this {
    this.openBatch(RecordType.Events, 64);
    const st = this.state;
    const [hi, lo] = halves(r.mono);
    const flags = (r.value2 !== undefined ? EventFlags.HasValue2 : 0) | (r.stackId !== 0 ? EventFlags.HasStack : 0) | (r.labelId !== 0 ? EventFlags.HasLabel : 0);
    const b = this.batch;
    let p = this.batchLen;
    b[p++] = r.kind;
    b[p++] = flags;
    p = varint(b, p, zigzag(r.threadId - st.eventThread));
    p = varint(b, p, zigzag((hi - st.times[2]) * TWO_POW_32 + (lo - st.times[3])));
    if (r.stackId !== 0) p = varint(b, p, r.stackId);
    if (r.labelId !== 0) p = varint(b, p, r.labelId);
    p = varint(b, p, this.number(r.value1));
    if (r.value2 !== undefined) p = varint(b, p, this.number(r.value2));
    this.batchLen = p;
    if (r.messageId !== undefined && r.messageId !== 0) this.eventMessages.push(this.batchSamples, r.messageId);
    this.batchSamples++;
    st.eventThread = r.threadId;
    st.times[2] = hi;
    st.times[3] = lo;
    return this;
  }

  stats(r: StatsInput): this {
    const lost = r.signalLostMono !== undefined && r.signalLostMono !== 0 && r.signalLostMono !== 0n;
    let p = this.begin(RecordType.Stats, lost ? 56 : 48);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.samples);
    p = this.u64(p, r.droppedRingFull);
    p = this.u64(p, r.droppedBufferFull);
    p = this.u64(p, r.droppedWatchdog);
    p = this.u64(p, r.droppedOther);
    if (lost) this.u64(p, r.signalLostMono as U64);
    return this;
  }

  suspension(r: SuspensionInput): this {
    let p = this.begin(RecordType.Suspension, 27);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.durationNs);
    p = this.u64(p, r.suspendNs);
    this.buf[p] = r.reason;
    this.view.setInt8(p + 1, r.generation);
    this.buf[p + 2] = r.flags;
    return this;
  }

  end(r: EndInput): this {
    const lost = r.descriptor !== undefined;
    const p = this.u64(this.begin(RecordType.End, lost ? 14 : 9), r.mono);
    this.buf[p] = r.reason;
    if (lost) {
      this.view.setUint32(p + 1, r.descriptor ?? 0, true);
      this.buf[p + 5] = r.descriptorLoss ?? 0;
    }
    return this;
  }

  /** Any record, body given verbatim: unknown types, or deliberately malformed bodies for tests. */
  raw(type: number, body: ArrayLike<number>): this {
    const p = this.begin(type, body.length);
    for (let i = 0; i < body.length; i++) this.buf[p + i] = body[i];
    return this;
  }

  /** Arbitrary bytes, for streams that break the framing itself. */
  rawBytes(bytes: ArrayLike<number>): this {
    this.closeBatch();
    this.reserve(bytes.length);
    for (let i = 0; i < bytes.length; i++) this.buf[this.len + i] = bytes[i];
    this.len += bytes.length;
    return this;
  }

  private sampleV1(r: SampleInput, count: number): this {
    let p = this.begin(RecordType.Sample, 31 + 4 * count);
    p = this.u64(p, r.mono);
    p = this.u32(p, r.threadId);
    this.buf[p++] = r.flags;
    p = this.u64(p, r.cpuNs);
    p = this.u64(p, r.wallNs);
    this.view.setUint16(p, count, true);
    p += 2;
    for (let i = 0; i < count; i++) p = this.u32(p, r.frames[i]);
    return this;
  }

  private autoModule(kind: number, path: string): number {
    if (path === '') return 0;
    const moduleKind = kind === FunctionKind.Managed ? ModuleKind.Managed : ModuleKind.Native;
    const key = `${moduleKind}\u0000${path}`;
    let id = this.autoModules.get(key);
    if (id === undefined) {
      id = this.nextModuleId;
      this.autoModules.set(key, id);
      this.module({ moduleId: id, kind: moduleKind, mvid: '', path });
    }
    return id;
  }

  private number(v: U64): number {
    if (typeof v === 'bigint') {
      if (v < 0n || v >= 1n << 64n) throw new RangeError(`A u64 must be in 0..2^64-1, not ${v}.`);
      return Number(v);
    }
    checkU64(v);
    return v;
  }

  /** Makes `type` the record being filled, with room for `need` more bytes. */
  private openBatch(type: number, need: number): void {
    // Capped like the profiler's, so a record stays far below the 1 MiB limit and a reader can
    // decode a long run of samples record by record.
    if (this.batchType !== type || this.batchLen >= BATCH_BYTES) {
      this.closeBatch();
      this.batchType = type;
    }
    if (this.batchLen + need > this.batch.length) {
      const grown = new Uint8Array(Math.max(this.batch.length * 2, this.batchLen + need));
      grown.set(this.batch.subarray(0, this.batchLen));
      this.batch = grown;
    }
  }

  private closeBatch(): void {
    if (this.batchType === 0) return;
    this.reserve(5 + this.batchLen);
    this.view.setUint32(this.len, 1 + this.batchLen, true);
    this.buf[this.len + 4] = this.batchType;
    this.buf.set(this.batch.subarray(0, this.batchLen), this.len + 5);
    this.len += 5 + this.batchLen;
    if (this.batchType === RecordType.Samples && this.taskMarks.length > 0) {
      // Right behind its SAMPLES record, whose samples its indexes count; the counts behind the marks.
      this.sideRecord(RecordType.TaskSamples, this.taskMarks.splice(0));
      if (this.operationCounts.length > 0) this.sideRecord(RecordType.OperationCounts, this.operationCounts.splice(0));
    }
    if (this.batchType === RecordType.Events && this.eventMessages.length > 0) this.sideRecord(RecordType.EventMessages, this.eventMessages.splice(0));
    this.batchLen = 0;
    this.batchType = 0;
    this.batchSamples = 0;
  }

  /** A record of varints (TASK_SAMPLES, OPERATION_COUNTS, EVENT_MESSAGES) right behind the record whose entries its indexes count. */
  private sideRecord(type: number, values: readonly number[]): void {
    this.reserve(5 + 10 * values.length);
    const start = this.len;
    this.buf[start + 4] = type;
    let p = start + 5;
    for (const v of values) p = this.varint(p, v);
    this.view.setUint32(start, p - start - 4, true);
    this.len = p;
  }

  /** A definition record: it may go out ahead of the SAMPLES record being filled. */
  private beginDefinition(type: number, bodyLength: number): number {
    this.reserve(5 + bodyLength);
    const start = this.len;
    this.view.setUint32(start, 1 + bodyLength, true);
    this.buf[start + 4] = type;
    this.len += 5 + bodyLength;
    return start + 5;
  }

  /** Writes the length and type (after the SAMPLES record being filled), reserves the body and returns where the body starts. */
  private begin(type: number, bodyLength: number): number {
    this.closeBatch();
    return this.beginDefinition(type, bodyLength);
  }

  private reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    this.buf = grownBytes(this.buf, this.len, need);
    this.view = new DataView(this.buf.buffer);
  }

  private varint(p: number, v: number): number {
    return varint(this.buf, p, v);
  }

  private u32(p: number, v: number): number {
    this.view.setUint32(p, v, true);
    return p + 4;
  }

  private u64(p: number, v: U64): number {
    const [hi, lo] = halves(v);
    this.view.setUint32(p, lo, true);
    this.view.setUint32(p + 4, hi, true);
    return p + 8;
  }

  private str(p: number, bytes: Uint8Array): number {
    this.view.setUint32(p, bytes.length, true);
    this.buf.set(bytes, p + 4);
    return p + 4 + bytes.length;
  }
}
