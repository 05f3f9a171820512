// Parsers for the contents of EventBlocks, MetadataBlocks and StackBlocks (format 4/5), the
// mirror of what event-block-builder.ts and stack-block-builder.ts write.

import { EVENT_BLOCK_HEADER_BYTES, BlockFlags, HeaderFlags } from './constants.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import { SpanReader } from './span-reader.js';

/** One event header; the object is reused from event to event within a block. */
export interface EventHeader {
  metadataId: number;
  sequenceNumber: number;
  captureThreadId: number;
  captureProcNumber: number;
  threadId: number;
  stackId: number;
  timestamp: number;
  payloadSize: number;
  /** The ActivityId's 16 bytes (all zero for none), overwritten in place by the next event's. */
  activityId: Uint8Array;
}

/** Calls `onEvent` for each event; `r.pos` is at the payload, which ends at `payloadEnd`. */
export function forEachEvent(contents: Uint8Array, offset: number, what: string, onEvent: (h: EventHeader, r: SpanReader, payloadEnd: number) => void): void {
  const r = new SpanReader(contents, offset, what);
  const headerSize = r.u16();
  if (headerSize < EVENT_BLOCK_HEADER_BYTES) {
    throw new NettraceFormatError(`Corrupt .nettrace file: the ${what} declares a header of ${headerSize} bytes, less than ${EVENT_BLOCK_HEADER_BYTES}.`, offset);
  }
  const flags = r.u16();
  r.skip(headerSize - 4);
  const compressed = (flags & BlockFlags.HeaderCompression) !== 0;
  // Compressed headers are deltas against the previous event; the first against all zeros.
  const h: EventHeader = { metadataId: 0, sequenceNumber: 0, captureThreadId: 0, captureProcNumber: 0, threadId: 0, stackId: 0, timestamp: 0, payloadSize: 0, activityId: new Uint8Array(16) };
  while (r.remaining > 0) {
    let next: number;
    if (compressed) {
      const f = r.u8();
      if (f & HeaderFlags.MetadataId) h.metadataId = r.varU32();
      if (f & HeaderFlags.CaptureThreadAndSequence) {
        h.sequenceNumber = (h.sequenceNumber + r.varU32() + 1) >>> 0;
        h.captureThreadId = r.varU64();
        h.captureProcNumber = r.varU32();
      } else if (h.metadataId !== 0) {
        h.sequenceNumber = (h.sequenceNumber + 1) >>> 0;
      }
      if (f & HeaderFlags.ThreadId) h.threadId = r.varU64();
      if (f & HeaderFlags.StackId) h.stackId = r.varU32();
      h.timestamp += r.varI64();
      if (f & HeaderFlags.ActivityId) {
        r.need(16);
        h.activityId.set(contents.subarray(r.pos, r.pos + 16));
        r.skip(16);
      }
      if (f & HeaderFlags.RelatedActivityId) r.skip(16);
      if (f & HeaderFlags.DataLength) h.payloadSize = r.varU32();
      next = r.pos + h.payloadSize;
    } else {
      const start = r.pos;
      const eventSize = r.i32();
      h.metadataId = r.u32() & 0x7fffffff;
      h.sequenceNumber = r.u32();
      h.threadId = r.u64();
      h.captureThreadId = r.u64();
      h.captureProcNumber = r.u32();
      h.stackId = r.u32();
      h.timestamp = r.i64();
      r.need(16);
      h.activityId.set(contents.subarray(r.pos, r.pos + 16));
      r.skip(32);
      h.payloadSize = r.i32();
      // EventSize covers the header, the payload and the padding to 4 bytes after it.
      next = start + 4 + eventSize;
      if (eventSize < 0 || r.pos + h.payloadSize > next) {
        throw new NettraceFormatError(`Corrupt .nettrace file: the event at byte ${offset + start} in the ${what} has inconsistent sizes.`, offset + start);
      }
    }
    if (h.payloadSize < 0 || next > r.end) {
      throw new NettraceFormatError(`Corrupt .nettrace file: an event payload at byte ${r.offset} in the ${what} runs past the block's end.`, r.offset);
    }
    const payloadEnd = r.pos + h.payloadSize;
    onEvent(h, r, payloadEnd);
    r.pos = next;
  }
}

export interface MetadataRecord {
  metadataId: number;
  provider: string;
  eventId: number;
  eventName: string;
  version: number;
  level: number;
}

/**
 * The header of a metadata record's payload; `r` is left at the V1 field list (read by
 * event-counters.ts for the events that need it; format-5 tags are not needed).
 */
export function readMetadataRecord(r: SpanReader): MetadataRecord {
  const metadataId = r.i32();
  const provider = r.utf16z();
  const eventId = r.i32();
  const eventName = r.utf16z();
  r.skip(8); // keywords
  const version = r.i32();
  const level = r.i32();
  return { metadataId, provider, eventId, eventName, version, level };
}

/** Calls `onStack` for each stack of a StackBlock with its id and its bytes' range. */
export function forEachStack(contents: Uint8Array, offset: number, onStack: (id: number, r: SpanReader, byteCount: number) => void): void {
  const r = new SpanReader(contents, offset, `StackBlock at byte ${offset}`);
  let id = r.u32();
  const count = r.u32();
  for (let i = 0; i < count; i++) {
    const size = r.u32();
    r.need(size);
    const end = r.pos + size;
    onStack(id, r, size);
    r.pos = end;
    id = (id + 1) >>> 0;
  }
}
