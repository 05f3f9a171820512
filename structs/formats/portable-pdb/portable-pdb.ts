// A portable PDB (the Portable PDB v1.0 specification in dotnet/runtime's docs/design/specs):
// its #Pdb stream (the id that pairs it with its assembly), its Document table and its
// MethodDebugInformation table, whose sequence points map a method's IL offsets to source
// lines. Rows of MethodDebugInformation are MethodDef rows, so a method token's low 24 bits
// pick the row. Sequence points are decoded per method when first asked for.

import { ByteReader } from './byte-reader.js';
import { Metadata, Table, readStreamHeader } from './metadata.js';
import { PdbFormatError } from './pdb-format-error.js';

/** Line of a hidden sequence point: IL the compiler made that no source line owns. */
export const HIDDEN_LINE = 0xfeefee;
const METHOD_DEF_TOKEN = 0x06000000;

// The Document table's hash algorithms, by GUID (the portable PDB format's specification).
const HASH_ALGORITHMS = new Map<string, 'sha1' | 'sha256'>([
  ['ff1816ec-aa5e-4d10-87f7-6f4963833460', 'sha1'],
  ['8829d00f-11b8-4213-878b-770e8597ac16', 'sha256'],
]);

/** A GUID's usual text from its 16 bytes (the first three fields little-endian). */
function guidText(b: Uint8Array): string {
  if (b.length !== 16) return '';
  const h = (i: number): string => b[i].toString(16).padStart(2, '0');
  const run = (idx: number[]): string => idx.map(h).join('');
  return `${run([3, 2, 1, 0])}-${run([5, 4])}-${run([7, 6])}-${run([8, 9])}-${run([10, 11, 12, 13, 14, 15])}`;
}

