// A growable little-endian byte buffer with the encodings EventPipe files use: fixed-width
// integers, 7-bit variable-length integers and null-terminated UTF-16 strings.

import { grownBytes } from '../../wire/grown-bytes.js';

const TWO_POW_32 = 4294967296;

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  constructor(capacity = 4096) {
    this.buf = new Uint8Array(Math.max(64, capacity));
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.len;
  }

  /** The bytes written so far, as a view that later writes may invalidate. */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  /** A copy of the bytes written so far. */
  take(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  clear(): void {
    this.len = 0;
  }

  /** Drops everything after the first `length` bytes (undoes a write that did not fit). */
  truncate(length: number): void {
    if (length < this.len) this.len = length;
  }

  /** Overwrites one byte already written. */
  setU8(at: number, v: number): void {
    this.buf[at] = v;
  }

  u8(v: number): this {
    this.reserve(1);
    this.buf[this.len++] = v;
    return this;
  }

  u16(v: number): this {
    this.reserve(2);
    this.view.setUint16(this.len, v, true);
    this.len += 2;
    return this;
  }

  i16(v: number): this {
    this.reserve(2);
    this.view.setInt16(this.len, v, true);
    this.len += 2;
    return this;
  }

  u32(v: number): this {
    this.reserve(4);
    this.view.setUint32(this.len, v >>> 0, true);
    this.len += 4;
    return this;
  }

  i32(v: number): this {
    this.reserve(4);
    this.view.setInt32(this.len, v, true);
    this.len += 4;
    return this;
  }

  /** IEEE 754 double, as `win:Double` payload fields are. */
  f64(v: number): this {
    this.reserve(8);
    this.view.setFloat64(this.len, v, true);
    this.len += 8;
    return this;
  }

  /** u64 from a non-negative safe integer or a bigint. */
  u64(v: number | bigint): this {
    this.reserve(8);
    if (typeof v === 'bigint') {
      this.view.setBigUint64(this.len, BigInt.asUintN(64, v), true);
    } else {
      this.view.setUint32(this.len, v % TWO_POW_32, true);
      this.view.setUint32(this.len + 4, Math.floor(v / TWO_POW_32), true);
    }
    this.len += 8;
    return this;
  }

  /** 7 bits a byte, least significant first, high bit set on all but the last (0 ≤ v < 2^32). */
  varU32(v: number): this {
    this.reserve(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.len++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.len++] = x;
    return this;
  }

  /** The same for a non-negative safe integer (up to 2^53; timestamps and addresses). */
  varU64(v: number): this {
    this.reserve(10);
    let x = v;
    while (x >= 0x80) {
      this.buf[this.len++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    this.buf[this.len++] = x;
    return this;
  }

  /** UTF-16LE code units and a 0 terminator, as EventPipe metadata and runtime payloads spell strings. */
  utf16z(text: string): this {
    this.reserve(2 * text.length + 2);
    for (let i = 0; i < text.length; i++) {
      this.view.setUint16(this.len, text.charCodeAt(i), true);
      this.len += 2;
    }
    this.view.setUint16(this.len, 0, true);
    this.len += 2;
    return this;
  }

  /** ASCII text without a length or terminator (magic, type names). */
  ascii(text: string): this {
    this.reserve(text.length);
    for (let i = 0; i < text.length; i++) this.buf[this.len++] = text.charCodeAt(i) & 0x7f;
    return this;
  }

  zeros(n: number): this {
    this.reserve(n);
    this.buf.fill(0, this.len, this.len + n);
    this.len += n;
    return this;
  }

  append(bytes: Uint8Array): this {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    return this;
  }

  /** Overwrites 4 bytes at `at` (a length written after its contents are known). */
  patchU32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, true);
  }

  private reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    this.buf = grownBytes(this.buf, this.len, need);
    this.view = new DataView(this.buf.buffer);
  }
}
