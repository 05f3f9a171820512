// Reads and writes recording files in every format of structs/formats/registry.ts, readers
// picked by the file's first bytes and then by extension, writers by extension: the file-system
// half of the pure codecs in structs/formats. .clrscope and .nettrace files are
// streamed both ways (any size; memory bounded by the model); pprof and speedscope are parsed
// whole, within limits that turn an impossible load into a sentence instead of a crash.

import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import type { SpeedscopeMetric } from '../../../structs/formats/speedscope/to-speedscope.js';
import { Recording } from '../../../structs/profile/recording.js';
import { checkRecording } from '../../../structs/profile/check-recording.js';
import { FILE_READ_LIMITS, ImportBudgetError, MAX_SUMMED_SAMPLES, samplesClause } from '../../../structs/profile/read-budget.js';
import { UserError } from '../errors/user-error.js';
import { writeFileAtomically } from './atomic-file.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { HOST_WRITERS } from './host-writers.js';
import { StackThreadSums } from '../../../structs/profile/aggregate.js';
import { PdbLines } from '../source-lines/pdb-lines.js';
import type { FrameLines } from '../../../structs/profile/frame-lines.js';
import { extensionList, formatOfPath, recordingFormat, SNIFF_BYTES, sniffFormat, type RecordingFileFormat } from '../../../structs/formats/registry.js';
import { clause } from '../../../structs/text/clause.js';

export type FileProgress = (step: 'reading' | 'writing', done: number, total: number) => void;

export interface OpenedRecordingFile {
  format: RecordingFileFormat;
  recording: Recording;
  /** The counters time series; only .clrscope files carry one. */
  counters: CountersPoint[];
  /** With ReadOptions.summed, for a .clrscope file: its samples summed per stack and thread, which `recording` then does not keep. */
  sums?: StackThreadSums;
}

export interface ReadOptions {
  /**
   * A .clrscope file's samples summed per stack and thread as they are read instead of kept
   * (for a pprof writer: a file of any length costs its sums and definitions). Other formats
   * are read whole as ever.
   */
  summed?: boolean;
}

const CHUNK = 1 << 20;
const MIB = 1 << 20;

