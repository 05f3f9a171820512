// Streaming reader for wire v1 and v2 (PROTOCOL.md). Chunks arrive as the socket delivers them,
// so any boundary is possible; records are parsed in place from the chunk and only a record that
// straddles two chunks is copied (into `carry`) to be parsed whole. The framing is the same in
// both versions; v2's SAMPLES and EVENTS records pack many samples, delta/varint coded against
// state this decoder carries from record to record (SampleState).

import {
  EventFlags, MAX_RECORD_LENGTH, MAX_STACK_ID, MAX_STRING_BYTES, PREAMBLE_SIZE, RecordType, STACK_FLAGS, SampleHead, WIRE_MAGIC,
  WIRE_VERSION, WIRE_VERSION_1,
  recordTypeName,
  type EndRecord, type FrameRecord, type FunctionRecord, type HelloRecord, type ModuleRecord, type StatsRecord,
  type StringRecord, type SuspensionRecord, type TaskRecord, type ThreadEndRecord, type ThreadRecord,
} from './records.js';
import { SampleState, TWO_POW_32 } from './sample-state.js';
import { WireFormatError } from './wire-format-error.js';

export interface WireSink {
  onHello(record: HelloRecord): void;
  onThread(record: ThreadRecord): void;
  onThreadEnd(record: ThreadEndRecord): void;
  onFunction(record: FunctionRecord): void;
  /** v2: a MODULE, before the FUNCTIONs that name it. */
  onModule(record: ModuleRecord): void;
  /** v2: a FRAME (a function, and where in it), before the STACKs that name it. */
  onFrame(record: FrameRecord): void;
  /**
   * v2: a STACK definition. `frames` are frame ids, leaf first, in a view made for this call;
   * `flags` are its SampleFlags.Incomplete / Elided bits.
   */
  onStack(stackId: number, flags: number, frames: Uint32Array): void;
  /** v2: every stack id defined so far is forgotten; later samples name stacks defined after this. */
  onStackReset(): void;
  /** v2: a STRING (labels of event samples). */
  onString(record: StringRecord): void;
  /**
   * v2: one sample of a SAMPLES record. `flags` are SampleFlags.Cpu / Wall; the stack's own flags
   * came with its STACK. The sample's u64 values are in `values`: [mono, cpuNs, wallNs] (numbers
   * as in onSample), the decoder's scratch array, valid only during this call. They travel in a
   * Float64Array rather than as arguments because V8 boxes a double passed to a call it has not
   * inlined (an allocation per sample).
   */
  onStackSample(threadId: number, flags: number, stackId: number, values: Float64Array): void;
  /**
   * v2: one event sample of an EVENTS record. `flags` are EventFlags: without HasStack `stackId`
   * is 0, without HasLabel `labelId` is 0, without HasValue2 `value2` is 0.
   */
  onEvent(kind: number, flags: number, mono: number, threadId: number, stackId: number, labelId: number, value1: number, value2: number): void;
  /**
   * v1: called once per SAMPLE with primitives so the hot path allocates nothing. `frames` holds
   * exactly `frameCount` function ids, leaf first. It is the decoder's scratch memory: it is
   * valid only during this call and is overwritten by the next sample, so copy what you keep.
   * u64 values are numbers (see HelloRecord for the rounding above 2^53).
   *
   * The decoder allocates nothing per sample. V8 itself boxes a number >= 2^31 passed to a
   * call it has not inlined, so mono/cpuNs/wallNs may cost 48 bytes of short-lived garbage a
   * sample when the optimizer does not inline this method (measured: no throughput change).
   * Keep implementations small, with error paths in separate methods, to help it inline.
   */
  onSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, frames: Uint32Array): void;
  /** v2: a TASK (async call stacks); a later TASK of the same id replaces it for the samples that follow. */
  onTask(record: TaskRecord): void;
  /**
   * v2: from a TASK_SAMPLES record, the sample `back` samples ago (1: the latest sample handed to
   * onStackSample) ran task `taskId`. Marks come in the order of their samples.
   */
  onTaskSample(back: number, taskId: number): void;
  /**
   * v2: from an OPERATION_COUNTS record, the sample `back` samples ago (as in onTaskSample; a
   * suspended operations' sample) stands for `count` operations suspended where it says.
   */
  onOperationCount(back: number, count: number): void;
  /**
   * v2: from an EVENT_MESSAGES record, the event `back` events ago (1: the latest event handed to
   * onEvent) has the message STRING `stringId` (an exception's message). In the order of their events.
   */
  onEventMessage(back: number, stringId: number): void;
  onStats(record: StatsRecord): void;
  onSuspension(record: SuspensionRecord): void;
  onEnd(record: EndRecord): void;
  /** A record type this reader does not know; `length` is the record's length field (type byte + body). */
  onUnknown(type: number, length: number): void;
}

/** The state of a v2 stream that spans records, as a reader has it after some records. */
export interface CodingState {
  state: SampleState;
  /** The frames of the last STACK record (the next one may share its root end). */
  lastStack: number[];
}

