// The byte buffer a WireEncoder fills and the field writers every record uses (PROTOCOL.md,
// Encoding): little-endian integers, u64 from a number or a bigint, varints, length-prefixed
// UTF-8 strings cut the way writers must.

import { MAX_STRING_BYTES } from './records.js';
import { TWO_POW_32 } from './sample-state.js';
import type { U64 } from './encoder-inputs.js';
import { grownBytes } from './grown-bytes.js';

/** Encodes `text` as UTF-8, cut to 65,535 bytes on a character boundary the way writers must. */
export function encodeWireString(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_STRING_BYTES) return bytes;
  let cut = MAX_STRING_BYTES;
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut);
}

function checkU64(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v >= 2 ** 64) throw new RangeError(`A u64 given as a number must be a non-negative integer below 2^64, not ${v}; pass a bigint.`);
}

/** The exact halves of a u64 (hi * 2^32 + lo). */
export function halves(v: U64): [number, number] {
  if (typeof v === 'bigint') {
    if (v < 0n || v >= 1n << 64n) throw new RangeError(`A u64 must be in 0..2^64-1, not ${v}.`);
    return [Number(v >> 32n), Number(v & 0xffffffffn)];
  }
  checkU64(v);
  const hi = Math.floor(v / TWO_POW_32);
  return [hi, v - hi * TWO_POW_32];
}

/** Writes a non-negative integer as a varint at `p` (exact for any integer-valued double); returns the end. */
export function varint(buf: Uint8Array, p: number, v: number): number {
  if (v < 0x80) {
    buf[p] = v;
    return p + 1;
  }
  while (v >= 0x80000000) {
    const low = v % 128;
    buf[p++] = low | 0x80;
    v = (v - low) / 128;
  }
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

export function zigzag(d: number): number {
  return d >= 0 ? 2 * d : -2 * d - 1;
}

export class WireBytes {
  protected buf: Uint8Array;
  protected view: DataView;
  protected len = 0;
  private readonly capacity: number;

  /** `capacity` pre-sizes the buffer, which saves copies when synthesizing large streams. */
  constructor(capacity = 4096) {
    this.capacity = Math.max(16, capacity);
    this.buf = new Uint8Array(this.capacity);
    this.view = new DataView(this.buf.buffer);
  }

  protected number(v: U64): number {
    if (typeof v === 'bigint') {
      if (v < 0n || v >= 1n << 64n) throw new RangeError(`A u64 must be in 0..2^64-1, not ${v}.`);
      return Number(v);
    }
    checkU64(v);
    return v;
  }

  /** A definition record: it may go out ahead of the SAMPLES record being filled. */
  protected beginDefinition(type: number, bodyLength: number): number {
    this.reserve(5 + bodyLength);
    const start = this.len;
    this.view.setUint32(start, 1 + bodyLength, true);
    this.buf[start + 4] = type;
    this.len += 5 + bodyLength;
    return start + 5;
  }

  protected reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    this.buf = grownBytes(this.buf, this.len, need);
    this.view = new DataView(this.buf.buffer);
  }

  protected varint(p: number, v: number): number {
    return varint(this.buf, p, v);
  }

  protected u32(p: number, v: number): number {
    this.view.setUint32(p, v, true);
    return p + 4;
  }

  protected u64(p: number, v: U64): number {
    const [hi, lo] = halves(v);
    this.view.setUint32(p, lo, true);
    this.view.setUint32(p + 4, hi, true);
    return p + 8;
  }

  protected str(p: number, bytes: Uint8Array): number {
    this.view.setUint32(p, bytes.length, true);
    this.buf.set(bytes, p + 4);
    return p + 4 + bytes.length;
  }
}
