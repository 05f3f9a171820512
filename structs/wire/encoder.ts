// Writes wire v1 bytes from TypeScript. The real writer is the native profiler; this one
// exists so tests and benchmarks can synthesize streams the decoder must accept byte for byte.

import {
  MAX_STRING_BYTES, PREAMBLE_SIZE, RecordType, WIRE_MAGIC, WIRE_VERSION,
  type EndRecord, type FunctionRecord, type SuspensionRecord, type ThreadEndRecord,
} from './records.js';

/** u64 input: a number must be a non-negative safe integer; use a bigint for anything larger. */
export type U64 = number | bigint;

export interface HelloInput {
  pid: number;
  flags: number;
  mono: U64;
  unixNs: U64;
  intervalNs: number;
  wallThreadsPerTick: number;
  runtimeVersion: string;
  profilerVersion: string;
}

export interface ThreadInput {
  threadId: number;
  osTid: number;
  clrThreadId: U64;
  mono: U64;
  name: string;
}

export interface SampleInput {
  mono: U64;
  threadId: number;
  flags: number;
  cpuNs: U64;
  wallNs: U64;
  /** Function ids, leaf first. */
  frames: ArrayLike<number>;
}

export interface StatsInput {
  mono: U64;
  samples: U64;
  droppedRingFull: U64;
  droppedBufferFull: U64;
  droppedWatchdog: U64;
  droppedOther: U64;
}

export type SuspensionInput = Omit<SuspensionRecord, 'mono' | 'durationNs' | 'suspendNs'> & { mono: U64; durationNs: U64; suspendNs: U64 };
export type ThreadEndInput = Omit<ThreadEndRecord, 'mono'> & { mono: U64 };
export type EndInput = Omit<EndRecord, 'mono'> & { mono: U64 };
export type FunctionInput = FunctionRecord;

const TWO_POW_32 = 4294967296;

/** Encodes `text` as UTF-8, cut to 65,535 bytes on a character boundary the way writers must. */
export function encodeWireString(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_STRING_BYTES) return bytes;
  let cut = MAX_STRING_BYTES;
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut);
}

export class WireEncoder {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  /** `capacity` pre-sizes the buffer, which saves copies when synthesizing large streams. */
  constructor(capacity = 4096) {
    this.buf = new Uint8Array(Math.max(16, capacity));
    this.view = new DataView(this.buf.buffer);
  }

  get byteLength(): number {
    return this.len;
  }

