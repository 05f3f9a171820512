// Bounds-checked little-endian reads over one block of a .nettrace file. Every read past the
// block's end throws a NettraceFormatError naming the file offset, so corrupt input produces a
// sentence rather than garbage.

import { NettraceFormatError } from './nettrace-format-error.js';

const TWO_POW_32 = 4294967296;

export class SpanReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** File offset of bytes[0]. */
  readonly base: number;
  /** What is being read, for messages ("EventBlock at byte 1234"). */
  readonly what: string;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, base: number, what: string, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.base = base;
    this.what = what;
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  get offset(): number {
    return this.base + this.pos;
  }

  need(n: number): void {
    if (this.pos + n > this.end) this.overrun(n);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  i16(): number {
    this.need(2);
    const v = this.view.getInt16(this.pos, true);
    this.pos += 2;
    return v;
  }

  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** u64 as a number: exact below 2^53 (timestamps, user-space addresses, ids). */
  u64(): number {
    this.need(8);
    const v = this.view.getUint32(this.pos, true) + this.view.getUint32(this.pos + 4, true) * TWO_POW_32;
    this.pos += 8;
    return v;
  }

  /** i64 as a number (exact within ±2^53). */
  i64(): number {
    this.need(8);
    const v = this.view.getUint32(this.pos, true) + this.view.getInt32(this.pos + 4, true) * TWO_POW_32;
    this.pos += 8;
    return v;
  }

  f32(): number {
    this.need(4);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  varU32(): number {
    // Most values (flags-driven ids, sizes) fit one byte.
    if (this.pos < this.end && this.bytes[this.pos] < 0x80) return this.bytes[this.pos++];
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) this.overrun(1);
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result >>> 0;
      shift += 7;
    }
    return this.badVarint();
  }

  /**
   * A 64-bit varint read as a signed two's-complement value, which is what adding it to the
   * previous timestamp modulo 2^64 means: writers encode a smaller timestamp as a huge delta.
   */
  varI64(): number {
    if (this.pos < this.end && this.bytes[this.pos] < 0x80) return this.bytes[this.pos++];
    let lo = 0;
    let hi = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= this.end) this.overrun(1);
      const b = this.bytes[this.pos++];
      const bits = b & 0x7f;
      if (shift < 32) {
        lo = (lo | (bits << shift)) >>> 0;
        if (shift > 25) hi = (hi | (bits >>> (32 - shift))) >>> 0;
      } else {
        hi = (hi | (bits << (shift - 32))) >>> 0;
      }
      if (b < 0x80) return hi >= 0x80000000 ? (hi - TWO_POW_32) * TWO_POW_32 + lo : hi * TWO_POW_32 + lo;
    }
    return this.badVarint();
  }

  /** A varint that must be a non-negative value below 2^53 (thread ids, sizes). */
  varU64(): number {
    const v = this.varI64();
    return v < 0 ? v + 2 ** 64 : v;
  }

  /** Null-terminated UTF-16LE. */
  utf16z(): string {
    const start = this.pos;
    let p = start;
    while (true) {
      if (p + 2 > this.end) {
        throw new NettraceFormatError(`Corrupt .nettrace file: a string at byte ${this.base + start} in the ${this.what} has no terminator.`, this.base + start);
      }
      if (this.bytes[p] === 0 && this.bytes[p + 1] === 0) break;
      p += 2;
    }
    const units: number[] = [];
    let text = '';
    for (let q = start; q < p; q += 2) {
      units.push(this.view.getUint16(q, true));
      if (units.length === 4096) {
        text += String.fromCharCode(...units);
        units.length = 0;
      }
    }
    this.pos = p + 2;
    return text + String.fromCharCode(...units);
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  private overrun(n: number): never {
    throw new NettraceFormatError(`Corrupt .nettrace file: the ${this.what} ends at byte ${this.base + this.end}, before the ${n} byte${n === 1 ? '' : 's'} it needs at byte ${this.offset}.`, this.offset);
  }

  private badVarint(): never {
    throw new NettraceFormatError(`Corrupt .nettrace file: a variable-length integer at byte ${this.offset} in the ${this.what} is too long.`, this.offset);
  }
}
