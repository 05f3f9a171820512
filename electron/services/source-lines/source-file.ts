// Reads a source file for the source panel, on the main process's side of the sandbox: only a
// file the recording's PDBs name (the caller checks), by that exact absolute path; the file
// itself may not be a symbolic link (O_NOFOLLOW: a link planted in a source tree must not lead
// the panel to another file); a regular file (not a FIFO, a device or a folder); at most
// MAX_SOURCE_FILE_BYTES; UTF-8. Every refusal is one sentence the panel shows above the
// per-line figures, which stand without the text.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { MAX_SOURCE_FILE_BYTES } from '../../../structs/api/contract.js';
import { fsErrorText } from '../errors/fs-error-text.js';

/** The text, with a sentence when it is not the text the recorded build was compiled from. */
export type SourceFileRead = { text: string; warning?: string } | { message: string };

/** The checksum a PDB keeps of a document (the compiler's hash of its bytes). */
export interface DocumentHash {
  algorithm: 'sha1' | 'sha256';
  hash: Uint8Array;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function readSourceFile(path: string, maxBytes = MAX_SOURCE_FILE_BYTES, expected: DocumentHash | null = null): SourceFileRead {
  // A path the compiler wrote on another machine (C:\src\..., a deterministic build's /_/...).
  if (!isAbsolute(path) || path.startsWith('/_/')) return { message: `${path} is not a path on this machine, so only its lines' figures are shown.` };
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO the PDB happens to name must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { message: `${path} is not on this machine, so only its lines' figures are shown.` };
    if (code === 'ELOOP') return { message: `${path} is a symbolic link; clrscope shows only the file the PDB names, not one a link leads to.` };
    return { message: `${path} cannot be read (${fsErrorText(err, path, 'read')}), so only its lines' figures are shown.` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { message: `${path} is not a regular file, so it is not shown.` };
    if (st.size > maxBytes) return { message: `${path} is ${mib(st.size)}; the source panel shows files up to ${mib(maxBytes)}.` };
    // One byte more than allowed: a file that grew since fstat is caught, not cut short.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
      if (got === buf.length) break;
    }
    if (got > maxBytes) return { message: `${path} is larger than ${mib(maxBytes)}; the source panel shows files up to that.` };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, got));
    } catch {
      return { message: `${path} is not UTF-8 text, so it is not shown.` };
    }
    if (text.includes('\u0000')) return { message: `${path} holds binary data, not source text, so it is not shown.` };
    if (expected !== null && !createHash(expected.algorithm).update(buf.subarray(0, got)).digest().equals(expected.hash)) {
      return { text, warning: `${path} changed since the recorded build was compiled from it, so its lines may not match the figures.` };
    }
    return { text };
  } catch (err) {
    return { message: `${path} cannot be read (${fsErrorText(err, path, 'read')}), so only its lines' figures are shown.` };
  } finally {
    closeSync(fd);
  }
}
