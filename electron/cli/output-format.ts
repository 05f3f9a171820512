// Which file format an output path asks for, and whether it can be written, before anything
// is launched: a recording must never be lost to a typo in -o.

import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { extensionList, formatOfPath, type RecordingFileFormat } from '../services/export/recording-formats.js';
import { UserError } from '../services/session/user-error.js';

export type OutputFormat = RecordingFileFormat;

export function outputFormatOf(path: string): OutputFormat {
  const format = formatOfPath(path, 'write');
  if (format === undefined) throw new UserError(`Unknown output format for ${path}: use a ${extensionList('write')} file name.`);
  return format;
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'the directory does not exist',
};

/** Opens the file for appending (never truncating) and removes it again if it did not exist: the only check that also holds for root and read-only mounts. */
export function checkWritable(path: string): void {
  const full = resolve(path);
  let existed = true;
  try {
    statSync(full);
  } catch {
    existed = false;
  }
  try {
    closeSync(openSync(full, 'a'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = REASONS[code] ?? (err as Error).message;
    const where = code === 'ENOENT' ? ` (${dirname(full)})` : '';
    throw new UserError(`Cannot write ${path}: ${why}${where}.`);
  }
  if (!existed) unlinkSync(full);
}
