// Builds the body of an EventBlock or MetadataBlock the way the runtime does (ep-block.c):
// header-compressed event blobs, each header field written only when it differs from the
// previous event's, the timestamp as a delta, and the block's min/max timestamps in its header.

import { ByteWriter } from './byte-writer.js';
import { BlockFlags, EVENT_BLOCK_HEADER_BYTES, HeaderFlags, MAX_BLOCK_BYTES } from './constants.js';

export interface EventHeaderInput {
  /** 0 for a metadata record. */
  metadataId: number;
  sequenceNumber: number;
  /** OS thread the event describes. */
  threadId: number;
  /** OS thread that captured it; sequence numbers count per capture thread. */
  captureThreadId: number;
  /** 0xFFFFFFFF when unknown, as the runtime writes on Linux. */
  captureProcNumber: number;
  stackId: number;
  /** QPC ticks. */
  timestamp: number;
  /** Every later event in the file has a timestamp at least this one's. */
  sorted: boolean;
  /** The event's ActivityId (16 bytes, .NET's Guid layout); undefined for the empty Guid. */
  activityId?: Uint8Array;
}

const EMPTY_GUID: Uint8Array = new Uint8Array(16);

function sameGuid(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class EventBlockBuilder {
  private readonly body: ByteWriter;
  private readonly maxBody: number;
  private lastMetadataId = 0;
  private lastSequence = 0;
  private lastThreadId = 0;
  private lastCaptureThreadId = 0;
  private lastProcNumber = 0;
  private lastStackId = 0;
  private lastTimestamp = 0;
  private lastDataLength = 0;
  // Compressed headers carry the ActivityId over from the previous event, as the runtime's do
  // (ep-block.c), so an event after a request's must write the empty Guid back.
  private lastActivityId: Uint8Array = EMPTY_GUID;
  private minTimestamp = Number.POSITIVE_INFINITY;
  private maxTimestamp = Number.NEGATIVE_INFINITY;
  private events = 0;

  constructor(maxBody = MAX_BLOCK_BYTES) {
    this.maxBody = maxBody;
    this.body = new ByteWriter(maxBody + 256);
  }

  get count(): number {
    return this.events;
  }

  get byteLength(): number {
    return this.body.length;
  }

  /** Appends one event; returns false, leaving the block unchanged, when it does not fit. */
  tryAdd(h: EventHeaderInput, payload: Uint8Array): boolean {
    const w = this.body;
    const start = w.length;
    w.u8(0);
    let flags = 0;
    if (h.metadataId !== this.lastMetadataId) {
      w.varU32(h.metadataId);
      flags |= HeaderFlags.MetadataId;
    }
    if (h.sorted) flags |= HeaderFlags.Sorted;
    const expected = (this.lastSequence + (h.metadataId !== 0 ? 1 : 0)) >>> 0;
    if (expected !== h.sequenceNumber >>> 0 || h.captureThreadId !== this.lastCaptureThreadId || h.captureProcNumber !== this.lastProcNumber) {
      w.varU32((h.sequenceNumber - this.lastSequence - 1) >>> 0);
      w.varU64(h.captureThreadId);
      w.varU32(h.captureProcNumber);
      flags |= HeaderFlags.CaptureThreadAndSequence;
    }
    if (h.threadId !== this.lastThreadId) {
      w.varU64(h.threadId);
      flags |= HeaderFlags.ThreadId;
    }
    if (h.stackId !== this.lastStackId) {
      w.varU32(h.stackId);
      flags |= HeaderFlags.StackId;
    }
    w.varU64(h.timestamp - this.lastTimestamp);
    const activityId = h.activityId ?? EMPTY_GUID;
    if (!sameGuid(activityId, this.lastActivityId)) {
      w.append(activityId);
      flags |= HeaderFlags.ActivityId;
    }
    if (payload.length !== this.lastDataLength) {
      w.varU32(payload.length);
      flags |= HeaderFlags.DataLength;
    }
    w.append(payload);
    // The runtime refuses an event that would reach the end of its buffer (>=), so do the same.
    if (w.length >= this.maxBody && this.events > 0) {
      w.truncate(start);
      return false;
    }
    w.setU8(start, flags);
    this.lastMetadataId = h.metadataId;
    this.lastSequence = h.sequenceNumber >>> 0;
    this.lastThreadId = h.threadId;
    this.lastCaptureThreadId = h.captureThreadId;
    this.lastProcNumber = h.captureProcNumber;
    this.lastStackId = h.stackId;
    this.lastTimestamp = h.timestamp;
    this.lastDataLength = payload.length;
    this.lastActivityId = activityId;
    if (h.timestamp < this.minTimestamp) this.minTimestamp = h.timestamp;
    if (h.timestamp > this.maxTimestamp) this.maxTimestamp = h.timestamp;
    this.events++;
    return true;
  }

  /** The block contents: the 20-byte header, then the events. */
  writeContent(out: ByteWriter): void {
    out.u16(EVENT_BLOCK_HEADER_BYTES);
    out.u16(BlockFlags.HeaderCompression);
    out.u64(this.events > 0 ? this.minTimestamp : 0);
    out.u64(this.events > 0 ? this.maxTimestamp : 0);
    out.append(this.body.bytes());
  }

  get contentLength(): number {
    return EVENT_BLOCK_HEADER_BYTES + this.body.length;
  }

  /** Empties the block; the next event is compressed against an all-zero header, as readers assume. */
  reset(): void {
    this.body.clear();
    this.lastMetadataId = 0;
    this.lastSequence = 0;
    this.lastThreadId = 0;
    this.lastCaptureThreadId = 0;
    this.lastProcNumber = 0;
    this.lastStackId = 0;
    this.lastTimestamp = 0;
    this.lastDataLength = 0;
    this.lastActivityId = EMPTY_GUID;
    this.minTimestamp = Number.POSITIVE_INFINITY;
    this.maxTimestamp = Number.NEGATIVE_INFINITY;
    this.events = 0;
  }
}
