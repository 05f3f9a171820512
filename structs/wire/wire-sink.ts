// What a wire decoder hands its records to (WireDecoder), and the coding state a reader holds
// after some records of a v2 stream.

import type {
  EndRecord, FrameRecord, FunctionRecord, HelloRecord, ModuleRecord, StatsRecord,
  StringRecord, TaskRecord, ThreadEndRecord, ThreadRecord,
} from './records.js';
import type { TimelineKind, TimelineRecord } from './timeline/timeline-kind.js';
import type { SampleState } from './sample-state.js';

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
   * v2: from a REQUEST_SAMPLES record, the sample `back` samples ago (as in onTaskSample) was taken
   * in the request numbered `seq` (REQUEST's seq). That REQUEST comes later, when the request
   * ends, or never (a request the writer did not keep), so `seq` names no record seen so far.
   */
  onRequestSample(back: number, seq: number): void;
  /**
   * v2: from a REQUEST_BACKFILL record, the sample `back` samples ago in the whole stream (1: the
   * latest sample handed to onStackSample, whatever record it came in) was taken in the request
   * numbered `seq`, found only when it ended. In the order of their samples; `seq` names no record
   * seen so far, as in onRequestSample.
   */
  onRequestBackfill(back: number, seq: number): void;
  /**
   * v2: from an EVENT_MESSAGES record, the event `back` events ago (1: the latest event handed to
   * onEvent) has the message STRING `stringId` (an exception's message). In the order of their events.
   */
  onEventMessage(back: number, stringId: number): void;
  onStats(record: StatsRecord): void;
  /**
   * A record of a timeline kind (structs/wire/timeline/timeline-kinds.ts: SUSPENSION, ...), its
   * fields read as the kind describes them, in a record made for this call.
   */
  onTimeline(kind: TimelineKind, record: TimelineRecord): void;
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
