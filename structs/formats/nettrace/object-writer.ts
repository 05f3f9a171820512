// The FastSerialization framing of a .nettrace file: the stream header, then objects, each
// `BeginPrivateObject, type (BeginPrivateObject, NullReference, version, minimum reader version,
// name), EndObject, payload, EndObject`, and a NullReference tag to end the stream. Block payloads
// start with their size and are padded to a 4-byte *file* offset, so the writer tracks the
// absolute offset across the chunks it hands out.

import { ByteWriter } from './byte-writer.js';
import { BLOCK_VERSION, BlockName, FAST_SERIALIZATION_SIGNATURE, NETTRACE_MAGIC, Tag, TRACE_OBJECT_VERSION } from './constants.js';

export interface TraceObjectFields {
  /** UTC wall time of syncTimeQpc, whole milliseconds since the Unix epoch. */
  syncTimeUnixMs: number;
  syncTimeQpc: number;
  qpcFrequency: number;
  pointerSize: number;
  processId: number;
  numberOfProcessors: number;
  /** The sample profiler's period in ns. */
  expectedCpuSamplingRate: number;
}

export class ChunkedOutput {
  private cur: ByteWriter;
  private emitted = 0;
  private readonly chunkBytes: number;

  constructor(chunkBytes = 1 << 20) {
    this.chunkBytes = chunkBytes;
    this.cur = new ByteWriter(chunkBytes + 4096);
  }

  get w(): ByteWriter {
    return this.cur;
  }

  /** Absolute file offset of the next byte written. */
  get offset(): number {
    return this.emitted + this.cur.length;
  }

  /** The buffered bytes once they reach the chunk size (or always when `force`), else undefined. */
  takeChunk(force = false): Uint8Array | undefined {
    if (this.cur.length === 0 || (!force && this.cur.length < this.chunkBytes)) return undefined;
    const chunk = this.cur.take();
    this.emitted += chunk.length;
    this.cur.clear();
    return chunk;
  }
}

function writeType(w: ByteWriter, name: string, version: number, minimumReaderVersion: number): void {
  w.u8(Tag.BeginPrivateObject).u8(Tag.BeginPrivateObject).u8(Tag.NullReference);
  w.i32(version).i32(minimumReaderVersion).i32(name.length).ascii(name);
  w.u8(Tag.EndObject);
}

export function writeStreamHeader(out: ChunkedOutput): void {
  out.w.ascii(NETTRACE_MAGIC).i32(FAST_SERIALIZATION_SIGNATURE.length).ascii(FAST_SERIALIZATION_SIGNATURE);
}

export function writeTraceObject(out: ChunkedOutput, f: TraceObjectFields): void {
  const w = out.w;
  writeType(w, BlockName.Trace, TRACE_OBJECT_VERSION, TRACE_OBJECT_VERSION);
  const t = new Date(f.syncTimeUnixMs);
  // SYSTEMTIME: year, month (1-12), day of week (0 = Sunday), day, hour, minute, second, ms.
  w.i16(t.getUTCFullYear()).i16(t.getUTCMonth() + 1).i16(t.getUTCDay()).i16(t.getUTCDate());
  w.i16(t.getUTCHours()).i16(t.getUTCMinutes()).i16(t.getUTCSeconds()).i16(t.getUTCMilliseconds());
  w.u64(f.syncTimeQpc).u64(f.qpcFrequency);
  w.i32(f.pointerSize).i32(f.processId).i32(f.numberOfProcessors).i32(f.expectedCpuSamplingRate);
  w.u8(Tag.EndObject);
}

/** One block object; `writeContent` must write exactly `contentLength` bytes. */
export function writeBlock(out: ChunkedOutput, name: string, contentLength: number, writeContent: (w: ByteWriter) => void): void {
  const w = out.w;
  writeType(w, name, BLOCK_VERSION, BLOCK_VERSION);
  w.i32(contentLength);
  w.zeros((4 - (out.offset & 3)) & 3);
  const before = w.length;
  writeContent(w);
  if (w.length - before !== contentLength) throw new Error(`${name} wrote ${w.length - before} bytes, not the ${contentLength} it declared.`);
  w.u8(Tag.EndObject);
}

export function writeEndOfStream(out: ChunkedOutput): void {
  out.w.u8(Tag.NullReference);
}
