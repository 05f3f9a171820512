// Reads and writes recording files in every format clrscope knows, picked by extension: the
// file-system half of the pure codecs in structs/formats. .clrscope and .nettrace files are
// streamed both ways (any size; memory bounded by the model); pprof and speedscope are parsed
// whole, within limits that turn an impossible load into a sentence instead of a crash.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import { recordingFileChunks } from '../../../structs/formats/clrscope-file/save-recording.js';
import { NettraceReader, nettraceChunks } from '../../../structs/formats/nettrace/index.js';
import { fromPprof, MAX_PPROF_BYTES } from '../../../structs/formats/pprof/from-pprof.js';
import { fromSpeedscope } from '../../../structs/formats/speedscope/from-speedscope.js';
import { speedscopeJsonChunks, type SpeedscopeMetric } from '../../../structs/formats/speedscope/to-speedscope.js';
import { Recording } from '../../../structs/profile/recording.js';
import { FILE_READ_LIMITS, ImportBudgetError, MAX_SUMMED_SAMPLES, samplesClause } from '../../../structs/profile/read-budget.js';
import { UserError } from '../errors/user-error.js';
import { writeFileAtomically } from './atomic-file.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { etlxConverterPath, toEtlx } from './etlx.js';
import { toPprof } from '../../../structs/formats/pprof/to-pprof.js';
import { StackThreadSums } from '../../../structs/profile/aggregate.js';
import { PdbLines } from '../source-lines/pdb-lines.js';
import type { FrameLines } from '../../../structs/profile/frame-lines.js';
import { extensionList, formatOfPath, RECORDING_FORMATS, type RecordingFileFormat } from './recording-formats.js';
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
/**
 * A speedscope file is read where it lies, as bytes (never as one string or parsed whole), so
 * it costs its own size plus what it builds; the import budget bounds the latter.
 */
const SPEEDSCOPE_LIMIT = 256 * (1 << 20);


