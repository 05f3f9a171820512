// A cursor over a FastSerialization stream, the object format PerfView's TraceEvent library
// writes .gcdump files in (microsoft/perfview src/FastSerialization/FastSerialization.cs): facts
// from that source, code our own. Little-endian throughout. The stream starts with the string
// "!FastSerialization.1"; objects are a tag, a reference to their type (itself an object: version,
// minimum reader version, full name) and the fields their own code wrote, closed by an EndObject
// tag. Strings are an i32 count of UTF-16 units (-1: null) followed by each unit UTF-8 encoded
// on its own (1 to 3 bytes). A reference already written is an ObjectReference to the byte
// offset of its definition; a forward reference is an index into a table whose offset the last
// four bytes of the stream give (through a one-entry trailer).
//
// Every read checks its bounds; every failure is a GcdumpFormatError with one sentence.

export class GcdumpFormatError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
    this.name = 'GcdumpFormatError';
  }
}

export const SIGNATURE = '!FastSerialization.1';

/** The tag bytes (FastSerialization's Tags enum order). */
export const Tag = {
  NullReference: 1,
  ObjectReference: 2,
  ForwardReference: 3,
  BeginObject: 4,
  BeginPrivateObject: 5,
  EndObject: 6,
  ForwardDefinition: 7,
  Byte: 8,
  Int16: 9,
  Int32: 10,
  Int64: 11,
  SkipRegion: 12,
  String: 13,
  Blob: 14,
} as const;

export interface SerializedType {
  version: number;
  minimumReaderVersion: number;
  fullName: string;
}

export class FsCursor {
  pos = 0;
  private readonly view: DataView;
  /** Types already read, by the offset of their definition (later ObjectReferences point there). */
  private readonly typesAt = new Map<number, SerializedType>();

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  fail(what: string): never {
    throw new GcdumpFormatError(`${what} at byte ${this.pos}`, this.pos);
  }

