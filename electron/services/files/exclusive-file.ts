// Files clrscope creates are created, never reused: O_EXCL so a file (or a link) someone put
// there first makes the open fail instead of being written through, O_NOFOLLOW so the last
// part of the path is never a symbolic link, and names with a random part so another local
// user cannot guess them in advance.

import { randomBytes } from 'node:crypto';
import { constants, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

// Node opens every file close-on-exec already.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Creates `path` for writing; fails with EEXIST when anything, a link included, is already there. */
export function createExclusive(path: string, mode = 0o600): Promise<FileHandle> {
  return open(path, CREATE_FLAGS, mode);
}

/** createExclusive, synchronously; returns the descriptor. */
export function createExclusiveSync(path: string, mode = 0o600): number {
  return openSync(path, CREATE_FLAGS, mode);
}

/** A short random tag for a temporary name (12 hex digits). */
export function randomTag(): string {
  return randomBytes(6).toString('hex');
}
