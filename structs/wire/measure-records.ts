// The measuring records (PROTOCOL.md, "Measuring methods"): bodies only. The stream's decoder
// skips these types like any it does not know; a RecordTap beside it hands their bodies here.
// Encoded in the profiler by native-profiler/core/measure_wire.cpp; both sides are tested on
// fixtures/measure.hex.

import { MAX_STRING_BYTES } from './records.js';
import { WireFormatError } from './wire-format-error.js';

export const MeasureRecordType = {
  Method: 0x20,
  Figures: 0x21,
  Reply: 0x22,
  ControlReady: 0x23,
} as const;

export const MEASURE_RECORD_TYPES: readonly number[] = Object.values(MeasureRecordType);

/** MEASURE_METHOD states. */
export const MeasureState = { Pending: 1, Active: 2, Refused: 3, Reverted: 4, Unloaded: 5 } as const;
/** MEASURE_METHOD flags. */
export const MeasureFlags = { AsyncSynchronousPart: 1, Generic: 2 } as const;
/** MEASURE_REPLY status. */
export const ReplyStatus = { Ok: 0, Refused: 1, UnknownCommand: 2 } as const;

export interface MeasureMethodRecord {
  type: 'measureMethod';
  measureId: number;
  request: number;
  state: number;
  flags: number;
  name: string;
  module: string;
  detail: string;
}

export interface MeasureThreadFigures {
  osTid: number;
  calls: number;
  exceptions: number;
  totalNs: number;
}

/** Cumulative since the method's measurement began; u64 values as numbers (exact below 2^53). */
export interface MeasureFiguresRecord {
  type: 'measureFigures';
  mono: number;
  measureId: number;
  calls: number;
  exceptions: number;
  totalNs: number;
  maxNs: number;
  droppedCalls: number;
  /** (bucket, count), non-zero buckets in ascending order (structs/measure/histogram.ts). */
  buckets: [number, number][];
  threads: MeasureThreadFigures[];
}

export interface MeasureReplyRecord {
  type: 'measureReply';
  request: number;
  status: number;
  matched: number;
  message: string;
}

export interface ControlReadyRecord {
  type: 'controlReady';
  controlVersion: number;
  maxCommandBytes: number;
}

export type MeasureRecord = MeasureMethodRecord | MeasureFiguresRecord | MeasureReplyRecord | ControlReadyRecord;

const TWO_POW_32 = 4294967296;
const utf8 = new TextDecoder('utf-8');

class BodyReader {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly body: Uint8Array, private readonly name: string, private readonly offset: number) {
    this.view = new DataView(body.buffer, body.byteOffset, body.length);
  }

  private need(n: number): void {
    if (this.at + n > this.body.length) {
      throw new WireFormatError(`Corrupt clrscope stream: the ${this.name} record at byte ${this.offset} is shorter than its fields.`, this.offset);
    }
  }

  u8(): number {
    this.need(1);
    return this.body[this.at++];
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.at, true);
    this.at += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  u64(): number {
    this.need(8);
    const v = this.view.getUint32(this.at, true) + this.view.getUint32(this.at + 4, true) * TWO_POW_32;
    this.at += 8;
    return v;
  }

  str(): string {
    const n = this.u32();
    if (n > MAX_STRING_BYTES) {
      throw new WireFormatError(`Corrupt clrscope stream: the ${this.name} record at byte ${this.offset} holds a ${n}-byte string, more than the ${MAX_STRING_BYTES} allowed.`, this.offset);
    }
    this.need(n);
    const s = utf8.decode(this.body.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }
}

/** Decodes one measuring record's body; `offset` (the record's stream offset) goes into error sentences. */
export function decodeMeasureRecord(type: number, body: Uint8Array, offset = 0): MeasureRecord {
  switch (type) {
    case MeasureRecordType.Method: {
      const r = new BodyReader(body, 'MEASURE_METHOD', offset);
      return { type: 'measureMethod', measureId: r.u32(), request: r.u32(), state: r.u8(), flags: r.u8(), name: r.str(), module: r.str(), detail: r.str() };
    }
    case MeasureRecordType.Figures: {
      const r = new BodyReader(body, 'MEASURE_FIGURES', offset);
      const head = { mono: r.u64(), measureId: r.u32(), calls: r.u64(), exceptions: r.u64(), totalNs: r.u64(), maxNs: r.u64(), droppedCalls: r.u64() };
      const buckets: [number, number][] = [];
      for (let n = r.u16(); n > 0; n--) buckets.push([r.u16(), r.u64()]);
      const threads: MeasureThreadFigures[] = [];
      for (let n = r.u16(); n > 0; n--) threads.push({ osTid: r.u32(), calls: r.u64(), exceptions: r.u64(), totalNs: r.u64() });
      return { type: 'measureFigures', ...head, buckets, threads };
    }
    case MeasureRecordType.Reply: {
      const r = new BodyReader(body, 'MEASURE_REPLY', offset);
      return { type: 'measureReply', request: r.u32(), status: r.u8(), matched: r.u32(), message: r.str() };
    }
    case MeasureRecordType.ControlReady: {
      const r = new BodyReader(body, 'CONTROL_READY', offset);
      return { type: 'controlReady', controlVersion: r.u16(), maxCommandBytes: r.u32() };
    }
    default:
      throw new RangeError(`0x${type.toString(16)} is not a measuring record type.`);
  }
}