export interface WireEndState {
  /** True when the stream stopped inside the preamble or inside a record. */
  midRecord: boolean;
  /** Stream offset where the unfinished preamble or record began; the total byte count otherwise. */
  offset: number;
  /** Bytes received in total. */
  totalBytes: number;
}

const MAGIC_BYTES = Array.from(WIRE_MAGIC, (c) => c.charCodeAt(0));
const MAX_FRAMES = 0xffff;
// Fixed-size prefixes of each body (strings counted as their 4-byte length only).
const HELLO_MIN = 4 + 4 + 8 + 8 + 4 + 4 + 4 + 4;
const THREAD_MIN = 4 + 4 + 8 + 8 + 4;
const THREAD_END_MIN = 4 + 8;
const FUNCTION_MIN = 4 + 1 + 4 + 4 + 4;
const FUNCTION_V2_MIN = 4 + 1 + 4 + 4 + 4 + 4;
const MODULE_MIN = 4 + 1 + 16 + 4;
const FRAME_MIN = 4 + 4 + 1 + 4;
const STRING_MIN = 4 + 4;
const STACK_MIN = 4;
const TASK_MIN = 3 * 4;
const SAMPLE_MIN = 8 + 4 + 1 + 8 + 8 + 2;
const STATS_MIN = 6 * 8;
const SUSPENSION_MIN = 3 * 8 + 3;
const END_MIN = 8 + 1;

/** What tells one side record (decoder.sideRecord) from another, for its checks and sentences. */
interface SideRecordSpec {
  type: number;
  name: string;
  /** The record it must follow, and that record in a sentence. */
  follows: number;
  followsText: string;
  /** What its indexes name (an entry of the record in `of`), and the words around a bad value. */
  entry: string;
  of: string;
  valueBefore: string;
  valueAfter: string;
}

const TASK_SAMPLES: SideRecordSpec = { type: RecordType.TaskSamples, name: 'TASK_SAMPLES', follows: RecordType.Samples, followsText: 'a SAMPLES record', entry: 'sample', of: 'a SAMPLES record', valueBefore: 'names task', valueAfter: '' };
const OPERATION_COUNTS: SideRecordSpec = { type: RecordType.OperationCounts, name: 'OPERATION_COUNTS', follows: RecordType.TaskSamples, followsText: 'a TASK_SAMPLES record', entry: 'sample', of: 'a SAMPLES record', valueBefore: 'counts', valueAfter: ' operations' };
const EVENT_MESSAGES: SideRecordSpec = { type: RecordType.EventMessages, name: 'EVENT_MESSAGES', follows: RecordType.Events, followsText: 'an EVENTS record', entry: 'event', of: 'an EVENTS record', valueBefore: 'names string', valueAfter: '' };

function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * TWO_POW_32;
}