/** An input that does not parse, as one sentence; errors that look like a reader's own bug say so. */
function unreadable(path: string, format: RecordingFileFormat, err: unknown): UserError {
  if (err instanceof UserError) return err;
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().replace(/[.\s]+$/, '');
  const bug = err instanceof TypeError || err instanceof ReferenceError;
  return new UserError(`Cannot read ${path}: ${clause(message)}${bug ? ` (this may be a bug in clrscope's ${RECORDING_FORMATS[format].name} reader; please report it)` : ''}.`);
}

export function readFormatOf(path: string): RecordingFileFormat {
  if (path.trim() === '') throw new UserError('The input file name is empty.');
  const format = formatOfPath(path, 'read');
  if (format === undefined) throw new UserError(`Unknown input format for ${path}: use a ${extensionList('read')} file.`);
  return format;
}

/**
 * Throws one sentence when a format cannot be used here, before any work that would be wasted
 * (a recording made only to fail at the end): writing .etlx needs the converter built beside
 * clrscope. Every other format is pure code and always available.
 */
export async function checkFormatAvailable(format: RecordingFileFormat, direction: 'read' | 'write'): Promise<void> {
  if (format !== 'etlx' || direction !== 'write') return;
  const converter = etlxConverterPath();
  const found = await stat(converter).then((s) => s.isFile(), () => false);
  if (!found) throw new UserError(`Writing .etlx files needs the .etlx converter, which is not built at ${converter}; run scripts/setup.sh (or bash scripts/build-targets.sh).`);
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
  return new UserError(`Cannot read ${path}: it is ${(size / MIB).toFixed(1)} MiB, and ${RECORDING_FORMATS[format].name} files are read whole, up to ${(limit / MIB).toFixed(0)} MiB.`);
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
  if (format === 'clrscope') {
    const sums = options.summed === true ? new StackThreadSums() : undefined;
    const reader = new RecordingFileReader(new Recording({ keepSamples: sums === undefined ? true : 'recent', limits: FILE_READ_LIMITS }));
    const fold = (): void => {
      if (sums === undefined) return;
      // Memory stays flat when samples are summed; their decoding is what a budget bounds then.
      if (reader.recording.sampleCount > MAX_SUMMED_SAMPLES) throw new ImportBudgetError(samplesClause('it', MAX_SUMMED_SAMPLES));
      sums.add(reader.recording.recentSamples().columns);
      reader.recording.releaseSamples();
    };
    await forEachChunk(path, format, size, progress, (c) => {
      reader.push(c);
      fold();
    });
    try {
      const opened = reader.finish();
      fold();
      return { format, ...opened, sums };
    } catch (err) {
      throw unreadable(path, format, err);
    }
  }
  if (format === 'nettrace') {
    const reader = new NettraceReader({ limits: FILE_READ_LIMITS });
    await forEachChunk(path, format, size, progress, (c) => reader.push(c));
    try {
      return { format, recording: reader.finish(), counters: [] };
    } catch (err) {
      throw unreadable(path, format, err);
    }
  }
  const limit = format === 'speedscope' ? SPEEDSCOPE_LIMIT : MAX_PPROF_BYTES;
  const bytes = await readWhole(path, format, size, limit, progress);
  try {
    if (format === 'speedscope') return { format, recording: fromSpeedscope(bytes), counters: [] };
    return { format, recording: fromPprof(gunzipIfNeeded(bytes)), counters: [] };
  } catch (err) {
    throw unreadable(path, format, err);
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

function gunzipIfNeeded(bytes: Buffer): Uint8Array {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    // Bounded while it decompresses: a small file can expand a thousandfold (a gzip bomb).
    return gunzipSync(bytes, { maxOutputLength: MAX_PPROF_BYTES });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new Error(`it decompresses to more than ${MAX_PPROF_BYTES / 1048576} MiB, more than clrscope reads of a pprof profile`);
    throw new Error(`its gzip data is truncated or corrupt (${(err as Error).message})`);
  }
}

export interface WriteOptions {
  progress?: FileProgress;
  /** speedscope: which profiles to write per thread (default both). */
  metric?: SpeedscopeMetric;
  /** pprof and speedscope: the frames' source lines (default: from the PDBs of the recorded modules, where found). */
  lines?: FrameLines;
  /** pprof: the samples already summed, for a recording that does not keep them (PprofOptions.summed). */
  summed?: StackThreadSums;
}

/** Writes `rec` (and, for .clrscope, its counters) in the format `path`'s extension names; returns the byte count. */
export async function writeRecordingFile(path: string, rec: Recording, counters: readonly CountersPoint[], options: WriteOptions = {}): Promise<number> {
  const format = formatOfPath(path, 'write');
  if (format === undefined) throw new UserError(`Unknown output format for ${path}: use a ${extensionList('write')} file name.`);
  const progress = options.progress;
  const step = (done: number, total: number): void => progress?.('writing', done, total);
  switch (format) {
    case 'clrscope':
      return writeFileAtomically(path, recordingFileChunks(rec, counters, { progress: step }));
    case 'speedscope':
      return writeFileAtomically(path, speedscopeJsonChunks(rec, { metric: options.metric, progress: step, lines: options.lines ?? new PdbLines().linesOf(rec) }));
    case 'pprof': {
      step(0, 1);
      const bytes = await writeFileAtomically(path, [toPprof(rec, (bytes) => gzipSync(bytes), options.lines ?? new PdbLines().linesOf(rec), { summed: options.summed })]);
      step(1, 1);
      return bytes;
    }
    case 'nettrace':
      return writeFileAtomically(path, nettraceChunks(rec, { onProgress: step }));
    case 'etlx': {
      // The converter writes the file itself and renames it into place only when complete.
      await toEtlx(rec, path, { onProgress: step });
      step(1, 1);
      return (await stat(path)).size;
    }
  }
}
