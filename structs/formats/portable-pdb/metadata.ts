// ECMA-335 metadata (Partition II, chapter 24) as both an assembly's CLI metadata and a
// portable PDB store it: the root with its stream headers, the #Strings, #Blob and #GUID
// heaps, and the #~ table stream, whose rows are located by computing each table's row size
// from the heap sizes and the row counts (coded indexes grow to 4 bytes with large tables).

import { ByteReader } from './byte-reader.js';
import { PdbFormatError } from './pdb-format-error.js';

const METADATA_SIGNATURE = 0x424a5342; // "BSJB"

export const Table = {
  Module: 0x00, TypeRef: 0x01, TypeDef: 0x02, FieldPtr: 0x03, Field: 0x04, MethodPtr: 0x05, MethodDef: 0x06, ParamPtr: 0x07,
  Param: 0x08, InterfaceImpl: 0x09, MemberRef: 0x0a, Constant: 0x0b, CustomAttribute: 0x0c, FieldMarshal: 0x0d, DeclSecurity: 0x0e,
  ClassLayout: 0x0f, FieldLayout: 0x10, StandAloneSig: 0x11, EventMap: 0x12, EventPtr: 0x13, Event: 0x14, PropertyMap: 0x15,
  PropertyPtr: 0x16, Property: 0x17, MethodSemantics: 0x18, MethodImpl: 0x19, ModuleRef: 0x1a, TypeSpec: 0x1b, ImplMap: 0x1c,
  FieldRva: 0x1d, EncLog: 0x1e, EncMap: 0x1f, Assembly: 0x20, AssemblyProcessor: 0x21, AssemblyOs: 0x22, AssemblyRef: 0x23,
  AssemblyRefProcessor: 0x24, AssemblyRefOs: 0x25, File: 0x26, ExportedType: 0x27, ManifestResource: 0x28, NestedClass: 0x29,
  GenericParam: 0x2a, MethodSpec: 0x2b, GenericParamConstraint: 0x2c,
  Document: 0x30, MethodDebugInformation: 0x31, LocalScope: 0x32, LocalVariable: 0x33, LocalConstant: 0x34, ImportScope: 0x35,
  StateMachineMethod: 0x36, CustomDebugInformation: 0x37,
} as const;

const T = Table;

/** Coded indexes (II.24.2.6): the tables a tag selects, in tag order (-1: an unused tag). */
const CODED: Record<string, readonly number[]> = {
  TypeDefOrRef: [T.TypeDef, T.TypeRef, T.TypeSpec],
  HasConstant: [T.Field, T.Param, T.Property],
  HasCustomAttribute: [T.MethodDef, T.Field, T.TypeRef, T.TypeDef, T.Param, T.InterfaceImpl, T.MemberRef, T.Module, T.DeclSecurity, T.Property, T.Event,
    T.StandAloneSig, T.ModuleRef, T.TypeSpec, T.Assembly, T.AssemblyRef, T.File, T.ExportedType, T.ManifestResource, T.GenericParam,
    T.GenericParamConstraint, T.MethodSpec],
  HasFieldMarshal: [T.Field, T.Param],
  HasDeclSecurity: [T.TypeDef, T.MethodDef, T.Assembly],
  MemberRefParent: [T.TypeDef, T.TypeRef, T.ModuleRef, T.MethodDef, T.TypeSpec],
  HasSemantics: [T.Event, T.Property],
  MethodDefOrRef: [T.MethodDef, T.MemberRef],
  MemberForwarded: [T.Field, T.MethodDef],
  Implementation: [T.File, T.AssemblyRef, T.ExportedType],
  CustomAttributeType: [-1, -1, T.MethodDef, T.MemberRef, -1],
  ResolutionScope: [T.Module, T.ModuleRef, T.AssemblyRef, T.TypeRef],
  TypeOrMethodDef: [T.TypeDef, T.MethodDef],
};

/** A column: fixed bytes, a heap index, a simple index into a table, or a coded index. */
type Column = 2 | 4 | 'string' | 'guid' | 'blob' | { table: number } | { coded: keyof typeof CODED };

const idx = (table: number): Column => ({ table });
const coded = (name: keyof typeof CODED): Column => ({ coded: name });