  /** The bytes written so far (a view; later writes may reallocate, so copy it to keep it). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  preamble(version = WIRE_VERSION): this {
    this.reserve(PREAMBLE_SIZE);
    for (let i = 0; i < WIRE_MAGIC.length; i++) this.buf[this.len + i] = WIRE_MAGIC.charCodeAt(i);
    this.view.setUint16(this.len + 8, version, true);
    this.view.setUint16(this.len + 10, PREAMBLE_SIZE, true);
    this.view.setUint32(this.len + 12, 0, true);
    this.len += PREAMBLE_SIZE;
    return this;
  }

  hello(r: HelloInput): this {
    const runtime = encodeWireString(r.runtimeVersion);
    const profiler = encodeWireString(r.profilerVersion);
    let p = this.begin(RecordType.Hello, 32 + 4 + runtime.length + 4 + profiler.length);
    p = this.u32(p, r.pid);
    p = this.u32(p, r.flags);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.unixNs);
    p = this.u32(p, r.intervalNs);
    p = this.u32(p, r.wallThreadsPerTick);
    p = this.str(p, runtime);
    this.str(p, profiler);
    return this;
  }

  thread(r: ThreadInput): this {
    const name = encodeWireString(r.name);
    let p = this.begin(RecordType.Thread, 24 + 4 + name.length);
    p = this.u32(p, r.threadId);
    p = this.u32(p, r.osTid);
    p = this.u64(p, r.clrThreadId);
    p = this.u64(p, r.mono);
    this.str(p, name);
    return this;
  }

  threadEnd(r: ThreadEndInput): this {
    let p = this.begin(RecordType.ThreadEnd, 12);
    p = this.u32(p, r.threadId);
    this.u64(p, r.mono);
    return this;
  }

  function(r: FunctionInput): this {
    const name = encodeWireString(r.name);
    const module = encodeWireString(r.module);
    const file = encodeWireString(r.file);
    let p = this.begin(RecordType.Function, 5 + 12 + name.length + module.length + file.length);
    p = this.u32(p, r.functionId);
    this.buf[p++] = r.kind;
    p = this.str(p, name);
    p = this.str(p, module);
    this.str(p, file);
    return this;
  }

  sample(r: SampleInput): this {
    const count = r.frames.length;
    if (count > 0xffff) throw new RangeError(`A SAMPLE holds at most 65535 frames, not ${count}.`);
    let p = this.begin(RecordType.Sample, 31 + 4 * count);
    p = this.u64(p, r.mono);
    p = this.u32(p, r.threadId);
    this.buf[p++] = r.flags;
    p = this.u64(p, r.cpuNs);
    p = this.u64(p, r.wallNs);
    this.view.setUint16(p, count, true);
    p += 2;
    for (let i = 0; i < count; i++) p = this.u32(p, r.frames[i]);
    return this;
  }

  stats(r: StatsInput): this {
    let p = this.begin(RecordType.Stats, 48);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.samples);
    p = this.u64(p, r.droppedRingFull);
    p = this.u64(p, r.droppedBufferFull);
    p = this.u64(p, r.droppedWatchdog);
    this.u64(p, r.droppedOther);
    return this;
  }

  suspension(r: SuspensionInput): this {
    let p = this.begin(RecordType.Suspension, 27);
    p = this.u64(p, r.mono);
    p = this.u64(p, r.durationNs);
    p = this.u64(p, r.suspendNs);
    this.buf[p] = r.reason;
    this.view.setInt8(p + 1, r.generation);
    this.buf[p + 2] = r.flags;
    return this;
  }

  end(r: EndInput): this {
    const p = this.u64(this.begin(RecordType.End, 9), r.mono);
    this.buf[p] = r.reason;
    return this;
  }

  /** Any record, body given verbatim: unknown types, or deliberately malformed bodies for tests. */
  raw(type: number, body: ArrayLike<number>): this {
    const p = this.begin(type, body.length);
    for (let i = 0; i < body.length; i++) this.buf[p + i] = body[i];
    return this;
  }

  /** Arbitrary bytes, for streams that break the framing itself. */
  rawBytes(bytes: ArrayLike<number>): this {
    this.reserve(bytes.length);
    for (let i = 0; i < bytes.length; i++) this.buf[this.len + i] = bytes[i];
    this.len += bytes.length;
    return this;
  }

  /** Writes the length and type, reserves the body and returns where the body starts. */
  private begin(type: number, bodyLength: number): number {
    this.reserve(5 + bodyLength);
    const start = this.len;
    this.view.setUint32(start, 1 + bodyLength, true);
    this.buf[start + 4] = type;
    this.len += 5 + bodyLength;
    return start + 5;
  }

  private reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  private u32(p: number, v: number): number {
    this.view.setUint32(p, v, true);
    return p + 4;
  }

  private u64(p: number, v: U64): number {
    if (typeof v === 'bigint') {
      this.view.setBigUint64(p, v, true);
    } else {
      if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`A u64 given as a number must be a non-negative safe integer, not ${v}; pass a bigint.`);
      this.view.setUint32(p, v % TWO_POW_32, true);
      this.view.setUint32(p + 4, Math.floor(v / TWO_POW_32), true);
    }
    return p + 8;
  }

  private str(p: number, bytes: Uint8Array): number {
    this.view.setUint32(p, bytes.length, true);
    this.buf.set(bytes, p + 4);
    return p + 4 + bytes.length;
  }
}