export interface SequencePoint {
  ilOffset: number;
  /** Row of the Document table (1-based). */
  document: number;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
  hidden: boolean;
}

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export class PortablePdb {
  readonly metadata: Metadata;
  /** 20 bytes: the GUID (16) and stamp (4) the assembly's CodeView entry names. */
  readonly id: Uint8Array;
  readonly entryPointToken: number;
  private readonly documentNames = new Map<number, string>();
  private readonly points = new Map<number, SequencePoint[]>();

  constructor(bytes: Uint8Array) {
    let id = new Uint8Array(20);
    let entryPoint = 0;
    this.metadata = new Metadata(bytes, 'portable PDB', (rows) => {
      // The #Pdb stream must be read first: it holds the row counts of the assembly's tables
      // that this PDB's own tables point into.
      const header = peekStream(bytes, '#Pdb');
      if (header === null) throw new PdbFormatError('The portable PDB has no #Pdb stream (is it the assembly itself, or a Windows PDB?).');
      const r = new ByteReader(bytes, '#Pdb stream', header.offset, header.offset + header.size);
      id = r.slice(20).slice();
      entryPoint = r.u32();
      const referenced = r.u64();
      for (let t = 0; t < 64; t++) if ((referenced >> BigInt(t)) & 1n) rows[t] = r.u32();
    });
    this.id = id;
    this.entryPointToken = entryPoint;
    if (!this.metadata.hasTable(Table.MethodDebugInformation) && this.metadata.rows[Table.MethodDebugInformation] > 0) {
      throw new PdbFormatError('The portable PDB\'s MethodDebugInformation table could not be located.');
    }
  }

  /** The GUID part of the id, as the assembly's CodeView debug entry holds it. */
  get guid(): Uint8Array {
    return this.id.subarray(0, 16);
  }

  get documentCount(): number {
    return this.metadata.rows[Table.Document];
  }

  /** The document's name (usually a full path), 1-based row. */
  documentName(row: number): string {
    let name = this.documentNames.get(row);
    if (name === undefined) {
      const blob = this.metadata.blob(this.metadata.cell(Table.Document, row, 0));
      const r = new ByteReader(blob, 'document name');
      const separator = r.u8();
      const parts: string[] = [];
      while (r.pos < r.end) parts.push(this.metadata.utf8(this.metadata.blob(r.compressedUnsigned())));
      name = parts.join(separator === 0 ? '' : String.fromCharCode(separator));
      this.documentNames.set(row, name);
    }
    return name;
  }

  /**
   * The checksum the compiler took of a document's text (the Document table's HashAlgorithm and
   * Hash), by the document's name; null when the PDB has no such document or a hash of another kind.
   */
  documentHash(name: string): { algorithm: 'sha1' | 'sha256'; hash: Uint8Array } | null {
    for (let row = 1; row <= this.documentCount; row++) {
      if (this.documentName(row) !== name) continue;
      const algorithm = HASH_ALGORITHMS.get(guidText(this.metadata.guid(this.metadata.cell(Table.Document, row, 1))));
      const hash = this.metadata.blob(this.metadata.cell(Table.Document, row, 2));
      return algorithm === undefined || hash.length === 0 ? null : { algorithm, hash };
    }
    return null;
  }

  /** Sequence points of a method (by its MethodDef token or row), in IL order; empty when it has none. */
  sequencePoints(method: number): readonly SequencePoint[] {
    const row = method >= METHOD_DEF_TOKEN ? method & 0xffffff : method;
    let points = this.points.get(row);
    if (points === undefined) {
      points = row >= 1 && row <= this.metadata.rows[Table.MethodDebugInformation] ? this.decode(row) : [];
      this.points.set(row, points);
    }
    return points;
  }

  /**
   * Where the IL at `ilOffset` of `method` came from: the last non-hidden sequence point at or
   * before it (IL after a hidden point belongs to the statement before it, as debuggers show
   * it), or null when the method has none there.
   */
  locate(method: number, ilOffset: number): SourceLocation | null {
    const points = this.sequencePoints(method);
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid].ilOffset <= ilOffset) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= 0; i--) {
      const p = points[i];
      if (!p.hidden) return { file: this.documentName(p.document), line: p.startLine, column: p.startColumn };
    }
    return null;
  }

  private decode(row: number): SequencePoint[] {
    const md = this.metadata;
    const blobIndex = md.cell(Table.MethodDebugInformation, row, 1);
    if (blobIndex === 0) return [];
    let document = md.cell(Table.MethodDebugInformation, row, 0);
    const r = new ByteReader(md.blob(blobIndex), `sequence points of method row ${row}`);
    r.compressedUnsigned(); // LocalSignature
    if (document === 0) document = r.compressedUnsigned();
    const out: SequencePoint[] = [];
    let il = -1;
    let line = -1;
    let column = -1;
    while (r.pos < r.end) {
      const deltaIl = r.compressedUnsigned();
      if (il >= 0 && deltaIl === 0) {
        document = r.compressedUnsigned();
        continue;
      }
      il = il < 0 ? deltaIl : il + deltaIl;
      const deltaLines = r.compressedUnsigned();
      const deltaColumns = deltaLines === 0 ? r.compressedUnsigned() : r.compressedSigned();
      if (deltaLines === 0 && deltaColumns === 0) {
        out.push({ ilOffset: il, document, startLine: HIDDEN_LINE, startColumn: 0, endLine: HIDDEN_LINE, endColumn: 0, hidden: true });
        continue;
      }
      if (line < 0) {
        line = r.compressedUnsigned();
        column = r.compressedUnsigned();
      } else {
        line += r.compressedSigned();
        column += r.compressedSigned();
      }
      out.push({ ilOffset: il, document, startLine: line, startColumn: column, endLine: line + deltaLines, endColumn: column + deltaColumns, hidden: false });
    }
    return out;
  }
}

/** A stream header by name, read before the Metadata is built (the #Pdb stream sizes its tables). */
function peekStream(bytes: Uint8Array, wanted: string): { offset: number; size: number } | null {
  const r = new ByteReader(bytes, 'portable PDB');
  r.skip(12);
  const versionLength = r.u32();
  r.skip(versionLength + 2);
  const count = r.u16();
  for (let i = 0; i < count; i++) {
    const { name, offset, size } = readStreamHeader(r);
    if (name === wanted) return { offset, size };
  }
  return null;
}
