// What a profiler reported about the methods it measures exactly, as one table: a record per
// method (state, name) joined with its latest figures (cumulative, so the latest wins).

import { MeasureFlags, MeasureRecordType, MEASURE_RECORD_TYPES, MeasureState, decodeMeasureRecord, type ControlReadyRecord, type MeasureRecord, type MeasureReplyRecord, type MeasureThreadFigures } from '../wire/measure-records.js';
import { RecordTap } from '../formats/clrscope-file/record-tap.js';
import { quantile } from './histogram.js';

export type MeasureStateName = 'pending' | 'active' | 'refused' | 'reverted' | 'unloaded';

const STATE_NAMES: Record<number, MeasureStateName> = {
  [MeasureState.Pending]: 'pending',
  [MeasureState.Active]: 'active',
  [MeasureState.Refused]: 'refused',
  [MeasureState.Reverted]: 'reverted',
  [MeasureState.Unloaded]: 'unloaded',
};

export interface MeasuredMethod {
  measureId: number;
  /** The control request that asked for it (0: patterns given at launch). */
  request: number;
  name: string;
  module: string;
  state: MeasureStateName;
  /** Why it was refused, or a note (an async method's measured part). */
  detail: string;
  /** An async method: its figures cover the synchronous part only (up to the first await that does not complete at once). */
  asyncSynchronousPart: boolean;
  /** All instantiations of a generic method count together. */
  generic: boolean;
  calls: number;
  exceptions: number;
  totalNs: number;
  maxNs: number;
  meanNs: number;
  p50Ns: number;
  p90Ns: number;
  p99Ns: number;
  /** Calls the probes could not record, process-wide (0 unless memory ran out). */
  droppedCalls: number;
  buckets: [number, number][];
  threads: MeasureThreadFigures[];
  /** When the latest figures were taken (the target's monotonic ns), 0 before any. */
  mono: number;
}

export class Measurements {
  controlReady: ControlReadyRecord | undefined;
  readonly replies: MeasureReplyRecord[] = [];
  /** Grows with every record applied, so a view can tell whether to redraw. */
  version = 0;
  private readonly byId = new Map<number, MeasuredMethod>();

  apply(record: MeasureRecord): void {
    this.version++;
    switch (record.type) {
      case 'controlReady':
        this.controlReady = record;
        return;
      case 'measureReply':
        this.replies.push(record);
        return;
      case 'measureMethod': {
        const m = this.byId.get(record.measureId) ?? emptyMethod(record.measureId);
        m.request = record.request;
        m.name = record.name;
        m.module = record.module;
        m.state = STATE_NAMES[record.state] ?? 'pending';
        m.detail = record.detail;
        m.asyncSynchronousPart = (record.flags & MeasureFlags.AsyncSynchronousPart) !== 0;
        m.generic = (record.flags & MeasureFlags.Generic) !== 0;
        this.byId.set(record.measureId, m);
        return;
      }
      case 'measureFigures': {
        const m = this.byId.get(record.measureId) ?? emptyMethod(record.measureId);
        m.calls = record.calls;
        m.exceptions = record.exceptions;
        m.totalNs = record.totalNs;
        m.maxNs = record.maxNs;
        m.meanNs = record.calls === 0 ? 0 : record.totalNs / record.calls;
        m.p50Ns = quantile(record.buckets, 0.5, record.maxNs);
        m.p90Ns = quantile(record.buckets, 0.9, record.maxNs);
        m.p99Ns = quantile(record.buckets, 0.99, record.maxNs);
        m.droppedCalls = record.droppedCalls;
        m.buckets = record.buckets;
        m.threads = record.threads;
        m.mono = record.mono;
        this.byId.set(record.measureId, m);
      }
    }
  }

  /** Every method, by measure id. */
  methods(): MeasuredMethod[] {
    return [...this.byId.values()].sort((a, b) => a.measureId - b.measureId);
  }

  method(measureId: number): MeasuredMethod | undefined {
    return this.byId.get(measureId);
  }

  reply(request: number): MeasureReplyRecord | undefined {
    return this.replies.find((r) => r.request === request);
  }
}

function emptyMethod(measureId: number): MeasuredMethod {
  return {
    measureId, request: 0, name: '', module: '', state: 'pending', detail: '', asyncSynchronousPart: false, generic: false,
    calls: 0, exceptions: 0, totalNs: 0, maxNs: 0, meanNs: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, droppedCalls: 0, buckets: [], threads: [], mono: 0,
  };
}

/** Reads the measuring records out of a wire stream's bytes, chunk by chunk, into a Measurements. */
export class MeasureReader {
  private readonly tap: RecordTap;

  constructor(readonly measurements: Measurements = new Measurements(), onRecord?: (record: MeasureRecord) => void) {
    this.tap = new RecordTap(MEASURE_RECORD_TYPES, (body, offset, type) => {
      const record = decodeMeasureRecord(type, body, offset);
      this.measurements.apply(record);
      onRecord?.(record);
    });
  }

  /** Feed it the stream's chunks in order, from its first byte. */
  push(chunk: Uint8Array): void {
    this.tap.push(chunk);
  }
}

export { MeasureRecordType };
