// The packed records of wire v2 as a WireEncoder writes them: consecutive samples (or events)
// share one SAMPLES (EVENTS) record, each coded against the one before (SampleState), and the
// side records that annotate them (TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES, EVENT_MESSAGES) follow it
// when it closes; STACK definitions share their root end with the previous one. Any other
// record closes the open SAMPLES or EVENTS record first (begin()).

import type { EventInput } from './encoder-inputs.js';
import { EventFlags, MAX_STACK_ID, RecordType, STACK_FLAGS, SampleFlags, SampleHead, WIRE_VERSION } from './records.js';
import { SampleState, TWO_POW_32 } from './sample-state.js';
import { WireBytes, halves, varint, zigzag } from './wire-bytes.js';

const BATCH_BYTES = 16 * 1024;

export class PackedRecordWriter extends WireBytes {
  protected versionValue = WIRE_VERSION;
  // The SAMPLES/EVENTS record being filled (type 0: none): its body, kept aside.
  private batchType = 0;
  private batch = new Uint8Array(1024);
  private batchLen = 0;
  // TASK_SAMPLES of the open SAMPLES record: (index in it, task) pairs, and its sample count.
  private taskMarks: number[] = [];
  // OPERATION_COUNTS of the open SAMPLES record: (index in it, operations) pairs.
  private operationCounts: number[] = [];
  // REQUEST_SAMPLES of the open SAMPLES record: (index in it, request seq) pairs.
  private requestMarks: number[] = [];
  // EVENT_MESSAGES of the open EVENTS record: (index in it, message) pairs.
  private eventMessages: number[] = [];
  private batchSamples = 0;
  protected state = new SampleState();
  protected lastStack: number[] = [];
  // The stacks sample() defined on its own in v2 (WireEncoder.sample).
  protected readonly autoStacks = new Map<string, number>();
  protected nextStackId = 1;

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
   * none); `operations`: with a task, the suspended operations it stands for (OPERATION_COUNTS);
   * `requestSeq`: the seq of the REQUEST it was taken in (REQUEST_SAMPLES; 0: none).
   */
  stackSample(mono: number, threadId: number, flags: number, cpuNs: number, wallNs: number, stackId: number, taskId = 0, operations = 0, requestSeq = 0): this {
    this.openBatch(RecordType.Samples, 48);
    if (taskId !== 0) {
      this.taskMarks.push(this.batchSamples, taskId);
      if (operations !== 0) this.operationCounts.push(this.batchSamples, operations);
    }
    if (requestSeq !== 0) this.requestMarks.push(this.batchSamples, requestSeq);
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

  /** Makes `type` the record being filled, with room for `need` more bytes. */
  protected openBatch(type: number, need: number): void {
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

  protected closeBatch(): void {
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
    // Behind those, as the profiler sends it.
    if (this.batchType === RecordType.Samples && this.requestMarks.length > 0) this.sideRecord(RecordType.RequestSamples, this.requestMarks.splice(0));
    if (this.batchType === RecordType.Events && this.eventMessages.length > 0) this.sideRecord(RecordType.EventMessages, this.eventMessages.splice(0));
    this.batchLen = 0;
    this.batchType = 0;
    this.batchSamples = 0;
  }

  /**
   * REQUEST_BACKFILL: the samples `backs` back in the stream (1: the latest written, strictly
   * decreasing) were taken in request `seq`. Closes the SAMPLES record being filled first.
   */
  requestBackfill(seq: number, backs: readonly number[]): this {
    const at = this.begin(RecordType.RequestBackfill, 4 + 10 * backs.length);
    this.view.setUint32(at, seq, true);
    let p = at + 4;
    for (const b of backs) p = this.varint(p, b);
    this.view.setUint32(at - 5, p - at + 1, true);
    this.len = p;
    return this;
  }

  /** A record of varints (TASK_SAMPLES, OPERATION_COUNTS, REQUEST_SAMPLES, EVENT_MESSAGES) right behind the record whose entries its indexes count. */
  private sideRecord(type: number, values: readonly number[]): void {
    this.reserve(5 + 10 * values.length);
    const start = this.len;
    this.buf[start + 4] = type;
    let p = start + 5;
    for (const v of values) p = this.varint(p, v);
    this.view.setUint32(start, p - start - 4, true);
    this.len = p;
  }

  /** Writes the length and type (after the SAMPLES record being filled), reserves the body and returns where the body starts. */
  protected begin(type: number, bodyLength: number): number {
    this.closeBatch();
    return this.beginDefinition(type, bodyLength);
  }
}