/** Columns of every table up to NestedClass and of the two portable-PDB tables read here (II.22, Portable PDB spec). */
const SCHEMA: Partial<Record<number, readonly Column[]>> = {
  [T.Module]: [2, 'string', 'guid', 'guid', 'guid'],
  [T.TypeRef]: [coded('ResolutionScope'), 'string', 'string'],
  [T.TypeDef]: [4, 'string', 'string', coded('TypeDefOrRef'), idx(T.Field), idx(T.MethodDef)],
  [T.FieldPtr]: [idx(T.Field)],
  [T.Field]: [2, 'string', 'blob'],
  [T.MethodPtr]: [idx(T.MethodDef)],
  [T.MethodDef]: [4, 2, 2, 'string', 'blob', idx(T.Param)],
  [T.ParamPtr]: [idx(T.Param)],
  [T.Param]: [2, 2, 'string'],
  [T.InterfaceImpl]: [idx(T.TypeDef), coded('TypeDefOrRef')],
  [T.MemberRef]: [coded('MemberRefParent'), 'string', 'blob'],
  [T.Constant]: [2, coded('HasConstant'), 'blob'],
  [T.CustomAttribute]: [coded('HasCustomAttribute'), coded('CustomAttributeType'), 'blob'],
  [T.FieldMarshal]: [coded('HasFieldMarshal'), 'blob'],
  [T.DeclSecurity]: [2, coded('HasDeclSecurity'), 'blob'],
  [T.ClassLayout]: [2, 4, idx(T.TypeDef)],
  [T.FieldLayout]: [4, idx(T.Field)],
  [T.StandAloneSig]: ['blob'],
  [T.EventMap]: [idx(T.TypeDef), idx(T.Event)],
  [T.EventPtr]: [idx(T.Event)],
  [T.Event]: [2, 'string', coded('TypeDefOrRef')],
  [T.PropertyMap]: [idx(T.TypeDef), idx(T.Property)],
  [T.PropertyPtr]: [idx(T.Property)],
  [T.Property]: [2, 'string', 'blob'],
  [T.MethodSemantics]: [2, idx(T.MethodDef), coded('HasSemantics')],
  [T.MethodImpl]: [idx(T.TypeDef), coded('MethodDefOrRef'), coded('MethodDefOrRef')],
  [T.ModuleRef]: ['string'],
  [T.TypeSpec]: ['blob'],
  [T.ImplMap]: [2, coded('MemberForwarded'), 'string', idx(T.ModuleRef)],
  [T.FieldRva]: [4, idx(T.Field)],
  [T.EncLog]: [4, 4],
  [T.EncMap]: [4],
  [T.Assembly]: [4, 2, 2, 2, 2, 4, 'blob', 'string', 'string'],
  [T.AssemblyProcessor]: [4],
  [T.AssemblyOs]: [4, 4, 4],
  [T.AssemblyRef]: [2, 2, 2, 2, 4, 'blob', 'string', 'string', 'blob'],
  [T.AssemblyRefProcessor]: [4, idx(T.AssemblyRef)],
  [T.AssemblyRefOs]: [4, 4, 4, idx(T.AssemblyRef)],
  [T.File]: [4, 'string', 'blob'],
  [T.ExportedType]: [4, 4, 'string', 'string', coded('Implementation')],
  [T.ManifestResource]: [4, 4, 'string', coded('Implementation')],
  [T.NestedClass]: [idx(T.TypeDef), idx(T.TypeDef)],
  [T.Document]: ['blob', 'guid', 'blob', 'guid'],
  [T.MethodDebugInformation]: [idx(T.Document), 'blob'],
};

export interface StreamHeader {
  offset: number;
  size: number;
}

/** The next stream header of a metadata root: where its stream lies, and its name. */
export function readStreamHeader(r: ByteReader): StreamHeader & { name: string } {
  const offset = r.u32();
  const size = r.u32();
  const nameStart = r.pos;
  const name = r.cString(32);
  // Names are padded to a multiple of four bytes.
  r.pos = nameStart + ((r.pos - nameStart + 3) & ~3);
  return { name, offset, size };
}

/** One metadata blob: its streams, heaps and tables. `bytes` is the whole blob (BSJB first). */
export class Metadata {
  readonly bytes: Uint8Array;
  readonly version: string;
  readonly streams = new Map<string, StreamHeader>();
  /** Row counts by table id, 64 entries (type-system counts a PDB borrows from its #Pdb stream included). */
  readonly rows = new Array<number>(64).fill(0);
  private readonly present = new Array<boolean>(64).fill(false);
  private stringSize = 2;
  private guidSize = 2;
  private blobSize = 2;
  /** Where each present table's rows start, and how long a row is. */
  private readonly tableStart = new Array<number>(64).fill(-1);
  private readonly rowSize = new Array<number>(64).fill(0);
  private readonly columnOffsets = new Map<number, number[]>();
  private readonly columnSizes = new Map<number, number[]>();
  private readonly decoder = new TextDecoder('utf-8');

