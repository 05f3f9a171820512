// Writes a file from pieces next to its final name and renames it into place at the end, so
// a failure (full disk, a file size limit, Ctrl-C, a bad recording) never leaves half a file
// under the name the user asked for, and a file of any size is written without holding it
// whole. The temporary file is created exclusively under a name with a random part and never
// through a link, owner-only (files/exclusive-file.ts), and every write's byte count is checked.

import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { createExclusive, randomTag } from '../files/exclusive-file.js';
import { writeAll } from '../files/write-all.js';
import { fsErrorText } from '../errors/fs-error-text.js';

export type Piece = Uint8Array | string;

/** The hidden name a file is written under before it is renamed; the extension stays last for tools that look at it. */
export function partialPathFor(path: string): string {
  const ext = extname(path);
  return join(dirname(path), `.${basename(path, ext)}.partial-${process.pid}-${randomTag()}${ext}`);
}

/** Exit code of a save that failed for a reason of the file system (sysexits' EX_IOERR). */
export const SAVE_FAILED_EXIT_CODE = 74;

/**
 * Writes `pieces` to `path`; returns the byte count. Errors of the file system become one
 * sentence. `stop`, asked before each piece, ends the write by throwing (the partial file goes).
 */
export async function writeFileAtomically(path: string, pieces: Iterable<Piece> | AsyncIterable<Piece>, stop?: () => void): Promise<number> {
  const partial = partialPathFor(path);
  let bytes = 0;
  let phase: 'write' | 'produce' = 'write';
  let created = false;
  try {
    const handle = await createExclusive(partial);
    created = true;
    try {
      const iterator = (Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]()) as AsyncIterator<Piece> | Iterator<Piece>;
      for (;;) {
        phase = 'produce';
        stop?.();
        const next = await iterator.next();
        phase = 'write';
        if (next.done === true) break;
        const data = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
        await writeAll(handle, data);
        bytes += data.length;
      }
    } finally {
      await handle.close();
    }
    await rename(partial, path);
    return bytes;
  } catch (err) {
    if (created) await unlink(partial).catch(() => undefined);
    // Errors of the code producing the pieces are not file system errors: they pass through.
    if (phase === 'produce' || err instanceof UserError) throw err;
    throw new UserError(`Cannot write ${path}: ${fsErrorText(err, path, 'write')}.`, SAVE_FAILED_EXIT_CODE);
  }
}
