// Writes a session's recording in an export format through the recording-file writers (the
// same ones `clrscope convert` uses: atomic, in pieces, one sentence on failure), reporting
// their progress, plus the file names exports get when the user names none.

import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { EXPORT_EXTENSIONS, type CountersPoint, type ExportFormat, type ExportResult } from '../../../structs/api/contract.js';
import type { StackThreadSums } from '../../../structs/profile/aggregate.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { writeRecordingFile } from '../export/recording-file.js';
import { formatOfPath, recordingFormat } from '../../../structs/formats/registry.js';
import { UserError } from '../errors/user-error.js';
import { folderErrorText } from '../errors/fs-error-text.js';
import { ensurePrivateDir, NotPrivateError, privateTempDir } from '../files/private-dir.js';

/** Where exports go by default: <tmpdir>/clrscope-exports-<uid>, or a fresh private folder when another user holds that name. */
export function defaultExportsDir(): Promise<string> {
  return privateTempDir('clrscope-exports');
}

/** A file name for a session's export: its label reduced to safe characters, the session id and the time. */
export function defaultExportName(label: string, sessionId: string, format: ExportFormat, now = new Date()): string {
  // The program's own name: the .dll or .exe a host runs ("dotnet …/Scenarios.dll"), else the
  // first word. Quoted paths with spaces are split too; their last part still ends in .dll.
  const words = label.split(/\s+/).map((w) => w.replace(/['"]/g, '')).filter((w) => w !== '');
  const program = words.find((w) => /\.(dll|exe)$/i.test(w)) ?? words[0] ?? '';
  // A file session's label is the file's name: its recording extension goes too.
  const name = basename(program.replace(/\\/g, '/')).replace(/\.(dll|exe|clrscope|nettrace|pb\.gz|pb|pprof|speedscope\.json)$/i, '');
  const slug = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._-]+/, '').slice(0, 60) || 'recording';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${slug}-${sessionId}-${stamp}${EXPORT_EXTENSIONS[format]}`;
}

export type ExportProgress = (done: number, total: number) => void;

/** The sentence for an export path whose extension names another format than the one asked for, or undefined when they agree. */
export function exportPathMismatch(format: ExportFormat, path: string): string | undefined {
  if (formatOfPath(path, 'write') === format) return undefined;
  const exts = recordingFormat(format).write;
  const list = exts.length === 1 ? exts[0] : `${exts.slice(0, -1).join(', ')} or ${exts[exts.length - 1]}`;
  return `The export path must end in ${list} for the ${format} format, not ${JSON.stringify(basename(path))}.`;
}

/**
 * Writes `rec` as `format` at `path`; .clrscope files keep `counters` and `heapSnapshots` too; `summed`: its samples
 * summed for pprof when `rec` keeps none. Progress starts at
 * 0 of 1, then follows the writer (samples written of the total).
 */
export async function writeExport(rec: Recording, counters: readonly CountersPoint[], format: ExportFormat, path: string, progress: ExportProgress, summed?: StackThreadSums, stop?: () => void, heapSnapshots?: readonly Uint8Array[]): Promise<ExportResult> {
  const mismatch = exportPathMismatch(format, path);
  if (mismatch !== undefined) throw new UserError(mismatch);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UserError(`Cannot write ${path}: it is a folder.`);
  let last = '';
  const report = (done: number, total: number): void => {
    // Writers may repeat a step (pprof starts at 0 of 1 too): each one is reported once.
    const key = `${done}/${total}`;
    if (key === last) return;
    last = key;
    progress(done, total);
  };
  report(0, 1);
  const bytes = await writeRecordingFile(path, rec, counters, { progress: (_step, done, total) => report(done, total), summed, stop, heapSnapshots });
  return { path, bytes };
}

/**
 * The exports folder, created when needed and checked to be this user's alone (a folder
 * another user made, or one anybody can write to, is not used); one sentence when it cannot be.
 */
export async function ensureExportsDir(dir: string): Promise<string> {
  try {
    return await ensurePrivateDir(dir);
  } catch (err) {
    if (err instanceof NotPrivateError) throw new UserError(`Cannot use the exports folder ${err.message}.`);
    throw new UserError(`Cannot create the exports folder ${dir}: ${folderErrorText(err, dir)}.`);
  }
}
