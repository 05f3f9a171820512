// Writes the FastSerialization stream a .gcdump is (the layout is described in
// fast-serialization.ts, whose cursor reads it back): a growing byte buffer that knows its
// offset in the whole file, so a writer can hand parts over as they are done and still name
// byte offsets (stream labels) of what it wrote earlier.

import { grownBytes } from '../../wire/grown-bytes.js';
import { Tag } from './fast-serialization.js';

export class FsWriter {
  private buf: Uint8Array = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  private used = 0;

  /** @param base where this writer's first byte lands in the file */
  constructor(private readonly base = 0) {}

  /** The file offset of the next byte written. */
  get label(): number {
    return this.base + this.used;
  }

  private room(n: number): void {
    if (this.used + n <= this.buf.length) return;
    this.buf = grownBytes(this.buf, this.used, this.used + n);
    this.view = new DataView(this.buf.buffer);
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.used++] = v;
  }

  i32(v: number): void {
    this.room(4);
    this.view.setInt32(this.used, v, true);
    this.used += 4;
  }

  i64(v: bigint | number): void {
    this.room(8);
    this.view.setBigInt64(this.used, BigInt(v), true);
    this.used += 8;
  }

  f32(v: number): void {
    this.room(4);
    this.view.setFloat32(this.used, v, true);
    this.used += 4;
  }

  /** A string as FastSerialization writes one: its UTF-16 length, then each unit UTF-8 encoded alone; null as -1. */
  string(s: string | null): void {
    if (s === null) {
      this.i32(-1);
      return;
    }
    this.i32(s.length);
    this.room(3 * s.length);
    for (let i = 0; i < s.length; i++) {
      const u = s.charCodeAt(i);
      if (u < 0x80) this.buf[this.used++] = u;
      else if (u < 0x800) {
        this.buf[this.used++] = 0xc0 | (u >> 6);
        this.buf[this.used++] = 0x80 | (u & 0x3f);
      } else {
        this.buf[this.used++] = 0xe0 | (u >> 12);
        this.buf[this.used++] = 0x80 | ((u >> 6) & 0x3f);
        this.buf[this.used++] = 0x80 | (u & 0x3f);
      }
    }
  }

  /**
   * The start of an object whose type is written here, in full (each type a .gcdump holds is
   * used once, so none is a reference to an earlier one). The caller writes the fields, then
   * `endObject`.
   */
  beginObject(fullName: string, version: number, minimumReaderVersion: number): void {
    this.u8(Tag.BeginObject);
    this.u8(Tag.BeginObject);
    this.u8(Tag.NullReference); // a SerializationType's own type
    this.i32(version);
    this.i32(minimumReaderVersion);
    this.string(fullName);
    this.u8(Tag.EndObject);
  }

  endObject(): void {
    this.u8(Tag.EndObject);
  }

  /** What was written, as a view (the writer is not used after). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.used);
  }
}
