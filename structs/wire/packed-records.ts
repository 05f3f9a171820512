// The packed records of wire v2 (PROTOCOL.md): SAMPLES and EVENTS, many entries a record, each
// delta/varint coded against state carried from record to record (SampleState); STACK, whose
// frames share their root end with the previous STACK; and the side records that annotate the
// SAMPLES or EVENTS record before them (TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES, EVENT_MESSAGES).
// SAMPLES is the hot loop of v2 ingest.

import type { CodingState, WireSink } from './wire-sink.js';
import { FieldReader } from './field-reader.js';
import { EventFlags, MAX_STACK_ID, RecordType, STACK_FLAGS, SampleHead } from './records.js';
import { SampleState, TWO_POW_32 } from './sample-state.js';
import { WireFormatError } from './wire-format-error.js';

const MAX_FRAMES = 0xffff;
const STACK_MIN = 4;

/** What tells one side record (PackedRecordReader.sideRecord) from another, for its checks and sentences. */
interface SideRecordSpec {
  type: number;
  name: string;
  /** The records it may follow (the record it annotates, or that record's other side records), and those in a sentence. */
  follows: readonly number[];
  followsText: string;
  /** What its indexes name (an entry of the record in `of`), and the words around a bad value. */
  entry: string;
  of: string;
  valueBefore: string;
  valueAfter: string;
}

const TASK_SAMPLES: SideRecordSpec = { type: RecordType.TaskSamples, name: 'TASK_SAMPLES', follows: [RecordType.Samples], followsText: 'a SAMPLES record', entry: 'sample', of: 'a SAMPLES record', valueBefore: 'names task', valueAfter: '' };
const OPERATION_COUNTS: SideRecordSpec = { type: RecordType.OperationCounts, name: 'OPERATION_COUNTS', follows: [RecordType.TaskSamples], followsText: 'a TASK_SAMPLES record', entry: 'sample', of: 'a SAMPLES record', valueBefore: 'counts', valueAfter: ' operations' };
// Its seqs name REQUEST records sent later (when each request ends), if ever: no definition is checked.
const REQUEST_SAMPLES: SideRecordSpec = {
  type: RecordType.RequestSamples, name: 'REQUEST_SAMPLES', follows: [RecordType.Samples, RecordType.TaskSamples, RecordType.OperationCounts],
  followsText: 'a SAMPLES record (or its TASK_SAMPLES or OPERATION_COUNTS)', entry: 'sample', of: 'a SAMPLES record', valueBefore: 'names request', valueAfter: '',
};
const EVENT_MESSAGES: SideRecordSpec = { type: RecordType.EventMessages, name: 'EVENT_MESSAGES', follows: [RecordType.Events], followsText: 'an EVENTS record', entry: 'event', of: 'an EVENTS record', valueBefore: 'names string', valueAfter: '' };

