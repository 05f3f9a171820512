// The fixed-layout records of wire v1 and v2 (PROTOCOL.md, Records): definitions (HELLO, THREAD,
// FUNCTION, MODULE, FRAME, STRING, TASK), STATS, END, v1's SAMPLE and the records of the timeline
// kinds (SUSPENSION, ...: structs/wire/timeline/). Each body is read in place and handed to the
// sink whole; a body may be longer than its fields (a later revision appends fields), never shorter.

import type { WireSink } from './wire-sink.js';
import { FieldReader, u64 } from './field-reader.js';
import { OWN_COST_FIELDS, RecordType, type OwnCost } from './records.js';
import type { SampleState } from './sample-state.js';
import { timelineFieldBytes, timelineMinBodySize, type TimelineKind } from './timeline/timeline-kind.js';

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
const TASK_MIN = 3 * 4;
const SAMPLE_MIN = 8 + 4 + 1 + 8 + 8 + 2;
const STATS_MIN = 6 * 8;
const STATS_WITH_COST = STATS_MIN + 8 + OWN_COST_FIELDS.length * 8;

function ownCost(view: DataView, at: number): OwnCost {
  const cost = {} as OwnCost;
  OWN_COST_FIELDS.forEach((key, i) => { cost[key] = u64(view, at + i * 8); });
  return cost;
}
const END_MIN = 8 + 1;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class FixedRecordReader extends FieldReader {
  private readonly sink: WireSink;
  // THREAD_END forgets the thread's state in the packed records' coding.
  private readonly state: SampleState;
  private readonly frameScratch = new Uint32Array(MAX_FRAMES);
  // One exact-length view per frame count seen, made once, so onSample can hand out a
  // correctly sized Uint32Array without allocating per sample.
  private readonly frameViews: (Uint32Array | undefined)[] = [];

  constructor(sink: WireSink, state: SampleState) {
    super();
    this.sink = sink;
    this.state = state;
  }

  hello(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
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

  thread(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
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

  /** THREAD_END also ends the thread's sample state (PROTOCOL.md, SAMPLES). */
  threadEnd(view: DataView, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.ThreadEnd, bodyLen, THREAD_END_MIN, at);
    const threadId = view.getUint32(body, true);
    this.state.forgetThread(threadId);
    this.sink.onThreadEnd({ threadId, mono: u64(view, body + 4) });
  }

  function(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
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

  functionV2(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
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

  module(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Module, bodyLen, MODULE_MIN, at);
    let mvid = '';
    for (let i = 0; i < 16; i++) mvid += HEX[bytes[body + 5 + i]];
    const path = this.str(view, bytes, body + 21, body + bodyLen, RecordType.Module, at);
    this.sink.onModule({ moduleId: view.getUint32(body, true), kind: bytes[body + 4], mvid, path: path.value });
  }

  frame(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Frame, bodyLen, FRAME_MIN, at);
    this.sink.onFrame({ frameId: view.getUint32(body, true), functionId: view.getUint32(body + 4, true), offsetKind: bytes[body + 8], offset: view.getUint32(body + 9, true) });
  }

  string(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.String, bodyLen, STRING_MIN, at);
    const text = this.str(view, bytes, body + 4, body + bodyLen, RecordType.String, at);
    this.sink.onString({ stringId: view.getUint32(body, true), text: text.value });
  }

  task(view: DataView, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Task, bodyLen, TASK_MIN, at);
    this.sink.onTask({ taskId: view.getUint32(body, true), awaiterId: view.getUint32(body + 4, true), nameId: view.getUint32(body + 8, true) });
  }

  stats(view: DataView, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.Stats, bodyLen, STATS_MIN, at);
    this.sink.onStats({
      mono: u64(view, body),
      samples: u64(view, body + 8),
      droppedRingFull: u64(view, body + 16),
      droppedBufferFull: u64(view, body + 24),
      droppedWatchdog: u64(view, body + 32),
      droppedOther: u64(view, body + 40),
      // Appended in a later revision, and only once sampling stopped.
      ...(bodyLen >= STATS_MIN + 8 && u64(view, body + 48) !== 0 ? { signalLostMono: u64(view, body + 48) } : {}),
      // Appended later still: clrscope's own cost, behind a signalLostMono then always present.
      ...(bodyLen >= STATS_WITH_COST ? { cost: ownCost(view, body + 56) } : {}),
    });
  }

  /** A record of a timeline kind: its fields in the order and widths its descriptor gives. */
  timeline(kind: TimelineKind, view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(kind.recordType, bodyLen, timelineMinBodySize(kind), at);
    const record: Record<string, number> = {};
    let p = body;
    const end = body + bodyLen;
    for (const f of kind.fields) {
      // An optional field an older writer's body ends before (the checked size holds the others).
      if (p + timelineFieldBytes(f.type) > end) {
        record[f.key] = 0;
        continue;
      }
      switch (f.type) {
        case 'u64': record[f.key] = u64(view, p); p += 8; break;
        case 'u32': record[f.key] = view.getUint32(p, true); p += 4; break;
        case 'u16': record[f.key] = view.getUint16(p, true); p += 2; break;
        case 'u8': record[f.key] = bytes[p]; p += 1; break;
        case 'i8': record[f.key] = view.getInt8(p); p += 1; break;
      }
    }
    this.sink.onTimeline(kind.belongsTo?.(record) ?? kind, record);
  }

  end(view: DataView, bytes: Uint8Array, body: number, bodyLen: number, at: number): void {
    this.requireBody(RecordType.End, bodyLen, END_MIN, at);
    this.sink.onEnd({
      mono: u64(view, body),
      reason: bytes[body + 8],
      // Appended in a later revision, to an END of a connection the program took.
      ...(bodyLen >= END_MIN + 5 ? { descriptor: view.getUint32(body + 9, true), descriptorLoss: bytes[body + 13] } : {}),
    });
  }

  sample(view: DataView, body: number, bodyLen: number, at: number): void {
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
}