  need(n: number, what: string): void {
    if (n < 0 || n > this.remaining) throw new GcdumpFormatError(`the file ends inside ${what} (byte ${this.pos} of ${this.bytes.length}): it is truncated`, this.pos);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.pos++];
  }

  i32(what: string): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  i64(what: string): number {
    this.need(8, what);
    const v = Number(this.view.getBigInt64(this.pos, true));
    this.pos += 8;
    return v;
  }

  /** An unsigned 64-bit value as a double (exact below 2^53, enough for user-space addresses). */
  u64(what: string): number {
    this.need(8, what);
    const v = this.view.getUint32(this.pos, true) + this.view.getUint32(this.pos + 4, true) * 2 ** 32;
    this.pos += 8;
    return v;
  }

  /** A count that must fit in what is left of the file at `unit` bytes per item. */
  count(what: string, unit: number): number {
    const at = this.pos;
    const n = this.i32(what);
    if (n < 0 || n * unit > this.remaining) throw new GcdumpFormatError(`${what} claims ${n} entries, more than the ${this.remaining} bytes left can hold (byte ${at})`, at);
    return n;
  }

  string(what: string): string | null {
    const at = this.pos;
    const n = this.i32(what);
    if (n === -1) return null;
    if (n < 0 || n > this.remaining) throw new GcdumpFormatError(`${what} claims ${n} characters, more than the file holds (byte ${at})`, at);
    const units = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const b = this.u8(what);
      if (b < 0x80) units[i] = b;
      else if (b < 0xe0) units[i] = ((b & 0x1f) << 6) | (this.u8(what) & 0x3f);
      else units[i] = ((b & 0x0f) << 12) | ((this.u8(what) & 0x3f) << 6) | (this.u8(what) & 0x3f);
    }
    let s = '';
    for (let i = 0; i < n; i += 8192) s += String.fromCharCode(...units.subarray(i, i + 8192));
    return s;
  }

  expectTag(tag: number, what: string): void {
    const at = this.pos;
    const got = this.u8(what);
    if (got !== tag) throw new GcdumpFormatError(`expected ${what} (tag ${tag}) but found tag ${got} at byte ${at}`, at);
  }

  /**
   * The start of an object definition: its tag (after an optional ForwardDefinition) and its
   * type, returned. The caller reads the fields and then `endObject`.
   */
  beginObject(what: string): SerializedType {
    let tag = this.u8(what);
    if (tag === Tag.ForwardDefinition) {
      this.i32(what);
      tag = this.u8(what);
    }
    if (tag !== Tag.BeginObject && tag !== Tag.BeginPrivateObject) {
      throw new GcdumpFormatError(`expected the start of ${what} but found tag ${tag} at byte ${this.pos - 1}`, this.pos - 1);
    }
    return this.typeRef(what);
  }

  endObject(what: string): void {
    this.expectTag(Tag.EndObject, `the end of ${what}`);
  }

  /** A reference to a SerializationType: defined here, or an ObjectReference to an earlier one. */
  private typeRef(what: string): SerializedType {
    const at = this.pos;
    const tag = this.u8(`${what}'s type`);
    if (tag === Tag.ObjectReference) {
      const label = this.i32(`${what}'s type`);
      const known = this.typesAt.get(label);
      if (known === undefined) throw new GcdumpFormatError(`${what}'s type refers to byte ${label}, where no type was defined (byte ${at})`, at);
      return known;
    }
    if (tag !== Tag.BeginObject && tag !== Tag.BeginPrivateObject) {
      throw new GcdumpFormatError(`expected ${what}'s type but found tag ${tag} at byte ${at}`, at);
    }
    // The type of a SerializationType is null (or, in some writers, a reference to itself).
    const metaAt = this.pos;
    const meta = this.u8(`${what}'s type`);
    if (meta === Tag.ObjectReference) this.i32(`${what}'s type`);
    else if (meta !== Tag.NullReference) throw new GcdumpFormatError(`${what}'s type has an unexpected type tag ${meta} at byte ${metaAt}`, metaAt);
    const version = this.i32(`${what}'s type version`);
    const minimumReaderVersion = this.i32(`${what}'s type version`);
    const fullName = this.string(`${what}'s type name`) ?? '';
    this.endObject(`${what}'s type`);
    const type = { version, minimumReaderVersion, fullName };
    this.typesAt.set(at, type);
    return type;
  }

  /**
   * Checks the stream's end: its last four bytes point at the trailer, which points at the
   * forward-reference table that ends where the trailer starts. A file cut short (or with
   * bytes appended) fails this even where the part read looked whole.
   */
  checkEnd(): void {
    const n = this.bytes.length;
    const truncated = (): never => {
      throw new GcdumpFormatError(`the file's end is not a heap dump's end (${n} bytes): it is truncated or has bytes appended`, n);
    };
    if (n < this.pos + 12) truncated();
    const trailer = this.view.getInt32(n - 4, true);
    if (trailer < this.pos || trailer > n - 8) truncated();
    const table = this.view.getInt32(trailer, true);
    if (table < this.pos || table > trailer - 4) truncated();
    const count = this.view.getInt32(table, true);
    if (count < 0 || table + 4 + 4 * count !== trailer) truncated();
  }

  /** The byte offset a forward reference index stands for, from the table at the end of the stream. */
  forwardTarget(index: number): number {
    const n = this.bytes.length;
    if (n < 8) this.fail('a forward reference in a stream too short for its table');
    const trailer = this.view.getInt32(n - 4, true);
    if (trailer < 0 || trailer + 4 > n) this.fail('a forward reference whose trailer is outside the file');
    const table = this.view.getInt32(trailer, true);
    if (table < 0 || table + 4 > n) this.fail('a forward reference whose table is outside the file');
    const count = this.view.getInt32(table, true);
    if (index < 0 || index >= count || table + 4 + 4 * (index + 1) > n) this.fail(`a forward reference ${index} outside its table of ${count}`);
    const target = this.view.getInt32(table + 4 + 4 * index, true);
    if (target < 0 || target > n) this.fail(`a forward reference ${index} to byte ${target}, outside the file`);
    return target;
  }
}
