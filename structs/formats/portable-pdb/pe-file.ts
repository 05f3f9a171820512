// The parts of a .NET assembly's PE file that lead to its source lines: the sections (to turn
// RVAs into file offsets), the CLI header's metadata, and the debug directory, whose CodeView
// entry names the PDB (path and GUID, to check a PDB found beside the assembly is its own) and
// whose EmbeddedPortablePdb entry holds the PDB itself, deflate-compressed (PE/COFF
// specification; Portable PDB spec, "PE Debug Directory Entries").

import { ByteReader } from './byte-reader.js';
import { Metadata } from './metadata.js';
import { PdbFormatError } from './pdb-format-error.js';

const DebugType = { CodeView: 2, EmbeddedPortablePdb: 17 } as const;
const RSDS = 0x53445352; // "RSDS"
const MPDB = 0x4244504d; // "MPDB"
const DEBUG_DIRECTORY = 6;
const CLI_HEADER = 14;

interface Section {
  virtualAddress: number;
  virtualSize: number;
  rawPointer: number;
  rawSize: number;
}

export interface CodeViewEntry {
  guid: Uint8Array;
  age: number;
  /** The PDB's path as the compiler wrote it (often the build machine's). */
  path: string;
}

export class PeFile {
  readonly bytes: Uint8Array;
  private readonly sections: Section[] = [];
  private readonly directories: { rva: number; size: number }[] = [];
  private metadataValue: Metadata | undefined;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    const r = new ByteReader(bytes, 'PE file');
    if (r.u16() !== 0x5a4d) throw new PdbFormatError('The file is not a PE file (no MZ header): not a .NET assembly.');
    r.pos = 0x3c;
    const peOffset = r.u32();
    r.pos = peOffset;
    if (r.u32() !== 0x00004550) throw new PdbFormatError('The file has an MZ header but no PE signature: not a .NET assembly.');
    r.skip(2); // machine
    const sectionCount = r.u16();
    r.skip(12);
    const optionalSize = r.u16();
    r.skip(2);
    const optional = r.pos;
    const magic = r.u16();
    if (magic !== 0x10b && magic !== 0x20b) throw new PdbFormatError(`The PE file has an unknown optional header (magic 0x${magic.toString(16)}).`);
    r.pos = optional + (magic === 0x10b ? 92 : 108);
    const count = r.u32();
    for (let i = 0; i < Math.min(count, 16); i++) this.directories.push({ rva: r.u32(), size: r.u32() });
    r.pos = optional + optionalSize;
    for (let i = 0; i < sectionCount; i++) {
      r.skip(8); // name
      const virtualSize = r.u32();
      const virtualAddress = r.u32();
      const rawSize = r.u32();
      const rawPointer = r.u32();
      r.skip(16);
      this.sections.push({ virtualAddress, virtualSize, rawPointer, rawSize });
    }
  }

  /** The file offset of an RVA, or -1 when no section holds it. */
  offsetOf(rva: number): number {
    for (const s of this.sections) {
      if (rva >= s.virtualAddress && rva < s.virtualAddress + Math.max(s.virtualSize, s.rawSize)) return rva - s.virtualAddress + s.rawPointer;
    }
    return -1;
  }

  /** The assembly's CLI metadata (its type system: types, methods and their tokens). */
  get metadata(): Metadata {
    if (this.metadataValue === undefined) {
      const cli = this.directories[CLI_HEADER];
      if (cli === undefined || cli.rva === 0) throw new PdbFormatError('The PE file has no CLI header: it is not a .NET assembly.');
      const r = new ByteReader(this.bytes, 'CLI header', this.offsetOrFail(cli.rva, 'CLI header'));
      r.skip(8); // cb, runtime version
      const rva = r.u32();
      const size = r.u32();
      const at = this.offsetOrFail(rva, 'metadata');
      if (at + size > this.bytes.length) throw new PdbFormatError('The assembly\'s metadata lies outside the file.');
      this.metadataValue = new Metadata(this.bytes.subarray(at, at + size), 'assembly metadata');
    }
    return this.metadataValue;
  }

  private offsetOrFail(rva: number, what: string): number {
    const at = this.offsetOf(rva);
    if (at < 0) throw new PdbFormatError(`The PE file's ${what} is at an address no section holds.`);
    return at;
  }

  private debugEntries(): { type: number; size: number; pointer: number }[] {
    const dir = this.directories[DEBUG_DIRECTORY];
    if (dir === undefined || dir.rva === 0 || dir.size === 0) return [];
    const r = new ByteReader(this.bytes, 'debug directory', this.offsetOrFail(dir.rva, 'debug directory'));
    const out: { type: number; size: number; pointer: number }[] = [];
    for (let i = 0; i < Math.floor(dir.size / 28); i++) {
      r.skip(12); // characteristics, time stamp, major/minor version
      const type = r.u32();
      const size = r.u32();
      r.skip(4); // address of raw data
      const pointer = r.u32();
      out.push({ type, size, pointer });
    }
    return out;
  }

  /** The CodeView entry: which PDB the assembly was built with; null when it names none. */
  codeView(): CodeViewEntry | null {
    const e = this.debugEntries().find((x) => x.type === DebugType.CodeView);
    if (e === undefined) return null;
    const r = new ByteReader(this.bytes, 'CodeView debug entry', e.pointer, e.pointer + e.size);
    if (r.u32() !== RSDS) return null;
    const guid = r.slice(16).slice();
    const age = r.u32();
    return { guid, age, path: r.cString(e.size - 24) };
  }

  /**
   * The embedded portable PDB, still deflate-compressed, with its size once inflated; null when
   * the assembly embeds none. Inflating is the caller's (raw deflate, RFC 1951).
   */
  embeddedPdb(): { compressed: Uint8Array; size: number } | null {
    const e = this.debugEntries().find((x) => x.type === DebugType.EmbeddedPortablePdb);
    if (e === undefined) return null;
    const r = new ByteReader(this.bytes, 'embedded PDB entry', e.pointer, e.pointer + e.size);
    if (r.u32() !== MPDB) throw new PdbFormatError('The assembly\'s embedded PDB entry does not start with MPDB.');
    const size = r.u32();
    return { compressed: r.slice(e.size - 8), size };
  }
}