/** An input that does not parse, as one sentence; errors that look like a reader's own bug say so. */
function unreadable(path: string, format: RecordingFileFormat, err: unknown): UserError {
  if (err instanceof UserError) return err;
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().replace(/[.\s]+$/, '');
  const bug = err instanceof TypeError || err instanceof ReferenceError;
  return new UserError(`Cannot read ${path}: ${clause(message)}${bug ? ` (this may be a bug in clrscope's ${recordingFormat(format).name} reader; please report it)` : ''}.`);
}

/**
 * The format of the file at `path`: what its first bytes say, else what its extension says (a
 * file that cannot be read yet is named by its extension; reading it says what is wrong).
 */
export function readFormatOf(path: string): RecordingFileFormat {
  if (path.trim() === '') throw new UserError('The input file name is empty.');
  const format = contentFormatOf(path) ?? formatOfPath(path, 'read');
  if (format === undefined) throw new UserError(`Unknown input format for ${path}: use a ${extensionList('read')} file.`);
  return format;
}

/** The readable format the file's first bytes say it is; undefined when none does or it cannot be read. */
export function contentFormatOf(path: string): RecordingFileFormat | undefined {
  const head = headOf(path);
  return head === undefined ? undefined : sniffFormat(head);
}

/** The file's first bytes, when it is a regular file that opens (a FIFO would block the open). */
function headOf(path: string): Uint8Array | undefined {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return undefined;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(SNIFF_BYTES);
    return head.subarray(0, readSync(fd, head, 0, SNIFF_BYTES, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Throws one sentence when a format cannot be used here, before any work that would be wasted
 * (a recording made only to fail at the end): a writer of the host's (.etlx's converter) may
 * need something built. Every other format is pure code and always available.
 */
export async function checkFormatAvailable(format: RecordingFileFormat, direction: 'read' | 'write'): Promise<void> {
  if (direction !== 'write') return;
  await HOST_WRITERS[format]?.checkAvailable();
}

async function sizeOf(path: string): Promise<number> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    // A FIFO, a device or a socket has no end to read to (or never opens): only files are recordings.
    if (!s.isFile()) throw new UserError(`Cannot read ${path}: it is not a regular file.`);
    return s.size;
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
}

/** Streams the file through `onChunk`; file system errors and parse errors each become one sentence. */
async function forEachChunk(path: string, format: RecordingFileFormat, size: number, progress: FileProgress | undefined, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<void> {
  const stream = createReadStream(path, { highWaterMark: CHUNK });
  let done = 0;
  let parseError: unknown;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      try {
        await onChunk(chunk);
      } catch (err) {
        parseError = err;
        break;
      }
      done += chunk.length;
      progress?.('reading', done, size);
    }
  } catch (err) {
    throw new UserError(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
  if (parseError !== undefined) throw unreadable(path, format, parseError);
}

function tooLarge(path: string, format: RecordingFileFormat, size: number, limit: number): UserError {
  return new UserError(`Cannot read ${path}: it is ${(size / MIB).toFixed(1)} MiB, and ${recordingFormat(format).name} files are read whole, up to ${(limit / MIB).toFixed(0)} MiB.`);
}

async function readWhole(path: string, format: RecordingFileFormat, size: number, limit: number, progress: FileProgress | undefined): Promise<Buffer> {
  if (size > limit) throw tooLarge(path, format, size, limit);
  // One buffer of the file's size, filled as pieces arrive: joining the pieces at the end held
  // the file twice (200 MB for a 100 MB speedscope file).
  let whole = Buffer.allocUnsafe(size);
  let filled = 0;
  await forEachChunk(path, format, size, progress, (c) => {
    if (filled + c.length > whole.length) {
      // The file grew while it was read: keep reading, within the limit.
      if (filled + c.length > limit) throw new Error(`it grew past ${(limit / MIB).toFixed(0)} MiB while it was read`);
      const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(filled + c.length, whole.length * 2)));
      whole.copy(grown, 0, 0, filled);
      whole = grown;
    }
    whole.set(c, filled);
    filled += c.length;
  });
  return whole.subarray(0, filled);
}

export async function readRecordingFile(path: string, progress?: FileProgress, options: ReadOptions = {}): Promise<OpenedRecordingFile> {
  const format = readFormatOf(path);
  await checkFormatAvailable(format, 'read');
  const size = await sizeOf(path);
  if (format === 'clrscope' && options.summed === true) return readClrscopeSummed(path, size, progress);
  const reader = recordingFormat(format).reader;
  if (reader === undefined) throw new UserError(`Cannot read ${path}: clrscope writes ${recordingFormat(format).name} files but does not read them.`);
  if (reader.kind === 'chunked') {
    const chunked = reader.open();
    await forEachChunk(path, format, size, progress, (c) => chunked.push(c));
    try {
      return { format, ...chunked.finish() };
    } catch (err) {
      throw unreadable(path, format, err);
    }
  }
  const bytes = await readWhole(path, format, size, reader.limit, progress);
  try {
    return { format, recording: reader.parse(reader.gzipped ? gunzipIfNeeded(bytes, reader.limit) : bytes), counters: [] };
  } catch (err) {
    throw unreadable(path, format, err);
  }
}

/** A .clrscope file's samples summed per stack and thread as they are read (ReadOptions.summed). */
async function readClrscopeSummed(path: string, size: number, progress: FileProgress | undefined): Promise<OpenedRecordingFile> {
  const sums = new StackThreadSums();
  const reader = new RecordingFileReader(new Recording({ keepSamples: 'recent', limits: FILE_READ_LIMITS }));
  const fold = (): void => {
    // Memory stays flat when samples are summed; their decoding is what a budget bounds then.
    if (reader.recording.sampleCount > MAX_SUMMED_SAMPLES) throw new ImportBudgetError(samplesClause('it', MAX_SUMMED_SAMPLES));
    sums.add(reader.recording.recentSamples().columns);
    reader.recording.releaseSamples();
  };
  await forEachChunk(path, 'clrscope', size, progress, (c) => {
    reader.push(c);
    fold();
  });
  try {
    const opened = reader.finish();
    fold();
    return { format: 'clrscope', ...opened, sums };
  } catch (err) {
    throw unreadable(path, 'clrscope', err);
  }
}

/**
 * A .clrscope file's own bytes handed to `onChunk` a piece at a time as they are read and
 * checked, its samples counted but not kept: the workstation's Open, where the file is the
 * session's stream, so a recording of any length costs its model, not its samples. Returns its
 * counters; throws one sentence on a file that is not a whole, readable recording.
 */
export async function passClrscopeFile(path: string, progress: FileProgress | undefined, onChunk: (chunk: Uint8Array) => Promise<void>): Promise<{ counters: CountersPoint[] }> {
  const size = await sizeOf(path);
  const reader = new RecordingFileReader(new Recording({ keepSamples: false, limits: FILE_READ_LIMITS }));
  await forEachChunk(path, 'clrscope', size, progress, async (c) => {
    reader.push(c);
    // Not kept, samples cost only their decoding: here and again in the workstation's model.
    if (reader.recording.sampleCount > MAX_SUMMED_SAMPLES) throw new ImportBudgetError(samplesClause('it', MAX_SUMMED_SAMPLES));
    await onChunk(c);
  });
  try {
    return { counters: reader.finish().counters };
  } catch (err) {
    throw unreadable(path, 'clrscope', err);
  }
}

function gunzipIfNeeded(bytes: Buffer, limit: number): Uint8Array {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    // Bounded while it decompresses: a small file can expand a thousandfold (a gzip bomb).
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new Error(`it decompresses to more than ${limit / 1048576} MiB, more than clrscope reads of a pprof profile`);
    throw new Error(`its gzip data is truncated or corrupt (${(err as Error).message})`);
  }
}

export interface WriteOptions {
  progress?: FileProgress;
  /** speedscope: which profiles to write per thread (default both). */
  metric?: SpeedscopeMetric;
  /** pprof and speedscope: the frames' source lines (default: from the PDBs of the recorded modules, where found). */
  lines?: FrameLines;
  /** Where the recorded process's files are from here, for its source lines (PdbLines). */
  fileRoot?: string;
  /** pprof: the samples already summed, for a recording that does not keep them (PprofOptions.summed). */
  summed?: StackThreadSums;
  /** Asked between pieces; throws to stop the write (a cancelled export), leaving no file. */
  stop?: () => void;
  /** .clrscope: heap snapshots of the recorded process, each a .clrheap file's bytes. */
  heapSnapshots?: readonly Uint8Array[];
}

/**
 * Writes `rec` (and, for .clrscope, its counters) in the format `path`'s extension names, once
 * checkRecording finds it consistent; returns the byte count.
 */
export async function writeRecordingFile(path: string, rec: Recording, counters: readonly CountersPoint[], options: WriteOptions = {}): Promise<number> {
  const format = formatOfPath(path, 'write');
  if (format === undefined) throw new UserError(`Unknown output format for ${path}: use a ${extensionList('write')} file name.`);
  const problems = checkRecording(rec, options.summed);
  if (problems.length > 0) throw new UserError(`Cannot write ${path}: the recording is not consistent (${problems.join('; ')}); this is a bug in clrscope, please report it.`);
  const progress = options.progress;
  const step = (done: number, total: number): void => progress?.('writing', done, total);
  const writer = recordingFormat(format).writer;
  const host = HOST_WRITERS[format];
  if (writer === 'host' && host !== undefined) {
    options.stop?.();
    return host.write(path, rec, step);
  }
  if (writer === undefined || writer === 'host') throw new Error(`clrscope has no writer of ${recordingFormat(format).name} files registered.`);
  const lines = recordingFormat(format).usesLines === true ? options.lines ?? new PdbLines(options.fileRoot).linesOf(rec) : undefined;
  return writeFileAtomically(path, writer(rec, { counters, progress: step, metric: options.metric, lines, summed: options.summed, heapSnapshots: options.heapSnapshots, gzip: (bytes) => gzipSync(bytes) }), options.stop);
}
