// Little-endian reads with bounds checks, and ECMA-335's compressed integers (II.23.2, big
// endian, 1, 2 or 4 bytes; the signed form keeps the sign in the lowest bit). Every read past
// the end is one sentence, never an exception from a typed array.

import { PdbFormatError } from './pdb-format-error.js';

export class ByteReader {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  pos: number;
  /** Reads stop here (exclusive). */
  readonly end: number;
  private readonly what: string;

  constructor(bytes: Uint8Array, what: string, start = 0, end = bytes.length) {
    if (start < 0 || end > bytes.length || start > end) throw new PdbFormatError(`The ${what} lies outside the file (bytes ${start} to ${end} of ${bytes.length}).`);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
    this.what = what;
  }

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.end) throw new PdbFormatError(`The ${this.what} is cut short: ${n} more bytes were needed at byte ${at}.`);
    this.pos = at + n;
    return at;
  }

  u8(): number { return this.bytes[this.need(1)]; }
  u16(): number { return this.view.getUint16(this.need(2), true); }
  u32(): number { return this.view.getUint32(this.need(4), true); }
  u64(): bigint { return this.view.getBigUint64(this.need(8), true); }
  skip(n: number): void { this.need(n); }
  slice(n: number): Uint8Array { const at = this.need(n); return this.bytes.subarray(at, at + n); }

  /** An index of 2 or 4 bytes, as the metadata's sizes say. */
  index(size: number): number {
    return size === 2 ? this.u16() : this.u32();
  }

  compressedUnsigned(): number {
    return this.compressed().value;
  }

  compressedSigned(): number {
    const { value, bytes } = this.compressed();
    const v = value >>> 1;
    if ((value & 1) === 0) return v;
    return v - (bytes === 1 ? 0x40 : bytes === 2 ? 0x2000 : 0x10000000);
  }

  private compressed(): { value: number; bytes: number } {
    const b0 = this.u8();
    if ((b0 & 0x80) === 0) return { value: b0, bytes: 1 };
    if ((b0 & 0xc0) === 0x80) return { value: ((b0 & 0x3f) << 8) | this.u8(), bytes: 2 };
    if ((b0 & 0xe0) === 0xc0) {
      const b1 = this.u8();
      const b2 = this.u8();
      const b3 = this.u8();
      return { value: (((b0 & 0x1f) << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0, bytes: 4 };
    }
    throw new PdbFormatError(`The ${this.what} has an invalid compressed integer (byte 0x${b0.toString(16)}) at byte ${this.pos - 1}.`);
  }

  /** A NUL-terminated string within the next `max` bytes (UTF-8). */
  cString(max: number): string {
    const start = this.pos;
    const limit = Math.min(this.end, start + max);
    let i = start;
    while (i < limit && this.bytes[i] !== 0) i++;
    if (i >= limit) throw new PdbFormatError(`The ${this.what} has a name without its terminating NUL at byte ${start}.`);
    this.pos = i + 1;
    return new TextDecoder('utf-8').decode(this.bytes.subarray(start, i));
  }
}