  /** `externalRows`: row counts of type-system tables a standalone PDB refers to (its #Pdb stream). */
  constructor(bytes: Uint8Array, what: string, externalRows?: (rows: number[]) => void) {
    this.bytes = bytes;
    const r = new ByteReader(bytes, what);
    if (r.u32() !== METADATA_SIGNATURE) throw new PdbFormatError(`The ${what} does not start with the metadata signature BSJB.`);
    r.skip(8); // major, minor, reserved
    const versionLength = r.u32();
    if (versionLength > 255) throw new PdbFormatError(`The ${what} declares a version string of ${versionLength} bytes.`);
    const versionStart = r.pos;
    this.version = r.cString(versionLength);
    r.pos = versionStart + versionLength;
    r.skip(2); // flags
    const count = r.u16();
    for (let i = 0; i < count; i++) {
      const { name, offset, size } = readStreamHeader(r);
      if (offset + size > bytes.length) throw new PdbFormatError(`The ${what}'s stream ${name} lies outside it.`);
      this.streams.set(name, { offset, size });
    }
    externalRows?.(this.rows);
    const tables = this.streams.get('#~') ?? this.streams.get('#-');
    if (tables === undefined) throw new PdbFormatError(`The ${what} has no #~ table stream.`);
    this.readTableHeader(new ByteReader(bytes, `${what}'s #~ stream`, tables.offset, tables.offset + tables.size), what);
  }

  private readTableHeader(r: ByteReader, what: string): void {
    r.skip(6); // reserved, major, minor
    const heapSizes = r.u8();
    r.skip(1);
    const valid = r.u64();
    r.skip(8); // sorted
    this.stringSize = heapSizes & 0x01 ? 4 : 2;
    this.guidSize = heapSizes & 0x02 ? 4 : 2;
    this.blobSize = heapSizes & 0x04 ? 4 : 2;
    for (let t = 0; t < 64; t++) {
      if ((valid >> BigInt(t)) & 1n) {
        this.present[t] = true;
        this.rows[t] = r.u32();
      }
    }
    // Uncompressed (#-) tables may carry four extra bytes after the row counts.
    if (heapSizes & 0x40) r.skip(4);
    let at = r.pos;
    for (let t = 0; t < 64; t++) {
      if (!this.present[t]) continue;
      const columns = SCHEMA[t];
      if (columns === undefined) break; // Tables past the ones this reader knows: their rows are not needed.
      const sizes = columns.map((c) => this.columnSize(c));
      const offsets: number[] = [];
      let size = 0;
      for (const s of sizes) {
        offsets.push(size);
        size += s;
      }
      this.tableStart[t] = at;
      this.rowSize[t] = size;
      this.columnOffsets.set(t, offsets);
      this.columnSizes.set(t, sizes);
      at += size * this.rows[t];
      if (at > r.end) throw new PdbFormatError(`The ${what}'s table 0x${t.toString(16)} runs past the end of its #~ stream.`);
    }
  }

  private columnSize(c: Column): number {
    if (c === 2 || c === 4) return c;
    if (c === 'string') return this.stringSize;
    if (c === 'guid') return this.guidSize;
    if (c === 'blob') return this.blobSize;
    if ('table' in c) return this.rows[c.table] < 0x10000 ? 2 : 4;
    const tables = CODED[c.coded];
    const bits = Math.ceil(Math.log2(tables.length));
    let max = 0;
    for (const t of tables) if (t >= 0 && this.rows[t] > max) max = this.rows[t];
    return max < 1 << (16 - bits) ? 2 : 4;
  }

  hasTable(table: number): boolean {
    return this.tableStart[table] >= 0;
  }

  /** Column `column` of row `row` (1-based, as tokens count) of `table`. */
  cell(table: number, row: number, column: number): number {
    if (row < 1 || row > this.rows[table] || this.tableStart[table] < 0) throw new PdbFormatError(`Row ${row} of metadata table 0x${table.toString(16)} does not exist.`);
    const at = this.tableStart[table] + (row - 1) * this.rowSize[table] + this.columnOffsets.get(table)![column];
    const size = this.columnSizes.get(table)![column];
    const b = this.bytes;
    return size === 2 ? b[at] | (b[at + 1] << 8) : (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
  }

  string(index: number): string {
    const heap = this.streams.get('#Strings');
    if (heap === undefined || index === 0) return '';
    const r = new ByteReader(this.bytes, '#Strings heap', heap.offset + index, heap.offset + heap.size);
    return r.cString(heap.size - index);
  }

  /** The blob at `index` of the #Blob heap (its length prefix read and dropped). */
  blob(index: number): Uint8Array {
    const heap = this.streams.get('#Blob');
    if (heap === undefined || index === 0) return new Uint8Array(0);
    const r = new ByteReader(this.bytes, '#Blob heap', heap.offset + index, heap.offset + heap.size);
    const length = r.compressedUnsigned();
    return r.slice(length);
  }

  utf8(bytes: Uint8Array): string {
    return this.decoder.decode(bytes);
  }

  /** The GUID at 1-based `index` of the #GUID heap, as 16 bytes. */
  guid(index: number): Uint8Array {
    const heap = this.streams.get('#GUID');
    if (heap === undefined || index === 0) return new Uint8Array(16);
    const r = new ByteReader(this.bytes, '#GUID heap', heap.offset + (index - 1) * 16, heap.offset + heap.size);
    return r.slice(16);
  }
}
