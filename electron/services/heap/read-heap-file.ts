// Reading a heap snapshot file of any heap format (structs/heap/heap-formats.ts), for the CLI's
// `heap` command and the workstation's heap worker alike.

import { readFileSync } from 'node:fs';
import { heapFormatOf, HEAP_FORMATS } from '../../../structs/heap/heap-formats.js';
import type { HeapSnapshot } from '../../../structs/heap/heap-snapshot.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { UserError } from '../errors/user-error.js';

/** Reads a heap snapshot file; every failure is one sentence. */
export function readHeapFile(path: string): HeapSnapshot {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new UserError(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
  const format = heapFormatOf(path, bytes.subarray(0, 64));
  if (format === undefined) {
    throw new UserError(`${path} is not a heap snapshot clrscope reads (${HEAP_FORMATS.map((f) => f.read.join(', ')).join(', ')}).`);
  }
  try {
    return format.reader(bytes);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UserError(`Cannot read ${path} as ${format.name}: ${message.replace(/\.$/, '')}.`);
  }
}

