// mkdir -p that says what is really wrong. Node's recursive mkdir answers ENOENT ("does not
// exist") when a folder cannot be made on a read-only file system, and ENOTDIR without saying
// which part of the path is a file. Here each missing folder is made by a plain mkdir, so its
// own error (EROFS, EACCES, ENOSPC) comes back with the path that failed, and a file where a
// folder should be is named.

import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const missing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  // ENOTDIR: a part above is a file; the walk up finds which.
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/**
 * Makes `path` and the folders above it that are missing, each with `mode`. Whatever is at
 * `path` itself is left for the caller to judge (a file or a link there is not an error here).
 * Errors carry the path they are about; one above `path` that is not a folder is ENOTDIR.
 */
export async function makeFolders(path: string, mode: number): Promise<void> {
  const target = resolve(path);
  const toMake: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    let found;
    try {
      found = await stat(at);
    } catch (err) {
      if (!missing(err)) throw err;
    }
    if (found !== undefined) {
      if (at !== target && !found.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a folder, ${at}`), { code: 'ENOTDIR', syscall: 'stat', path: at });
      }
      break;
    }
    toMake.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of toMake.reverse()) {
    try {
      await mkdir(folder, { mode });
    } catch (err) {
      // Made meanwhile by someone else: the caller checks what it is.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
