// What every record reader of the decoder shares: where the record being read sits in the stream
// (for sentences that name a byte), varints read without boxing, strings, and the sentences a
// corrupt body gets. The record families (fixed-records.ts, packed-records.ts) build on it.

import { MAX_STRING_BYTES, recordTypeName } from './records.js';
import { TWO_POW_32 } from './sample-state.js';
import { WireFormatError } from './wire-format-error.js';

export function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * TWO_POW_32;
}

export class FieldReader {
  /** Stream offset of bytes[0] of the buffer being read, set by the decoder before each record. */
  base = 0;
  private readonly utf8 = new TextDecoder('utf-8');
  // Where the last varint read ended (varint() returns the value).
  protected next = 0;
  protected readonly wide = new Float64Array(1);

  /**
   * Reads the varint at `p` (before `end`); returns its value and leaves its end in `this.next`.
   * Values below 2^28 (up to four bytes: nearly all) are decoded here as small integers; longer
   * ones are left in `this.wide[0]` and -1 is returned. A double returned from a call V8 did not
   * inline is boxed (an allocation per sample), so the hot path only ever returns small integers:
   * callers write `let v = this.varint(...); if (v < 0) v = this.wide[0];`.
   */
  protected varint(bytes: Uint8Array, p: number, end: number, type: number, at: number): number {
    if (p + 4 <= end) {
      const b0 = bytes[p];
      if (b0 < 0x80) {
        this.next = p + 1;
        return b0;
      }
      const b1 = bytes[p + 1];
      if (b1 < 0x80) {
        this.next = p + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
      const b2 = bytes[p + 2];
      if (b2 < 0x80) {
        this.next = p + 3;
        return (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
      }
      const b3 = bytes[p + 3];
      if (b3 < 0x80) {
        this.next = p + 4;
        return (b0 & 0x7f) | ((b1 & 0x7f) << 7) | ((b2 & 0x7f) << 14) | (b3 << 21);
      }
    }
    this.varintSlow(bytes, p, end, type, at);
    return -1;
  }

  protected varintSlow(bytes: Uint8Array, p: number, end: number, type: number, at: number): void {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (p + i >= end) this.endsInside(type, at, end);
      const b = bytes[p + i];
      if (i === 9 && b > 1) this.badVarint(type, at, p);
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.next = p + i + 1;
        this.wide[0] = value;
        return;
      }
      scale *= 128;
    }
    this.badVarint(type, at, p);
  }

  /** Reads a `str` whose length field is at `p`; `end` is the end of the body. */
  protected str(view: DataView, bytes: Uint8Array, p: number, end: number, type: number, at: number): { value: string; next: number } {
    const offset = this.base + p;
    if (p + 4 > end) {
      throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${this.base + at} ends at byte ${this.base + end}, before the string length it needs at byte ${offset}.`, offset);
    }
    const length = view.getUint32(p, true);
    if (length > MAX_STRING_BYTES) {
      throw new WireFormatError(`Corrupt clrscope stream: the string at byte ${offset} in the ${recordTypeName(type)} record at byte ${this.base + at} is ${length} bytes long, more than the ${MAX_STRING_BYTES} allowed.`, offset);
    }
    if (p + 4 + length > end) {
      throw new WireFormatError(`Corrupt clrscope stream: the string at byte ${offset} in the ${recordTypeName(type)} record at byte ${this.base + at} claims ${length} bytes but the record body has only ${end - p - 4} left.`, offset);
    }
    return { value: this.utf8.decode(bytes.subarray(p + 4, p + 4 + length)), next: p + 4 + length };
  }

  protected requireBody(type: number, bodyLen: number, need: number, at: number): void {
    if (bodyLen < need) this.short(type, bodyLen, need, at);
  }

  protected short(type: number, bodyLen: number, need: number, at: number): never {
    const offset = this.base + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} has a ${bodyLen}-byte body, shorter than the ${need} bytes its fields need.`, offset);
  }

  protected endsInside(type: number, at: number, end: number): never {
    const offset = this.base + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} ends at byte ${this.base + end}, inside a field.`, offset);
  }

  protected badVarint(type: number, at: number, p: number): never {
    const offset = this.base + at;
    throw new WireFormatError(`Corrupt clrscope stream: the ${recordTypeName(type)} record at byte ${offset} has a number at byte ${this.base + p} longer than 64 bits.`, offset);
  }

  /** `subject` names the record's part ("a sample in the SAMPLES record"); `what` says what is wrong with it. */
  protected corrupt(subject: string, at: number, what: string): never {
    const offset = this.base + at;
    throw new WireFormatError(`Corrupt clrscope stream: ${subject} at byte ${offset} ${what}.`, offset);
  }
}
