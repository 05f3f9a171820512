// Writes the stream of a .nettrace file the way the runtime's EventPipe file writer does
// (ep-file.c): a metadata record the first time an event type is used, stacks interned per
// sequence-point region with ids from 1, events in 100 KB blocks with compressed headers, and
// before any event block is written the metadata and stack blocks it refers to.
//
// Every event here is written in timestamp order and marked sorted, and all of them carry the
// same capture thread (0, standing for clrscope's profiler, whose own thread is not in the
// recording) with sequence numbers 1, 2, 3…, so TraceEvent dispatches each event as it reads it
// and never reports dropped events.

import type { ByteWriter } from './byte-writer.js';
import { BlockName } from './constants.js';
import { EventBlockBuilder, type EventHeaderInput } from './event-block-builder.js';
import { encodeMetadataPayload, type EventDefinition } from './event-definitions.js';
import { ChunkedOutput, writeBlock, writeEndOfStream, writeStreamHeader, writeTraceObject, type TraceObjectFields } from './object-writer.js';
import { StackBlockBuilder } from './stack-block-builder.js';

/** The capture thread of every event (see above). */
export const CAPTURE_THREAD_ID = 0;
/** "Processor unknown", as the runtime writes on Linux. */
export const UNKNOWN_PROCESSOR = 0xffffffff;
/** Event blocks between sequence points: about 10 MB, the runtime's default allocation budget. */
export const DEFAULT_BLOCKS_PER_SEQUENCE_POINT = 100;

export interface NettraceFileWriterOptions {
  blocksPerSequencePoint?: number;
  chunkBytes?: number;
  /** Block body limit; tests use small blocks to exercise flushing. */
  maxBlockBytes?: number;
}

export class NettraceFileWriter {
  readonly out: ChunkedOutput;
  private readonly events: EventBlockBuilder;
  private readonly metadata: EventBlockBuilder;
  private readonly stacks: StackBlockBuilder;
  private readonly metadataIds = new Map<EventDefinition, number>();
  private readonly blocksPerSequencePoint: number;
  private stackIdByKey = new Map<number, number>();
  private nextStackId = 1;
  private sequence = 0;
  private lastTimestamp = 0;
  private blocksSinceSequencePoint = 0;
  // One header object reused for every event: millions of events, no garbage.
  private readonly header: EventHeaderInput = {
    metadataId: 0, sequenceNumber: 0, threadId: 0, captureThreadId: CAPTURE_THREAD_ID, captureProcNumber: UNKNOWN_PROCESSOR, stackId: 0, timestamp: 0, sorted: true,
  };

  constructor(trace: TraceObjectFields, options: NettraceFileWriterOptions = {}) {
    this.out = new ChunkedOutput(options.chunkBytes);
    this.events = new EventBlockBuilder(options.maxBlockBytes);
    this.metadata = new EventBlockBuilder(options.maxBlockBytes);
    this.stacks = new StackBlockBuilder(options.maxBlockBytes);
    this.blocksPerSequencePoint = options.blocksPerSequencePoint ?? DEFAULT_BLOCKS_PER_SEQUENCE_POINT;
    writeStreamHeader(this.out);
    writeTraceObject(this.out, trace);
  }

  /**
   * The stack id for the caller's stack `key` in the current sequence-point region, writing the
   * stack (its instruction pointers, leaf first) the first time the region uses it.
   */
  stackId(key: number, addresses: () => ArrayLike<number>): number {
    let id = this.stackIdByKey.get(key);
    if (id !== undefined) return id;
    const ips = addresses();
    if (!this.stacks.fits(ips.length)) this.flushBlocks();
    id = this.nextStackId++;
    this.stacks.add(id, ips);
    this.stackIdByKey.set(key, id);
    return id;
  }

  /**
   * Appends one event; `timestamp` must not be below the previous event's. `activityId` (16
   * bytes) is the ActivityId an EventSource's start/stop pair shares; none for the empty Guid.
   */
  writeEvent(def: EventDefinition, threadId: number, stackId: number, timestamp: number, payload: Uint8Array, activityId?: Uint8Array): void {
    if (timestamp < this.lastTimestamp) throw new RangeError(`Events must be written in time order: ${timestamp} follows ${this.lastTimestamp}.`);
    this.lastTimestamp = timestamp;
    const metadataId = this.metadataId(def, threadId, timestamp);
    const header = this.header;
    header.metadataId = metadataId;
    header.sequenceNumber = (this.sequence + 1) >>> 0;
    header.threadId = threadId;
    header.stackId = stackId;
    header.timestamp = timestamp;
    header.activityId = activityId;
    if (!this.events.tryAdd(header, payload)) {
      this.flushBlocks();
      this.events.tryAdd(header, payload);
    }
    this.sequence = header.sequenceNumber;
  }

  /** Starts a new sequence-point region when enough blocks were written since the last one. */
  maybeSequencePoint(): void {
    if (this.blocksSinceSequencePoint >= this.blocksPerSequencePoint) this.sequencePoint();
  }

  /** Flushes everything, writes the last sequence point and the end-of-stream tag. */
  finish(): void {
    this.sequencePoint();
    writeEndOfStream(this.out);
  }

  /** Writes metadata, then stacks, then events: every reference points backwards. */
  flushBlocks(): void {
    if (this.metadata.count > 0) {
      writeBlock(this.out, BlockName.Metadata, this.metadata.contentLength, (w) => this.metadata.writeContent(w));
      this.metadata.reset();
    }
    if (this.stacks.count > 0) {
      writeBlock(this.out, BlockName.Stack, this.stacks.contentLength, (w) => this.stacks.writeContent(w));
      this.stacks.reset();
    }
    if (this.events.count > 0) {
      writeBlock(this.out, BlockName.Event, this.events.contentLength, (w) => this.events.writeContent(w));
      this.events.reset();
      this.blocksSinceSequencePoint++;
    }
  }

  private sequencePoint(): void {
    this.flushBlocks();
    const threads = this.sequence > 0 ? 1 : 0;
    writeBlock(this.out, BlockName.SequencePoint, 12 + 12 * threads, (w: ByteWriter) => {
      w.u64(this.lastTimestamp).u32(threads);
      if (threads > 0) w.u64(CAPTURE_THREAD_ID).u32(this.sequence);
    });
    // Stack ids start again after a sequence point (readers drop their stack cache there).
    this.stackIdByKey = new Map();
    this.nextStackId = 1;
    this.blocksSinceSequencePoint = 0;
  }

  private metadataId(def: EventDefinition, threadId: number, timestamp: number): number {
    let id = this.metadataIds.get(def);
    if (id !== undefined) return id;
    id = this.metadataIds.size + 1;
    const header = {
      metadataId: 0, sequenceNumber: 0, threadId, captureThreadId: 0, captureProcNumber: UNKNOWN_PROCESSOR, stackId: 0, timestamp, sorted: true,
    };
    const payload = encodeMetadataPayload(id, def);
    if (!this.metadata.tryAdd(header, payload)) {
      this.flushBlocks();
      this.metadata.tryAdd(header, payload);
    }
    this.metadataIds.set(def, id);
    return id;
  }
}
