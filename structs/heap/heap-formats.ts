// Every heap snapshot file format clrscope reads, picked by content first, extension second; a
// .clrscope recording is one when it keeps heap snapshots (HEAP_SNAPSHOT records).

import { clrheapFormat } from '../formats/clrheap/format.js';
import { gcdumpFormat } from '../formats/gcdump/format.js';
import { clrscopeHeapFormat } from '../formats/clrscope-file/heap-format.js';
import type { HeapFileFormat } from './heap-file-format.js';

export const HEAP_FORMATS: readonly HeapFileFormat[] = [clrheapFormat, gcdumpFormat, clrscopeHeapFormat];

/** The format of a file from its first bytes, else from its name; undefined when neither says. */
export function heapFormatOf(path: string, head: Uint8Array): HeapFileFormat | undefined {
  const lower = path.toLowerCase();
  return HEAP_FORMATS.find((f) => f.sniff(head)) ?? HEAP_FORMATS.find((f) => f.read.some((ext) => lower.endsWith(ext)));
}

/** The formats a snapshot can be saved as, each with its extension. */
export const HEAP_OUTPUTS = HEAP_FORMATS.filter((f) => f.parts !== undefined);

/** The format to save a snapshot as, from the output's name; undefined when no written format has that extension. */
export function heapOutputFormatOf(path: string): HeapFileFormat | undefined {
  const lower = path.toLowerCase();
  return HEAP_OUTPUTS.find((f) => f.read.some((ext) => lower.endsWith(ext)));
}
