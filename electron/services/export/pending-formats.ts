// The nettrace writer and reader (structs/formats/nettrace/) and the .etlx converter
// (electron/services/export/etlx.ts) are written in parallel with the rest of issue 6. Until
// their modules are built, clrscope says in one sentence that the format is not available yet;
// once they are, the functions below find them by their exported names (nettraceChunks or
// toNettrace, NettraceReader or fromNettrace, toEtlx) without an edit here. When their APIs
// have settled, replace this file with static imports.

import { readdir } from 'node:fs/promises';
import type { Recording } from '../../../structs/profile/recording.js';
import { UserError } from '../session/user-error.js';

/** Reads a file pushed chunk by chunk. */
export interface RecordingStreamReader {
  push(chunk: Uint8Array): void;
  finish(): Recording | Promise<Recording>;
}

export interface NettraceReading {
  /** True when the reader takes the file in pieces; otherwise it is handed the whole file at the end. */
  streamed: boolean;
  open(): RecordingStreamReader;
}

export type NettraceWriting = (rec: Recording, progress: (done: number, total: number) => void) => Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
export type ToEtlx = (rec: Recording, path: string, options: { onProgress?: (done: number, total: number) => void }) => unknown;

const NETTRACE_DIR = new URL('../../../structs/formats/nettrace/', import.meta.url);
const ETLX_MODULE = new URL('./etlx.js', import.meta.url);

/** The first module in `dir` (tests aside) that exports a function called `name`. */
async function exportIn(dir: URL, name: string): Promise<unknown> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return undefined;
  }
  for (const file of files.filter((f) => f.endsWith('.js') && !f.endsWith('.test.js')).sort()) {
    const mod = (await import(new URL(file, dir).href)) as Record<string, unknown>;
    if (typeof mod[name] === 'function') return mod[name];
  }
  return undefined;
}

async function exportOf(module: URL, name: string): Promise<unknown> {
  try {
    const mod = (await import(module.href)) as Record<string, unknown>;
    return typeof mod[name] === 'function' ? mod[name] : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

function notYet(what: string): UserError {
  return new UserError(`${what} is not available yet in this version of clrscope.`);
}

/** The nettrace writer: streamed when the module offers `nettraceChunks(rec, {onProgress})`, else `toNettrace(rec)` whole. */
export async function nettraceWriter(): Promise<NettraceWriting> {
  const chunks = await exportIn(NETTRACE_DIR, 'nettraceChunks') as ((rec: Recording, o: { onProgress?: (d: number, t: number) => void }) => Iterable<Uint8Array>) | undefined;
  if (chunks !== undefined) return (rec, progress) => chunks(rec, { onProgress: progress });
  const whole = await exportIn(NETTRACE_DIR, 'toNettrace') as ((rec: Recording) => Uint8Array | Promise<Uint8Array>) | undefined;
  if (whole === undefined) throw notYet('Writing .nettrace files');
  return async function* (rec) {
    yield await whole(rec);
  };
}

/** The nettrace reader: streamed when the module offers a `NettraceReader` class (push, finish), else `fromNettrace(bytes)` on the whole file. */
export async function nettraceReader(): Promise<NettraceReading> {
  const Reader = await exportIn(NETTRACE_DIR, 'NettraceReader') as (new () => RecordingStreamReader) | undefined;
  if (Reader !== undefined) return { streamed: true, open: () => new Reader() };
  const whole = await exportIn(NETTRACE_DIR, 'fromNettrace') as ((bytes: Uint8Array) => Recording | Promise<Recording>) | undefined;
  if (whole === undefined) throw notYet('Reading .nettrace files');
  return {
    streamed: false,
    open: () => {
      const chunks: Uint8Array[] = [];
      return { push: (c) => chunks.push(c), finish: () => whole(Buffer.concat(chunks)) };
    },
  };
}

export async function etlxWriter(): Promise<ToEtlx> {
  const fn = await exportOf(ETLX_MODULE, 'toEtlx');
  if (fn === undefined) throw notYet('Writing .etlx files');
  return fn as ToEtlx;
}
