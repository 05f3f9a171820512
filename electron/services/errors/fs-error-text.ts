// File system errors as the end of one sentence ("Cannot read x: no such file."), so the
// user reads what went wrong rather than an errno.

import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  EFBIG: 'the file would be larger than this process may write (ulimit -f) or the file system allows',
  EEXIST: 'a file of that name appeared while clrscope was writing it',
  ELOOP: 'it is a symbolic link, which clrscope does not write through',
  EIO: 'the disk reported an input/output error',
};

export function fsErrorText(err: unknown, path: string, direction: 'read' | 'write'): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ENOENT') {
    if (direction === 'read') return 'no such file';
    // A folder that exists but takes no new files (/proc, /sys) answers ENOENT too.
    return existsSync(dirname(path)) ? `files cannot be created in ${dirname(path)}` : `the folder ${dirname(path)} does not exist`;
  }
  return REASONS[code] ?? (err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '');
}
