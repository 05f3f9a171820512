// Saves a heap snapshot as a .clrheap file part by part (structs/formats/clrheap/clrheap-file.ts
// hands the columns over as views), so saving 10 M objects costs no 270 MB copy of them.

import { closeSync, openSync, writeSync } from 'node:fs';
import { clrheapParts, type ClrheapInfo } from '../../../structs/formats/clrheap/clrheap-file.js';
import type { HeapSnapshot } from '../../../structs/heap/heap-snapshot.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { UserError } from '../errors/user-error.js';

export function writeHeapFile(path: string, snap: HeapSnapshot, info: ClrheapInfo = {}): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w', 0o644);
    for (const part of clrheapParts(snap, info)) {
      let at = 0;
      while (at < part.length) at += writeSync(fd, part, at, part.length - at);
    }
  } catch (err) {
    throw new UserError(`Cannot write ${path}: ${fsErrorText(err, path, 'write')}.`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
