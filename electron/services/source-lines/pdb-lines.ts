// Source lines for a recording's frames from the PDBs of the modules it ran: each module's PDB
// is located and read once, when a frame of it is first looked up; a module without one (not
// on this machine, another build, no PDB) gets one sentence in `notes` and no lines, and
// never fails a view or an export.

import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { LineLookup, SourceLine } from '../../../structs/profile/frame-lines.js';
import { FrameLines } from '../../../structs/profile/frame-lines.js';
import type { ModuleInfo, Recording } from '../../../structs/profile/recording.js';
import type { PortablePdb } from '../../../structs/formats/portable-pdb/portable-pdb.js';
import { HIDDEN_LINE } from '../../../structs/formats/portable-pdb/portable-pdb.js';
import { ModuleKind } from '../../../structs/wire/records.js';
import { locatePdb } from './pdb-locator.js';

export class PdbLines {
  /** One sentence per module whose lines are unknown, in the order they were met. */
  readonly notes: string[] = [];
  private readonly pdbs = new Map<string, PortablePdb | null>();

  /**
   * @param fileRoot where the recorded process's files are seen from here (`/proc/PID/root` of a
   *   process in a container, while it runs): a module's path is its own, so an assembly there is
   *   read before one at the same path on this machine.
   */
  constructor(private readonly fileRoot?: string) {}

  readonly lookup: LineLookup = (module, token, ilOffset) => {
    const pdb = this.pdbOf(module);
    if (pdb === null) return null;
    let at;
    try {
      at = pdb.locate(token, ilOffset);
    } catch (err) {
      // A damaged PDB: the rest of its methods may still read.
      this.note(`${module.path}: ${(err as Error).message}`);
      return null;
    }
    return at === null || at.line === HIDDEN_LINE ? null : ({ file: at.file, line: at.line } satisfies SourceLine);
  };

  /** The lines of `rec`'s frames, looked up through this cache. */
  linesOf(rec: Recording): FrameLines {
    return new FrameLines(rec, this.lookup);
  }

  /**
   * The lines of `file` a method's sequence points span (its signature's line to its closing
   * brace's), or null when its PDB is not found or it has no point in that file.
   */
  methodSpan(module: ModuleInfo, token: number, file: string): { firstLine: number; lastLine: number } | null {
    const pdb = this.pdbOf(module);
    if (pdb === null) return null;
    let first = Infinity;
    let last = -Infinity;
    try {
      for (const p of pdb.sequencePoints(token)) {
        if (p.hidden || pdb.documentName(p.document) !== file) continue;
        first = Math.min(first, p.startLine);
        last = Math.max(last, p.endLine);
      }
    } catch (err) {
      this.note(`${module.path}: ${(err as Error).message}`);
      return null;
    }
    return first === Infinity ? null : { firstLine: first, lastLine: last };
  }

  /** The compiler's checksum of `file` as `module`'s PDB records it, or null. */
  documentHash(module: ModuleInfo, file: string): { algorithm: 'sha1' | 'sha256'; hash: Uint8Array } | null {
    const pdb = this.pdbOf(module);
    if (pdb === null) return null;
    try {
      return pdb.documentHash(file);
    } catch {
      return null;
    }
  }

  private pdbOf(module: ModuleInfo): PortablePdb | null {
    const key = `${module.path}\u0000${module.mvid}`;
    const known = this.pdbs.get(key);
    if (known !== undefined) return known;
    let pdb: PortablePdb | null = null;
    // A v1 recording knows a module by its file name only: nothing to look beside.
    if (module.kind === ModuleKind.Managed && isAbsolute(module.path)) {
      const inside = this.fileRoot === undefined ? undefined : `${this.fileRoot}${module.path}`;
      const located = locatePdb(inside !== undefined && existsSync(inside) ? inside : module.path, module.mvid);
      if (typeof located === 'string') this.note(located);
      else pdb = located.pdb;
    }
    this.pdbs.set(key, pdb);
    return pdb;
  }

  private note(sentence: string): void {
    if (this.notes.length < 100 && !this.notes.includes(sentence)) this.notes.push(sentence);
  }
}
