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

/**
 * Why a folder clrscope keeps files in (`folder`) cannot be made or used, as the end of a
 * sentence that names the part at fault: "/mnt/ro is on a read-only file system", "/home/me/.cache
 * is not a folder". A failure to create something (mkdir, open) is about the folder it was to be
 * created in.
 */
export function folderErrorText(err: unknown, folder: string): string {
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? '';
  const creating = e.syscall === 'mkdir' || e.syscall === 'open';
  const at = e.path === undefined ? folder : creating ? dirname(e.path) : e.path;
  switch (code) {
    case 'ENOTDIR':
      return `${e.path ?? folder} is not a folder`;
    case 'EROFS':
      return `${at} is on a read-only file system`;
    case 'EACCES':
    case 'EPERM':
      return creating ? `permission denied to create anything in ${at}` : `permission denied for ${at}`;
    case 'ENOENT':
      return `${at} does not exist`;
    default:
      return `${at}: ${REASONS[code] ?? (err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '')}`;
  }
}