/** The signed value a zigzag-folded varint stands for (exact below 2^53). */
function unzigzag(z: number): number {
  if (z < 0x80000000) return (z >>> 1) ^ -(z & 1);
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class WireDecoder {
  private readonly sink: WireSink;
  private readonly utf8 = new TextDecoder('utf-8');
  private readonly frameScratch = new Uint32Array(MAX_FRAMES);
  // One exact-length view per frame count seen, made once, so onSample can hand out a
  // correctly sized Uint32Array without allocating per sample.
  private readonly frameViews: (Uint32Array | undefined)[] = [];
  private carry = new Uint8Array(256);
  private carryView = new DataView(this.carry.buffer);
  private carryLen = 0;
  private carryOffset = 0;
  private received = 0;
  private preambleDone = false;
  private skipBytes = 0;
  private failure: Error | undefined;
  // Stream offset of bytes[0] of the buffer being parsed, so messages can name stream offsets.
  private bufferBase = 0;
  private lastRecordOffset = 0;
  private versionValue = 0;
  private readonly state = new SampleState();
  // Where the last varint read ended (varint() returns the value).
  private next = 0;
  private readonly wide = new Float64Array(1);
  // [mono, cpuNs, wallNs] of the sample being handed to the sink (see onStackSample).
  private readonly sampleValues = new Float64Array(3);
  // The previous STACK's frames, for the root-side frames the next one shares.
  private lastStack = new Uint32Array(256);
  private lastStackLength = 0;
  // The type of the record before this one, and how many samples the last SAMPLES record held:
  // a TASK_SAMPLES record indexes the samples of the SAMPLES record right before it.
  private previousType = 0;
  private lastSamplesCount = 0;
  private samplesSeen = 0;
  // Likewise for EVENT_MESSAGES and the EVENTS record before it.
  private lastEventsCount = 0;
  private eventsSeen = 0;

  constructor(sink: WireSink) {
    this.sink = sink;
  }

  /** The stream's wire version from its preamble (0 until the preamble arrived). */
  get version(): number {
    return this.versionValue;
  }

  /**
   * Stream offset of the record most recently handed to the sink. When a sink method throws
   * (a Recording rejecting a sample, say), this names where the offending record starts.
   */
  get recordOffset(): number {
    return this.lastRecordOffset;
  }

  /** Total bytes pushed so far. */
  get bytesReceived(): number {
    return this.received;
  }

  /**
   * The v2 coding state after the records handed to the sink so far, and the last STACK's
   * frames: what a writer that goes on with this stream after them needs (WireEncoder.continueAfter).
   */
  codingState(): CodingState {
    return { state: this.state.clone(), lastStack: Array.from(this.lastStack.subarray(0, this.lastStackLength)) };
  }

  /** Feeds the next bytes of the stream. Throws WireFormatError on corruption; any error thrown by the sink propagates. Either way the decoder refuses further input. */
  push(chunk: Uint8Array): void {
    if (this.failure !== undefined) {
      throw new WireFormatError(`The decoder stopped at an earlier error and accepts no more data (byte ${this.received}).`, this.received);
    }
    try {
      this.consume(chunk);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  }

  /** Reports how the stream ended; call when the connection closes. */
  end(): WireEndState {
    if (this.carryLen > 0) return { midRecord: true, offset: this.carryOffset, totalBytes: this.received };
    // Still skipping an extended preamble: the stream stopped inside it, and it starts at 0.
    if (this.skipBytes > 0) return { midRecord: true, offset: 0, totalBytes: this.received };
    return { midRecord: false, offset: this.received, totalBytes: this.received };
  }

  private consume(chunk: Uint8Array): void {
    const n = chunk.length;
    const base = this.received;
    this.received += n;
    let pos = 0;
    if (this.carryLen > 0) {
      pos = this.continueCarry(chunk);
      if (this.carryLen > 0) return;
    }
    const view = new DataView(chunk.buffer, chunk.byteOffset, n);
    while (pos < n) {
      if (this.skipBytes > 0) {
        const k = Math.min(this.skipBytes, n - pos);
        this.skipBytes -= k;
        pos += k;
        continue;
      }
      const avail = n - pos;
      this.bufferBase = base;
      if (!this.preambleDone) {
        if (avail < PREAMBLE_SIZE) break;
        this.preamble(view, chunk, pos);
        pos += PREAMBLE_SIZE;
        continue;
      }
      if (avail < 4) break;
      const length = view.getUint32(pos, true);
      // Checked inline: a call taking `base + pos` would box that number once per record.
      if (length > MAX_RECORD_LENGTH || length === 0) this.badLength(length, base + pos);
      if (avail < 4 + length) break;
      this.record(view, chunk, pos, length);
      pos += 4 + length;
    }
    if (pos < n) this.startCarry(chunk, pos, base + pos);
  }

  private startCarry(chunk: Uint8Array, pos: number, offset: number): void {
    this.carryOffset = offset;
    this.carryLen = 0;
    this.appendCarry(chunk, pos, chunk.length - pos);
  }

  private appendCarry(chunk: Uint8Array, pos: number, count: number): number {
    const take = Math.min(count, chunk.length - pos);
    const need = this.carryLen + take;
    if (need > this.carry.length) {
      let size = this.carry.length;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.carry.subarray(0, this.carryLen));
      this.carry = grown;
      this.carryView = new DataView(grown.buffer);
    }
    this.carry.set(chunk.subarray(pos, pos + take), this.carryLen);
    this.carryLen += take;
    return pos + take;
  }

  /** Completes the carried preamble or record from the new chunk; returns the chunk position after what it took. */
  private continueCarry(chunk: Uint8Array): number {
    const header = this.preambleDone ? 4 : PREAMBLE_SIZE;
    let pos = 0;
    if (this.carryLen < header) {
      pos = this.appendCarry(chunk, pos, header - this.carryLen);
      if (this.carryLen < header) return pos;
    }
    this.bufferBase = this.carryOffset;
    if (!this.preambleDone) {
      this.preamble(this.carryView, this.carry, 0);
      this.carryLen = 0;
      return pos;
    }
    const length = this.carryView.getUint32(0, true);
    if (length > MAX_RECORD_LENGTH || length === 0) this.badLength(length, this.carryOffset);
    const total = 4 + length;
    if (this.carryLen < total) {
      pos = this.appendCarry(chunk, pos, total - this.carryLen);
      if (this.carryLen < total) return pos;
    }
    this.record(this.carryView, this.carry, 0, length);
    this.carryLen = 0;
    return pos;
  }

  private preamble(view: DataView, bytes: Uint8Array, at: number): void {
    const offset = this.bufferBase + at;
    for (let i = 0; i < MAGIC_BYTES.length; i++) {
      if (bytes[at + i] !== MAGIC_BYTES[i]) {
        throw new WireFormatError(`Not a clrscope stream: the first 8 bytes at byte ${offset} are not the magic "${WIRE_MAGIC}".`, offset);
      }
    }
    const version = view.getUint16(at + 8, true);
    if (version !== WIRE_VERSION && version !== WIRE_VERSION_1) {
      throw new WireFormatError(`Unsupported clrscope stream version ${version} at byte ${offset + 8}; this reader understands versions ${WIRE_VERSION_1} and ${WIRE_VERSION}.`, offset + 8);
    }
    this.versionValue = version;
    const size = view.getUint16(at + 10, true);
    if (size < PREAMBLE_SIZE) {
      throw new WireFormatError(`Corrupt clrscope stream: the preamble at byte ${offset} declares a size of ${size} bytes, less than the ${PREAMBLE_SIZE} it must have.`, offset + 10);
    }
    // A larger preambleSize leaves room for a later revision to add fields; skip them unread.
    this.skipBytes = size - PREAMBLE_SIZE;
    this.preambleDone = true;
  }

  private badLength(length: number, offset: number): never {
    if (length === 0) {
      throw new WireFormatError(`Corrupt clrscope stream: the record at byte ${offset} declares a length of 0, too short to hold its type byte.`, offset);
    }
    throw new WireFormatError(`Corrupt clrscope stream: the record at byte ${offset} declares a length of ${length} bytes, more than the 1 MiB (${MAX_RECORD_LENGTH}) limit.`, offset);
  }

  /** Parses one whole record whose length field is at `at`. */
  private record(view: DataView, bytes: Uint8Array, at: number, length: number): void {
    const type = bytes[at + 4];
    this.lastRecordOffset = this.bufferBase + at;
    const body = at + 5;
    const bodyLen = length - 1;
    const previousType = this.previousType;
    this.previousType = type;
    if (this.versionValue === WIRE_VERSION) {
      if (type === RecordType.Samples) {
        const before = this.samplesSeen;
        this.samples(bytes, body, body + bodyLen, at);
        this.lastSamplesCount = this.samplesSeen - before;
        return;
      }
      if (type === RecordType.TaskSamples) {
        this.sideRecord(TASK_SAMPLES, bytes, body, body + bodyLen, at, previousType, this.lastSamplesCount);
        return;
      }
      if (type === RecordType.OperationCounts) {
        this.sideRecord(OPERATION_COUNTS, bytes, body, body + bodyLen, at, previousType, this.lastSamplesCount);
        return;
      }
      if (type === RecordType.Events) {
        const before = this.eventsSeen;
        this.events(bytes, body, body + bodyLen, at);
        this.lastEventsCount = this.eventsSeen - before;
        return;
      }
      if (type === RecordType.EventMessages) {
        this.sideRecord(EVENT_MESSAGES, bytes, body, body + bodyLen, at, previousType, this.lastEventsCount);
        return;
      }
      if (this.recordV2(view, bytes, type, body, bodyLen, at)) return;
    } else if (type === RecordType.Sample) {
      this.sample(view, body, bodyLen, at);
      return;
    }
    switch (type) {
      case RecordType.Hello: this.hello(view, bytes, body, bodyLen, at); break;
      case RecordType.Thread: this.thread(view, bytes, body, bodyLen, at); break;
      case RecordType.ThreadEnd: {
        this.requireBody(type, bodyLen, THREAD_END_MIN, at);
        const threadId = view.getUint32(body, true);
        this.state.forgetThread(threadId);
        this.sink.onThreadEnd({ threadId, mono: u64(view, body + 4) });
        break;
      }
      case RecordType.Function: this.function(view, bytes, body, bodyLen, at); break;
      case RecordType.Stats:
        this.requireBody(type, bodyLen, STATS_MIN, at);
        this.sink.onStats({
          mono: u64(view, body),
          samples: u64(view, body + 8),
          droppedRingFull: u64(view, body + 16),
          droppedBufferFull: u64(view, body + 24),
          droppedWatchdog: u64(view, body + 32),
          droppedOther: u64(view, body + 40),
          // Appended in a later revision, and only once sampling stopped.
          ...(bodyLen >= STATS_MIN + 8 && u64(view, body + 48) !== 0 ? { signalLostMono: u64(view, body + 48) } : {}),
        });
        break;
      case RecordType.Suspension:
        this.requireBody(type, bodyLen, SUSPENSION_MIN, at);
        this.sink.onSuspension({
          mono: u64(view, body),
          durationNs: u64(view, body + 8),
          suspendNs: u64(view, body + 16),
          reason: bytes[body + 24],
          generation: view.getInt8(body + 25),
          flags: bytes[body + 26],
        });
        break;
      case RecordType.End:
        this.requireBody(type, bodyLen, END_MIN, at);
        this.sink.onEnd({
          mono: u64(view, body),
          reason: bytes[body + 8],
          // Appended in a later revision, to an END of a connection the program took.
          ...(bodyLen >= END_MIN + 5 ? { descriptor: view.getUint32(body + 9, true), descriptorLoss: bytes[body + 13] } : {}),
        });
        break;
      default:
        this.sink.onUnknown(type, length);
    }
  }

  /** The records only v2 has (and v2's FUNCTION); false for the rest. */
  private recordV2(view: DataView, bytes: Uint8Array, type: number, body: number, bodyLen: number, at: number): boolean {
    switch (type) {
      case RecordType.Stack: this.stack(bytes, body, body + bodyLen, at); return true;
      case RecordType.Task:
        this.requireBody(type, bodyLen, TASK_MIN, at);
        this.sink.onTask({ taskId: view.getUint32(body, true), awaiterId: view.getUint32(body + 4, true), nameId: view.getUint32(body + 8, true) });
        return true;
      case RecordType.Function: this.functionV2(view, bytes, body, bodyLen, at); return true;
      case RecordType.Module: this.module(view, bytes, body, bodyLen, at); return true;
      case RecordType.Frame:
        this.requireBody(type, bodyLen, FRAME_MIN, at);
        this.sink.onFrame({ frameId: view.getUint32(body, true), functionId: view.getUint32(body + 4, true), offsetKind: bytes[body + 8], offset: view.getUint32(body + 9, true) });
        return true;
      case RecordType.String: {
        this.requireBody(type, bodyLen, STRING_MIN, at);
        const text = this.str(view, bytes, body + 4, body + bodyLen, type, at);
        this.sink.onString({ stringId: view.getUint32(body, true), text: text.value });
        return true;
      }
      case RecordType.StackReset:
        this.lastStackLength = 0;
        this.state.forgetStacks();
        this.sink.onStackReset();
        return true;
      case RecordType.Sample:
        throw new WireFormatError(`Corrupt clrscope stream: the record at byte ${this.bufferBase + at} is a version 1 SAMPLE in a version 2 stream.`, this.bufferBase + at);
      default:
        return false;
    }
  }

  /**
   * Reads the varint at `p` (before `end`); returns its value and leaves its end in `this.next`.
   * Values below 2^28 (up to four bytes: nearly all) are decoded here as small integers; longer
   * ones are left in `this.wide[0]` and -1 is returned. A double returned from a call V8 did not
   * inline is boxed (an allocation per sample), so the hot path only ever returns small integers:
   * callers write `let v = this.varint(...); if (v < 0) v = this.wide[0];`.
   */
  private varint(bytes: Uint8Array, p: number, end: number, type: number, at: number): number {
    if (p + 4 <= end) {
      const b0 = bytes[p];
      if (b0 < 0x80) {
        this.next = p + 1;
        return b0;
      }
      const b1 = bytes[p + 1];
      if (b1 < 0x80) {
        this.next = p + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
      const b2 = bytes[p + 2];
      if (b2 < 0x80) {
        this.next = p + 3;
        return (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
      }
      const b3 = bytes[p + 3];
      if (b3 < 0x80) {
        this.next = p + 4;
        return (b0 & 0x7f) | ((b1 & 0x7f) << 7) | ((b2 & 0x7f) << 14) | (b3 << 21);
      }
    }
    this.varintSlow(bytes, p, end, type, at);
    return -1;
  }

  private varintSlow(bytes: Uint8Array, p: number, end: number, type: number, at: number): void {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (p + i >= end) this.endsInside(type, at, end);
      const b = bytes[p + i];
      if (i === 9 && b > 1) this.badVarint(type, at, p);
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.next = p + i + 1;
        this.wide[0] = value;
        return;
      }
      scale *= 128;
    }
    this.badVarint(type, at, p);
  }

  /**
   * The samples of one SAMPLES record, each handed to the sink as it is decoded. The hot loop
   * of v2 ingest: one-byte numbers (most fields) are read inline, longer ones by varint().
   */
  private samples(bytes: Uint8Array, p: number, end: number, at: number): void {
    const st = this.state;
    const sink = this.sink;
    const values = this.sampleValues;
    const type = RecordType.Samples;
    // The time lives in `times` ([hi, lo]), not in locals: a double carried from one iteration to
    // the next may be kept boxed by on-stack-replaced code, an allocation per sample.
    const times = st.times;
    let prevThread = st.thread;
    let slot = -1;
    let slotThread = -1;
    while (p < end) {
      const head = bytes[p++];
      if ((head & SampleHead.Reserved) !== 0) this.badSample(at, 'has the reserved head bit 7 set');
      const threadCode = head & SampleHead.ThreadMask;
      // Thread and stack ids are kept as 32-bit integers (`>>> 0`, `| 0`): a value the compiler
      // types as a double would be boxed when handed to the sink.
      let thread = prevThread;
      if (threadCode === SampleHead.ThreadNext) {
        if (prevThread === 0xffffffff) this.badSample(at, 'names thread 2^32, outside 0..2^32-1');
        thread = (prevThread + 1) >>> 0;
      } else if (threadCode === 0) {
        let z = p < end ? bytes[p] : 0x80;
        if (z < 0x80) p++;
        else {
          z = this.varint(bytes, p, end, type, at);
          if (z < 0) z = this.wide[0];
          p = this.next;
        }
        const t = prevThread + (z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2);
        if (t < 0 || t > 0xffffffff) this.badSample(at, `names thread ${t}, outside 0..2^32-1`);
        thread = t >>> 0;
      } else if (threadCode !== SampleHead.ThreadSame) this.badSample(at, 'has thread code 3, which no version defines');
      if (thread !== slotThread) {
        slot = st.slotOf(thread);
        slotThread = thread;
      }
      if ((head & SampleHead.MonoSame) === 0) {
        let z = p < end ? bytes[p] : 0x80;
        if (z < 0x80) p++;
        else {
          z = this.varint(bytes, p, end, type, at);
          if (z < 0) z = this.wide[0];
          p = this.next;
        }
        const lo = times[1] + (z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2);
        times[1] = lo;
        if (lo < 0 || lo >= TWO_POW_32) this.carryTime(times, 0, at);
      }
      values[0] = times[0] === 0 ? times[1] : times[0] * TWO_POW_32 + times[1];
      const stacks = st.stack;
      let stack = stacks[slot];
      if ((head & SampleHead.StackSame) === 0) {
        stack = p < end ? bytes[p] : 0x80;
        if (stack < 0x80) p++;
        else {
          stack = this.varint(bytes, p, end, type, at);
          if (stack < 0) stack = this.wide[0];
          p = this.next;
        }
        if (stack === 0 || stack > MAX_STACK_ID) this.badSample(at, `names stack ${stack}, outside 1..${MAX_STACK_ID}`);
        stack |= 0;
      } else if (stack === 0) this.badSample(at, `reuses the previous stack of thread ${thread}, which has none`);
      values[1] = 0;
      if ((head & SampleHead.Cpu) !== 0) {
        const cpu = this.varint(bytes, p, end, type, at);
        values[1] = cpu < 0 ? this.wide[0] : cpu;
        p = this.next;
      }
      values[2] = 0;
      if ((head & SampleHead.Wall) !== 0) {
        let wall = 0;
        const hasWall = st.hasWall;
        const wallHi = st.wallHi;
        const wallLo = st.wallLo;
        if (hasWall[slot] === 1) wall = (times[0] - wallHi[slot]) * TWO_POW_32 + (times[1] - wallLo[slot]);
        if ((head & SampleHead.WallPredicted) === 0) {
          let z = this.varint(bytes, p, end, type, at);
          if (z < 0) z = this.wide[0];
          p = this.next;
          wall += z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        }
        if (wall < 0) this.badSample(at, 'has a negative wall value');
        values[2] = wall;
        hasWall[slot] = 1;
        wallHi[slot] = times[0];
        wallLo[slot] = times[1];
      } else if ((head & SampleHead.WallPredicted) !== 0) this.badSample(at, 'predicts a wall value for a sample without one');
      stacks[slot] = stack;
      prevThread = thread;
      st.thread = thread;
      this.samplesSeen++;
      sink.onStackSample(thread, head & (SampleHead.Cpu | SampleHead.Wall), stack, values);
    }
  }

  /**
   * A side record: (index, value) varint pairs, indexes ascending, each index naming an entry of
   * the record right before it (`count` entries): TASK_SAMPLES, OPERATION_COUNTS, EVENT_MESSAGES.
   */
  private sideRecord(spec: SideRecordSpec, bytes: Uint8Array, p: number, end: number, at: number, previousType: number, count: number): void {
    const type = spec.type;
    const offset = this.bufferBase + at;
    if (previousType !== spec.follows) {
      throw new WireFormatError(`Corrupt clrscope stream: the ${spec.name} record at byte ${offset} does not follow ${spec.followsText}.`, offset);
    }
    let previous = -1;
    while (p < end) {
      let index = this.varint(bytes, p, end, type, at);
      p = this.next;
      if (index < 0) index = this.wide[0];
      let value = this.varint(bytes, p, end, type, at);
      p = this.next;
      if (value < 0) value = this.wide[0];
      if (index <= previous || index >= count) {
        throw new WireFormatError(`Corrupt clrscope stream: the ${spec.name} record at byte ${offset} names ${spec.entry} ${index} of ${spec.of} of ${count}${index <= previous ? ', out of order' : ''}.`, offset);
      }
      if (value === 0 || value > 0xffffffff) throw new WireFormatError(`Corrupt clrscope stream: the ${spec.name} record at byte ${offset} ${spec.valueBefore} ${value}${spec.valueAfter}, outside 1..2^32-1.`, offset);
      previous = index;
      const back = count - index;
      if (type === RecordType.TaskSamples) this.sink.onTaskSample(back, value);
      else if (type === RecordType.OperationCounts) this.sink.onOperationCount(back, value);
      else this.sink.onEventMessage(back, value);
    }
  }

  private events(bytes: Uint8Array, p: number, end: number, at: number): void {
    const st = this.state;
    const type = RecordType.Events;
    while (p < end) {
      const kind = bytes[p++];
      if (p >= end) this.endsInside(type, at, end);
      const flags = bytes[p++];
      if ((flags & 0xf8) !== 0) this.badEvent(at, `has reserved head bits set (0x${flags.toString(16)})`);
      let z = this.varint(bytes, p, end, type, at);
      if (z < 0) z = this.wide[0];
      const thread = st.eventThread + unzigzag(z);
      p = this.next;
      if (thread < 0 || thread > 0xffffffff) this.badEvent(at, `names thread ${thread}, outside 0..2^32-1`);
      z = this.varint(bytes, p, end, type, at);
      if (z < 0) z = this.wide[0];
      st.times[3] += unzigzag(z);
      p = this.next;
      if (st.times[3] < 0 || st.times[3] >= TWO_POW_32) this.carryTime(st.times, 2, at);
      let stack = 0;
      if ((flags & EventFlags.HasStack) !== 0) {
        stack = this.varint(bytes, p, end, type, at);
        p = this.next;
        if (stack < 0) stack = this.wide[0];
        if (stack === 0 || stack > MAX_STACK_ID) this.badEvent(at, `names stack ${stack}, outside 1..${MAX_STACK_ID}`);
      }
      let label = 0;
      if ((flags & EventFlags.HasLabel) !== 0) {
        label = this.varint(bytes, p, end, type, at);
        p = this.next;
        if (label < 0) label = this.wide[0];
      }
      let value1 = this.varint(bytes, p, end, type, at);
      p = this.next;
      if (value1 < 0) value1 = this.wide[0];
      let value2 = 0;
      if ((flags & EventFlags.HasValue2) !== 0) {
        value2 = this.varint(bytes, p, end, type, at);
        p = this.next;
        if (value2 < 0) value2 = this.wide[0];
      }
      st.eventThread = thread;
      this.eventsSeen++;
      this.sink.onEvent(kind, flags, st.times[2] * TWO_POW_32 + st.times[3], thread, stack, label, value1, value2);
    }
  }

  private stack(bytes: Uint8Array, p: number, end: number, at: number): void {
    const type = RecordType.Stack;
    this.requireBody(type, end - p, STACK_MIN, at);
    let id = this.varint(bytes, p, end, type, at);
    p = this.next;
    if (id < 0) id = this.wide[0];
    if (id === 0 || id > MAX_STACK_ID) this.badStack(at, `has id ${id}, outside 1..${MAX_STACK_ID}`);
    if (p >= end) this.endsInside(type, at, end);
    const flags = bytes[p++] & STACK_FLAGS;
    let shared = this.varint(bytes, p, end, type, at);
    p = this.next;
    if (shared < 0) shared = this.wide[0];
    let count = this.varint(bytes, p, end, type, at);
    p = this.next;
    if (count < 0) count = this.wide[0];
    if (shared > this.lastStackLength) this.badStack(at, `shares ${shared} frames with the previous STACK, which has ${this.lastStackLength}`);
    const total = count + shared;
    if (total > MAX_FRAMES) this.badStack(at, `has ${total} frames, more than ${MAX_FRAMES}`);
    if (this.lastStack.length < total) {
      const grown = new Uint32Array(Math.max(total, this.lastStack.length * 2));
      grown.set(this.lastStack.subarray(0, this.lastStackLength));
      this.lastStack = grown;
    }
    const frames = new Uint32Array(total);
    for (let i = 0; i < count; i++) {
      let f = this.varint(bytes, p, end, type, at);
      p = this.next;
      if (f < 0) f = this.wide[0];
      if (f > 0xffffffff) this.badStack(at, `names frame ${f}, more than 32 bits`);
      frames[i] = f;
    }
    frames.set(this.lastStack.subarray(this.lastStackLength - shared, this.lastStackLength), count);
    this.lastStack.set(frames);
    this.lastStackLength = total;
    this.sink.onStack(id, flags, frames);
  }

  private module(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Module, bodyLen, MODULE_MIN, at);
    let mvid = '';
    for (let i = 0; i < 16; i++) mvid += HEX[bytes[body + 5 + i]];
    const path = this.str(view, bytes, body + 21, body + bodyLen, RecordType.Module, at);
    this.sink.onModule({ moduleId: view.getUint32(body, true), kind: bytes[body + 4], mvid, path: path.value });
  }

  private functionV2(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Function, bodyLen, FUNCTION_V2_MIN, at);
    const end = body + bodyLen;
    const name = this.str(view, bytes, body + 13, end, RecordType.Function, at);
    const file = this.str(view, bytes, name.next, end, RecordType.Function, at);
    this.sink.onFunction({
      functionId: view.getUint32(body, true),
      kind: bytes[body + 4],
      name: name.value,
      module: '',
      file: file.value,
      moduleId: view.getUint32(body + 5, true),
      token: view.getUint32(body + 9, true),
    });
  }

  /** Moves whole multiples of 2^32 from the low half of a time (times[i + 1]) to its high half. */
  private carryTime(times: Float64Array, i: number, at: number): void {
    const carry = Math.floor(times[i + 1] / TWO_POW_32);
    times[i] += carry;
    times[i + 1] -= carry * TWO_POW_32;
    if (times[i] < 0) throw new WireFormatError(`Corrupt clrscope stream: a ${i === 0 ? 'sample in the SAMPLES' : 'event in the EVENTS'} record at byte ${this.bufferBase + at} has a time before 0.`, this.bufferBase + at);
  }

  private endsInside(type: number, at: number, end: number): never {
    const offset = this.bufferBase + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} ends at byte ${this.bufferBase + end}, inside a field.`, offset);
  }

  private badVarint(type: number, at: number, p: number): never {
    const offset = this.bufferBase + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} has a number at byte ${this.bufferBase + p} longer than 64 bits.`, offset);
  }

  /** `subject` names the record's part ("a sample in the SAMPLES record"); `what` says what is wrong with it. */
  private corrupt(subject: string, at: number, what: string): never {
    const offset = this.bufferBase + at;
    throw new WireFormatError(`Corrupt clrscope stream: ${subject} at byte ${offset} ${what}.`, offset);
  }

  private badSample(at: number, what: string): never {
    return this.corrupt('a sample in the SAMPLES record', at, what);
  }

  private badEvent(at: number, what: string): never {
    return this.corrupt('an event in the EVENTS record', at, what);
  }

  private badStack(at: number, what: string): never {
    return this.corrupt('the STACK record', at, what);
  }

  private sample(view: DataView, body: number, bodyLen: number, at: number): void {
    if (bodyLen < SAMPLE_MIN) this.short(RecordType.Sample, bodyLen, SAMPLE_MIN, at);
    const count = view.getUint16(body + 29, true);
    const need = SAMPLE_MIN + 4 * count;
    if (bodyLen < need) this.short(RecordType.Sample, bodyLen, need, at);
    const frames = this.frameScratch;
    let p = body + SAMPLE_MIN;
    for (let i = 0; i < count; i++, p += 4) frames[i] = view.getUint32(p, true);
    let exact = this.frameViews[count];
    if (exact === undefined) {
      exact = frames.subarray(0, count);
      this.frameViews[count] = exact;
    }
    this.sink.onSample(
      u64(view, body),
      view.getUint32(body + 8, true),
      view.getUint8(body + 12),
      u64(view, body + 13),
      u64(view, body + 21),
      exact,
    );
  }

  private hello(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Hello, bodyLen, HELLO_MIN, at);
    const end = body + bodyLen;
    const runtimeVersion = this.str(view, bytes, body + 32, end, RecordType.Hello, at);
    const profilerVersion = this.str(view, bytes, runtimeVersion.next, end, RecordType.Hello, at);
    this.sink.onHello({
      pid: view.getUint32(body, true),
      flags: view.getUint32(body + 4, true),
      mono: u64(view, body + 8),
      unixNs: view.getBigUint64(body + 16, true),
      intervalNs: view.getUint32(body + 24, true),
      wallThreadsPerTick: view.getUint32(body + 28, true),
      runtimeVersion: runtimeVersion.value,
      profilerVersion: profilerVersion.value,
    });
  }

  private thread(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Thread, bodyLen, THREAD_MIN, at);
    const name = this.str(view, bytes, body + 24, body + bodyLen, RecordType.Thread, at);
    this.sink.onThread({
      threadId: view.getUint32(body, true),
      osTid: view.getUint32(body + 4, true),
      clrThreadId: u64(view, body + 8),
      mono: u64(view, body + 16),
      name: name.value,
    });
  }

  private function(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Function, bodyLen, FUNCTION_MIN, at);
    const end = body + bodyLen;
    const name = this.str(view, bytes, body + 5, end, RecordType.Function, at);
    const module = this.str(view, bytes, name.next, end, RecordType.Function, at);
    const file = this.str(view, bytes, module.next, end, RecordType.Function, at);
    this.sink.onFunction({
      functionId: view.getUint32(body, true),
      kind: bytes[body + 4],
      name: name.value,
      module: module.value,
      file: file.value,
      moduleId: 0,
      token: 0,
    });
  }

  /** Reads a `str` whose length field is at `p`; `end` is the end of the body. */
  private str(view: DataView, bytes: Uint8Array, p: number, end: number, type: number, at: number): { value: string; next: number } {
    const offset = this.bufferBase + p;
    if (p + 4 > end) {
      throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${this.bufferBase + at} ends at byte ${this.bufferBase + end}, before the string length it needs at byte ${offset}.`, offset);
    }
    const length = view.getUint32(p, true);
    if (length > MAX_STRING_BYTES) {
      throw new WireFormatError(`Corrupt clrscope stream: the string at byte ${offset} in the ${recordTypeName(type)} record at byte ${this.bufferBase + at} is ${length} bytes long, more than the ${MAX_STRING_BYTES} allowed.`, offset);
    }
    if (p + 4 + length > end) {
      throw new WireFormatError(`Corrupt clrscope stream: the string at byte ${offset} in the ${recordTypeName(type)} record at byte ${this.bufferBase + at} claims ${length} bytes but the record body has only ${end - p - 4} left.`, offset);
    }
    return { value: this.utf8.decode(bytes.subarray(p + 4, p + 4 + length)), next: p + 4 + length };
  }

  private requireBody(type: number, bodyLen: number, need: number, at: number): void {
    if (bodyLen < need) this.short(type, bodyLen, need, at);
  }

  private short(type: number, bodyLen: number, need: number, at: number): never {
    const offset = this.bufferBase + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} has a ${bodyLen}-byte body, shorter than the ${need} bytes its fields need.`, offset);
  }
}
