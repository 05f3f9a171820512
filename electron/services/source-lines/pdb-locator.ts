// Finds an assembly's portable PDB, the file-system half of structs/formats/portable-pdb: the
// PDB embedded in the assembly (inflated here), else `Name.pdb` beside it, else the path its
// CodeView entry names; a PDB found on disk counts only when its id is the one the assembly
// was built with, so a stale PDB never puts lines on the wrong code.

import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { Table } from '../../../structs/formats/portable-pdb/metadata.js';
import { PeFile } from '../../../structs/formats/portable-pdb/pe-file.js';
import { PortablePdb } from '../../../structs/formats/portable-pdb/portable-pdb.js';

// Assemblies and PDBs are megabytes at most; anything far larger is not one.
const MAX_BYTES = 512 * 1024 * 1024;

export interface LocatedPdb {
  pdb: PortablePdb;
  /** 'embedded', or the path of the PDB file used. */
  source: string;
}

function readSmall(path: string): Uint8Array | null {
  try {
    if (statSync(path).size > MAX_BYTES) return null;
    return readFileSync(path);
  } catch {
    return null;
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function sameGuid(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The PDB of the assembly at `assemblyPath`, or a sentence saying why there is none (the
 * caller shows it once per module, and lines stay unknown for its frames). With `mvid` (32
 * hex digits, as a recording's MODULE has it), an assembly of another build is refused.
 */
export function locatePdb(assemblyPath: string, mvid = ''): LocatedPdb | string {
  const bytes = readSmall(assemblyPath);
  if (bytes === null) return `${assemblyPath} cannot be read, so its source lines are unknown.`;
  let pe: PeFile;
  try {
    pe = new PeFile(bytes);
    // The recording names the build it ran (the module's MVID): a file rebuilt since is another.
    if (/[1-9a-f]/i.test(mvid) && hex(pe.metadata.guid(pe.metadata.cell(Table.Module, 1, 2))) !== mvid.toLowerCase()) {
      return `${assemblyPath} is another build than the one recorded, so its source lines are unknown.`;
    }
    const embedded = pe.embeddedPdb();
    if (embedded !== null) return { pdb: new PortablePdb(inflateRawSync(embedded.compressed, { maxOutputLength: Math.max(embedded.size, 1) })), source: 'embedded' };
  } catch (err) {
    return `${assemblyPath}: ${(err as Error).message}`;
  }
  const codeView = pe.codeView();
  const candidates = [join(dirname(assemblyPath), `${basename(assemblyPath).replace(/\.(dll|exe)$/i, '')}.pdb`)];
  if (codeView !== null && codeView.path !== '') {
    candidates.push(join(dirname(assemblyPath), basename(codeView.path.replace(/\\/g, '/'))), codeView.path);
  }
  let mismatch = false;
  for (const path of candidates) {
    const pdbBytes = readSmall(path);
    if (pdbBytes === null) continue;
    try {
      const pdb = new PortablePdb(pdbBytes);
      if (codeView !== null && !sameGuid(codeView.guid, pdb.guid)) {
        mismatch = true;
        continue;
      }
      return { pdb, source: path };
    } catch {
      continue;
    }
  }
  return mismatch
    ? `The PDB beside ${assemblyPath} belongs to another build of it, so its source lines are unknown.`
    : `No portable PDB was found for ${assemblyPath} (embedded or beside it), so its source lines are unknown.`;
}