/** The signed value a zigzag-folded varint stands for (exact below 2^53). */
function unzigzag(z: number): number {
  if (z < 0x80000000) return (z >>> 1) ^ -(z & 1);
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

export class PackedRecordReader extends FieldReader {
  /** The coding state shared with THREAD_END (fixed-records.ts), which forgets a thread's part. */
  readonly state = new SampleState();
  private readonly sink: WireSink;
  // [mono, cpuNs, wallNs] of the sample being handed to the sink (see WireSink.onStackSample).
  private readonly sampleValues = new Float64Array(3);
  // The previous STACK's frames, for the root-side frames the next one shares.
  private lastStack = new Uint32Array(256);
  private lastStackLength = 0;
  // How many samples the last SAMPLES record held: a TASK_SAMPLES record indexes them.
  private lastSamplesCount = 0;
  private samplesSeen = 0;
  // Likewise for EVENT_MESSAGES and the EVENTS record before it.
  private lastEventsCount = 0;
  private eventsSeen = 0;

  constructor(sink: WireSink) {
    super();
    this.sink = sink;
  }

  /** The v2 coding state after the records read so far (WireDecoder.codingState). */
  codingState(): CodingState {
    return { state: this.state.clone(), lastStack: Array.from(this.lastStack.subarray(0, this.lastStackLength)) };
  }

  samplesRecord(bytes: Uint8Array, p: number, end: number, at: number): void {
    const before = this.samplesSeen;
    this.samples(bytes, p, end, at);
    this.lastSamplesCount = this.samplesSeen - before;
  }

  eventsRecord(bytes: Uint8Array, p: number, end: number, at: number): void {
    const before = this.eventsSeen;
    this.events(bytes, p, end, at);
    this.lastEventsCount = this.eventsSeen - before;
  }

  /** TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES and EVENT_MESSAGES; `previousType` is the record right before. */
  taskSamples(bytes: Uint8Array, p: number, end: number, at: number, previousType: number): void {
    this.sideRecord(TASK_SAMPLES, bytes, p, end, at, previousType, this.lastSamplesCount);
  }

  operationCounts(bytes: Uint8Array, p: number, end: number, at: number, previousType: number): void {
    this.sideRecord(OPERATION_COUNTS, bytes, p, end, at, previousType, this.lastSamplesCount);
  }

  requestSamples(bytes: Uint8Array, p: number, end: number, at: number, previousType: number): void {
    this.sideRecord(REQUEST_SAMPLES, bytes, p, end, at, previousType, this.lastSamplesCount);
  }

  /**
   * REQUEST_BACKFILL: `u32 seq`, then varints, each a sample that many back in the stream (1: the
   * latest), strictly decreasing: samples sent before their request was known to own them.
   */
  requestBackfill(bytes: Uint8Array, p: number, end: number, at: number): void {
    const offset = this.base + at;
    if (end - p < 4) throw new WireFormatError(`Corrupt clrscope stream: the REQUEST_BACKFILL record at byte ${offset} is ${end - p} bytes long, shorter than its 4-byte seq.`, offset);
    const seq = (bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16)) + bytes[p + 3] * 0x1000000;
    if (seq === 0) throw new WireFormatError(`Corrupt clrscope stream: the REQUEST_BACKFILL record at byte ${offset} names request 0.`, offset);
    p += 4;
    let previous = Number.POSITIVE_INFINITY;
    while (p < end) {
      let back = this.varint(bytes, p, end, RecordType.RequestBackfill, at);
      p = this.next;
      if (back < 0) back = this.wide[0];
      if (back === 0 || back >= previous || back > this.samplesSeen) {
        throw new WireFormatError(`Corrupt clrscope stream: the REQUEST_BACKFILL record at byte ${offset} names a sample ${back} back of the ${this.samplesSeen} sent${back >= previous ? ', out of order' : ''}.`, offset);
      }
      previous = back;
      this.sink.onRequestBackfill(back, seq);
    }
  }

  eventMessages(bytes: Uint8Array, p: number, end: number, at: number, previousType: number): void {
    this.sideRecord(EVENT_MESSAGES, bytes, p, end, at, previousType, this.lastEventsCount);
  }

  /** STACK_RESET: every stack is forgotten, and the next STACK shares nothing. */
  stackReset(): void {
    this.lastStackLength = 0;
    this.state.forgetStacks();
    this.sink.onStackReset();
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
   * the record it annotates (`count` entries): TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES, EVENT_MESSAGES.
   */
  private sideRecord(spec: SideRecordSpec, bytes: Uint8Array, p: number, end: number, at: number, previousType: number, count: number): void {
    const type = spec.type;
    const offset = this.base + at;
    if (!spec.follows.includes(previousType)) {
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
      else if (type === RecordType.RequestSamples) this.sink.onRequestSample(back, value);
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

  stack(bytes: Uint8Array, p: number, end: number, at: number): void {
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

  /** Moves whole multiples of 2^32 from the low half of a time (times[i + 1]) to its high half. */
  private carryTime(times: Float64Array, i: number, at: number): void {
    const carry = Math.floor(times[i + 1] / TWO_POW_32);
    times[i] += carry;
    times[i + 1] -= carry * TWO_POW_32;
    if (times[i] < 0) throw new WireFormatError(`Corrupt clrscope stream: a ${i === 0 ? 'sample in the SAMPLES' : 'event in the EVENTS'} record at byte ${this.base + at} has a time before 0.`, this.base + at);
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
}
