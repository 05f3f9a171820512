// Saves a heap snapshot in the format its name asks for (.clrheap, clrscope's own; .gcdump, for
// PerfView, Visual Studio and dotnet-gcdump), part by part (the formats hand their large columns
// over as views, so saving 10 M objects costs no copy of them), through the atomic writer: a
// fresh owner-only file beside the output, renamed into place once whole.

import { heapOutputFormatOf, HEAP_OUTPUTS } from '../../../structs/heap/heap-formats.js';
import type { HeapFileInfo } from '../../../structs/heap/heap-file-format.js';
import type { HeapSnapshot } from '../../../structs/heap/heap-snapshot.js';
import { writeFileAtomically } from '../export/atomic-file.js';
import { UserError } from '../errors/user-error.js';

/** The extensions a snapshot can be saved with, for messages: ".clrheap or .gcdump". */
export const HEAP_OUTPUT_NAMES = HEAP_OUTPUTS.map((f) => f.read[0]).join(' or ');

export async function writeHeapFile(path: string, snap: HeapSnapshot, info: HeapFileInfo = {}): Promise<void> {
  const format = heapOutputFormatOf(path);
  if (format?.parts === undefined) throw new UserError(`A heap snapshot is saved as ${HEAP_OUTPUT_NAMES}, which ${path} does not end in.`);
  let parts: Uint8Array[];
  try {
    parts = format.parts(snap, info);
  } catch (err) {
    throw new UserError(`Cannot save the snapshot as ${format.name}: ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}.`);
  }
  await writeFileAtomically(path, parts);
}
