// Files clrscope creates are created, never reused: O_EXCL so a file (or a link) someone put
// there first makes the open fail instead of being written through, O_NOFOLLOW so the last
// part of the path is never a symbolic link, and names with a random part so another local
// user cannot guess them in advance. Every one is its owner's alone (0600): a recording holds
// method names, command lines and thread names of the program profiled, so no output, spool
// or temporary file is ever readable by other users, whatever the umask or the file system
// it lands on. This is the only place clrscope creates a file.

import { randomBytes } from 'node:crypto';
import { constants, fchmodSync, fstatSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

// Node opens every file close-on-exec already.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The mode of every file clrscope creates. */
export const OWNER_ONLY = 0o600;

/** Creates `path` owner-only for writing; fails with EEXIST when anything, a link included, is already there. */
export async function createExclusive(path: string): Promise<FileHandle> {
  const handle = await open(path, CREATE_FLAGS, OWNER_ONLY);
  try {
    await settleMode(handle.fd);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

/** createExclusive, synchronously; returns the descriptor. */
export function createExclusiveSync(path: string): number {
  const fd = openSync(path, CREATE_FLAGS, OWNER_ONLY);
  settleMode(fd);
  return fd;
}

/**
 * Makes an open file owner-only. A umask can only take bits away from 0600 (then the owner may
 * lack one), and a file made by another program (the .etlx converter's output) has the mode
 * that program chose. A file system without modes (FAT, some network mounts) refuses the
 * change; what it shows is its mount's business, not something clrscope could tighten.
 */
export function settleMode(fd: number): void {
  if ((fstatSync(fd).mode & 0o777) === OWNER_ONLY) return;
  try {
    fchmodSync(fd, OWNER_ONLY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  }
}

/** A short random tag for a temporary name (12 hex digits). */
export function randomTag(): string {
  return randomBytes(6).toString('hex');
}
