// Writes a session's recording in an export format, reporting progress in steps, and turns any
// failure into one sentence. Writes next to the target and renames, so a failure never leaves
// half a file under the name the user asked for.

import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { EXPORT_EXTENSIONS, type ExportFormat, type ExportResult } from '../../../structs/api/contract.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { buildPprofProfile } from '../export/pprof.js';
import { UserError } from '../session/user-error.js';

const gzipAsync = promisify(gzip);

export function defaultExportsDir(): string {
  return join(tmpdir(), 'clrscope-exports');
}

/** A file name for a session's export: its label reduced to safe characters, the session id and the time. */
export function defaultExportName(label: string, sessionId: string, format: ExportFormat, now = new Date()): string {
  // The program's own name: the .dll or .exe a host runs ("dotnet …/Scenarios.dll"), else the
  // first word. Quoted paths with spaces are split too; their last part still ends in .dll.
  const words = label.split(/\s+/).map((w) => w.replace(/['"]/g, '')).filter((w) => w !== '');
  const program = words.find((w) => /\.(dll|exe)$/i.test(w)) ?? words[0] ?? '';
  const name = basename(program.replace(/\\/g, '/')).replace(/\.(dll|exe)$/i, '');
  const slug = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._-]+/, '').slice(0, 60) || 'recording';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${slug}-${sessionId}-${stamp}${EXPORT_EXTENSIONS[format]}`;
}

export type ExportProgress = (done: number, total: number) => void;

/** The steps of a pprof export: build the profile, encode it, compress it, write it. */
export const PPROF_STEPS = 4;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function writeFailure(path: string, err: unknown): UserError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? `the folder ${dirname(path)} does not exist`
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
      : code === 'EISDIR' ? 'it is a folder'
        : code === 'ENOSPC' ? 'the disk is full'
          : code === 'EROFS' ? 'the file system is read-only'
            : (err as Error).message.replace(/[.\s]+$/, '');
  return new UserError(`Cannot write ${path}: ${why}.`);
}

export async function writeExport(rec: Recording, format: ExportFormat, path: string, progress: ExportProgress): Promise<ExportResult> {
  if (format !== 'pprof') throw new UserError(`Exporting as ${String(format)} is not supported yet.`);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UserError(`Cannot write ${path}: it is a folder.`);
  progress(0, PPROF_STEPS);
  await nextTurn();
  const profile = buildPprofProfile(rec);
  progress(1, PPROF_STEPS);
  await nextTurn();
  const encoded = profile.encode();
  progress(2, PPROF_STEPS);
  const bytes = await gzipAsync(encoded);
  progress(3, PPROF_STEPS);
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  try {
    await writeFile(partial, bytes);
    await rename(partial, path);
  } catch (err) {
    await unlink(partial).catch(() => undefined);
    throw writeFailure(path, err);
  }
  progress(4, PPROF_STEPS);
  return { path, bytes: bytes.length };
}

/** The exports folder, created when needed; one sentence when it cannot be. */
export async function ensureExportsDir(dir: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new UserError(`Cannot create the exports folder ${dir}: ${(err as Error).message.replace(/[.\s]+$/, '')}.`);
  }
  return dir;
}
