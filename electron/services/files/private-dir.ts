// Folders clrscope keeps files in (the spool, default exports) must be its user's alone:
// a folder another local user made, or one anybody can write to, would let that user plant
// links or read recordings. Each is checked after creating it, on the folder itself (lstat:
// a link to a folder is refused, not followed), for owner and mode.

import { chmod, lstat, mkdtemp } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { folderErrorText } from '../errors/fs-error-text.js';
import { makeFolders } from './make-folders.js';

/** A folder that exists but cannot be used as a private one; its message is a sentence's end. */
export class NotPrivateError extends Error {
  constructor(readonly path: string, readonly why: string) {
    super(`${path} ${why}`);
    this.name = 'NotPrivateError';
  }
}

const uid = (): number | undefined => process.getuid?.();

/** Why ensurePrivateDir(folder) failed, as the end of a sentence. */
export function privateDirProblem(err: unknown, folder: string): string {
  return err instanceof NotPrivateError ? err.message : folderErrorText(err, folder);
}

/**
 * Creates `path` (mode 0700, parents as needed) unless it exists, then checks it is a real
 * folder (not a link) owned by this user; one of ours that others may enter is tightened to
 * 0700. Throws NotPrivateError when it belongs to someone else or is not a folder.
 */
export async function ensurePrivateDir(path: string): Promise<string> {
  await makeFolders(path, 0o700);
  const s = await lstat(path);
  if (s.isSymbolicLink()) throw new NotPrivateError(path, 'is a symbolic link, not a folder');
  if (!s.isDirectory()) throw new NotPrivateError(path, 'is not a folder');
  const me = uid();
  if (me !== undefined && s.uid !== me) throw new NotPrivateError(path, `belongs to another user (uid ${s.uid})`);
  if (me !== undefined && (s.mode & 0o077) !== 0) await chmod(path, 0o700);
  return path;
}

/**
 * A private folder under the temp folder named `<prefix>-<uid>`, the same on every run; when
 * that name is taken by another user (or is a link), a fresh random one instead.
 */
export async function privateTempDir(prefix: string): Promise<string> {
  const me = uid();
  const fixed = join(tmpdir(), me === undefined ? prefix : `${prefix}-${me}`);
  try {
    return await ensurePrivateDir(fixed);
  } catch (err) {
    if (!(err instanceof NotPrivateError) && (err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // mkdtemp creates a new folder, mode 0700, under a name nobody could have planted.
    return mkdtemp(`${fixed}-`);
  }
}

/** The user's cache folder for clrscope: $XDG_CACHE_HOME/clrscope, else ~/.cache/clrscope (not created here). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  return join(base, 'clrscope');
}
