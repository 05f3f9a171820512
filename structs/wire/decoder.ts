// Streaming reader for wire v1 and v2 (PROTOCOL.md). Chunks arrive as the socket delivers them,
// so any boundary is possible; records are parsed in place from the chunk and only a record that
// straddles two chunks is copied (into `carry`) to be parsed whole. The framing is the same in
// both versions; v2's SAMPLES and EVENTS records pack many samples, delta/varint coded against
// state this decoder carries from record to record (SampleState).
//
// The record families are read by their own readers: fixed-records.ts (definitions, STATS, END,
// v1's SAMPLE, the timeline kinds' records found in timeline/timeline-kinds.ts) and packed-records.ts (v2's SAMPLES, EVENTS, STACK and the side
// records); this file frames the stream and hands each record to the reader of its type.

import { FixedRecordReader } from './fixed-records.js';
import { PackedRecordReader } from './packed-records.js';
import { MAX_RECORD_LENGTH, PREAMBLE_SIZE, RecordType, WIRE_MAGIC, WIRE_VERSION, WIRE_VERSION_1 } from './records.js';
import { timelineKindOf } from './timeline/timeline-kinds.js';
import { WireFormatError } from './wire-format-error.js';
import type { CodingState, WireSink } from './wire-sink.js';

export type { CodingState, WireSink } from './wire-sink.js';
export type { TimelineKind, TimelineRecord } from './timeline/timeline-kind.js';

export interface WireEndState {
  /** True when the stream stopped inside the preamble or inside a record. */
  midRecord: boolean;
  /** Stream offset where the unfinished preamble or record began; the total byte count otherwise. */
  offset: number;
  /** Bytes received in total. */
  totalBytes: number;
}

const MAGIC_BYTES = Array.from(WIRE_MAGIC, (c) => c.charCodeAt(0));

export class WireDecoder {
  private readonly sink: WireSink;
  private readonly packed: PackedRecordReader;
  private readonly fixed: FixedRecordReader;
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
  // The type of the record before this one: a side record must follow the record it annotates.
  private previousType = 0;

  constructor(sink: WireSink) {
    this.sink = sink;
    this.packed = new PackedRecordReader(sink);
    this.fixed = new FixedRecordReader(sink, this.packed.state);
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
    return this.packed.codingState();
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
      const packed = this.packed;
      packed.base = this.bufferBase;
      switch (type) {
        case RecordType.Samples: packed.samplesRecord(bytes, body, body + bodyLen, at); return;
        case RecordType.TaskSamples: packed.taskSamples(bytes, body, body + bodyLen, at, previousType); return;
        case RecordType.OperationCounts: packed.operationCounts(bytes, body, body + bodyLen, at, previousType); return;
        case RecordType.RequestSamples: packed.requestSamples(bytes, body, body + bodyLen, at, previousType); return;
        case RecordType.RequestBackfill: packed.requestBackfill(bytes, body, body + bodyLen, at); return;
        case RecordType.Events: packed.eventsRecord(bytes, body, body + bodyLen, at); return;
        case RecordType.EventMessages: packed.eventMessages(bytes, body, body + bodyLen, at, previousType); return;
        case RecordType.Stack: packed.stack(bytes, body, body + bodyLen, at); return;
        case RecordType.StackReset: packed.stackReset(); return;
        default: if (this.recordV2(view, bytes, type, body, bodyLen, at)) return;
      }
    } else if (type === RecordType.Sample) {
      this.fixed.base = this.bufferBase;
      this.fixed.sample(view, body, bodyLen, at);
      return;
    }
    const fixed = this.fixed;
    fixed.base = this.bufferBase;
    switch (type) {
      case RecordType.Hello: fixed.hello(view, bytes, body, bodyLen, at); break;
      case RecordType.Thread: fixed.thread(view, bytes, body, bodyLen, at); break;
      case RecordType.ThreadEnd: fixed.threadEnd(view, body, bodyLen, at); break;
      case RecordType.Function: fixed.function(view, bytes, body, bodyLen, at); break;
      case RecordType.Stats: fixed.stats(view, body, bodyLen, at); break;
      case RecordType.End: fixed.end(view, bytes, body, bodyLen, at); break;
      default: {
        const kind = timelineKindOf(type);
        if (kind !== undefined) fixed.timeline(kind, view, bytes, body, bodyLen, at);
        else this.sink.onUnknown(type, length);
      }
    }
  }

  /** The fixed-layout records only v2 has (and v2's FUNCTION); false for the rest. */
  private recordV2(view: DataView, bytes: Uint8Array, type: number, body: number, bodyLen: number, at: number): boolean {
    const fixed = this.fixed;
    fixed.base = this.bufferBase;
    switch (type) {
      case RecordType.Task: fixed.task(view, body, bodyLen, at); return true;
      case RecordType.Function: fixed.functionV2(view, bytes, body, bodyLen, at); return true;
      case RecordType.Module: fixed.module(view, bytes, body, bodyLen, at); return true;
      case RecordType.Frame: fixed.frame(view, bytes, body, bodyLen, at); return true;
      case RecordType.String: fixed.string(view, bytes, body, bodyLen, at); return true;
      case RecordType.Sample:
        throw new WireFormatError(`Corrupt clrscope stream: the record at byte ${this.bufferBase + at} is a version 1 SAMPLE in a version 2 stream.`, this.bufferBase + at);
      default:
        return false;
    }
  }
}
