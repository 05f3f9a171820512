// Writes clrscope wire bytes from TypeScript: v2 by default, v1 when preamble(1) asks for it.
// The real writer is the native profiler; this one writes .clrscope files from the recording
// model and lets tests and benchmarks synthesize streams the decoder must accept byte for byte.
//
// Two ways to write v2 samples: explicitly (module/frame/stack records, then stackSample() naming
// a stack id: what a saved file does), or with sample() giving frames, as in v1: the encoder then
// defines on first use a FRAME per frame id (the function of the same id, offset unknown) and a
// STACK per distinct frame list, and names the stack. Consecutive samples share one SAMPLES
// record; any other record closes it, as do bytes() and takeBytes().
//
// The byte buffer and field writers are wire-bytes.ts's, the SAMPLES, EVENTS and STACK records
// packed-writer.ts's; this file writes the preamble and the fixed-layout records.

import type { CodingState } from './decoder.js';
import type {
  EndInput, FrameInput, FunctionInput, HelloInput, ModuleInput, SampleInput, StatsInput, SuspensionInput, ThreadEndInput, ThreadInput,
  TimelineInput, U64,
} from './encoder-inputs.js';
import { PackedRecordWriter } from './packed-writer.js';
import {
  FunctionKind, MAX_STACK_ID, ModuleKind, OffsetKind, OWN_COST_FIELDS, PREAMBLE_SIZE, RecordType, STACK_FLAGS, WIRE_MAGIC, WIRE_VERSION, WIRE_VERSION_1,
  type PoolGaugeRecord, type RequestWindowRecord, type TaskRecord,
} from './records.js';
import { SUSPENSIONS } from './timeline/suspensions.js';
import { timelineBodySize, type TimelineKind } from './timeline/timeline-kind.js';
import { encodeWireString } from './wire-bytes.js';

export type * from './encoder-inputs.js';
export { encodeWireString } from './wire-bytes.js';

export class WireEncoder extends PackedRecordWriter {
  // What sample()/function() defined on their own in v2.
  private readonly definedFrames = new Set<number>();
  private readonly autoModules = new Map<string, number>();
  private nextModuleId = 1;

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

  /**
   * A TASK (async call stacks). `again`: the id was defined before with other values, so the open
   * SAMPLES record is closed first and its samples keep the old definition (as the profiler does).
   */
  task(r: TaskRecord, again = false): this {
    const at = again ? this.begin(RecordType.Task, 12) : this.beginDefinition(RecordType.Task, 12);
    this.u32(this.u32(this.u32(at, r.taskId), r.awaiterId), r.nameId);
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

  stats(r: StatsInput): this {
    const lost = r.signalLostMono !== undefined && r.signalLostMono !== 0 && r.signalLostMono !== 0n;
    const cost = r.cost;
    let p = this.begin(RecordType.Stats, cost !== undefined ? 56 + OWN_COST_FIELDS.length * 8 : lost ? 56 : 48);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.samples);
    p = this.u64(p, r.droppedRingFull);
    p = this.u64(p, r.droppedBufferFull);
    p = this.u64(p, r.droppedWatchdog);
    p = this.u64(p, r.droppedOther);
    if (cost !== undefined) {
      p = this.u64(p, lost ? r.signalLostMono as U64 : 0);
      for (const key of OWN_COST_FIELDS) p = this.u64(p, cost[key]);
    } else if (lost) {
      this.u64(p, r.signalLostMono as U64);
    }
    return this;
  }

  /** A record of a timeline kind (structs/wire/timeline/), its fields written as the kind describes them. */
  timeline<R extends object>(kind: TimelineKind<R>, r: TimelineInput<R>): this {
    let p = this.begin(kind.recordType, timelineBodySize(kind));
    for (const f of kind.fields) {
      const v = r[f.key];
      switch (f.type) {
        case 'u64': p = this.u64(p, v); break;
        case 'u32': p = this.u32(p, Number(v)); break;
        case 'u16': this.view.setUint16(p, Number(v), true); p += 2; break;
        case 'u8': this.buf[p++] = Number(v); break;
        case 'i8': this.view.setInt8(p++, Number(v)); break;
      }
    }
    return this;
  }

  suspension(r: SuspensionInput): this {
    return this.timeline(SUSPENSIONS, r);
  }

  /**
   * A REQUEST_WINDOW as the profiler sends it: 28 bytes, without the pid clrscope's merges append
   * (PROTOCOL.md, REQUEST_WINDOW); timeline() writes the merged form.
   */
  requestWindow(w: Omit<TimelineInput<RequestWindowRecord>, 'pid'>): this {
    let p = this.begin(RecordType.RequestWindow, 28);
    p = this.u64(p, w.startMono);
    p = this.u64(p, w.endMono);
    p = this.u32(p, Number(w.begun));
    p = this.u32(p, Number(w.cut));
    this.u32(p, Number(w.maxPerS));
    return this;
  }

  /** A POOL_GAUGE as the profiler sends it: 24 bytes, without the pid a merge appends (as requestWindow). */
  poolGauge(g: Omit<TimelineInput<PoolGaugeRecord>, 'pid'>): this {
    let p = this.begin(RecordType.PoolGauge, 24);
    p = this.u64(p, g.mono);
    p = this.u32(p, Number(g.threads));
    p = this.u32(p, Number(g.queueLength));
    this.u64(p, g.completed);
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
}
