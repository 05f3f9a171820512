// .nettrace → Recording, streamed: push the file's bytes in chunks of any size (a 2 GB file
// never sits in memory whole; only one block and the compact sample tables do), then finish().

import type { Recording } from '../../profile/recording.js';
import type { EventCounterValue } from './event-counters.js';
import { importToRecording, type ImportOptions } from './import-to-recording.js';
import { NettraceImport } from './nettrace-import.js';
import { NettraceFormatError } from './nettrace-format-error.js';
import { NettraceObjectReader } from './object-reader.js';

/** Called after each chunk with the bytes read so far and the total when known. */
export type ReadProgress = (bytesRead: number, totalBytes: number | undefined) => void;

export interface NettraceReadOptions {
  onProgress?: ReadProgress;
  /** The file's size, passed through to onProgress. */
  totalBytes?: number;
}

/** For a live session's stream rather than a file (the defaults read a file). */
export interface NettraceReaderOptions extends Omit<ImportOptions, 'cut'> {
  /** Each EventCounters value as soon as its block arrives (System.Runtime's counters, say). */
  onEventCounter?: (counter: EventCounterValue) => void;
}

export class NettraceReader {
  private readonly imp = new NettraceImport();
  private readonly objects = new NettraceObjectReader(this.imp);
  private readonly options: NettraceReaderOptions;

  constructor(options: NettraceReaderOptions = {}) {
    this.options = options;
    this.imp.onEventCounter = options.onEventCounter;
    this.imp.limits = options.limits;
  }

  get bytesRead(): number {
    return this.objects.bytesRead;
  }

  /** Feeds the next bytes; throws NettraceFormatError on a file clrscope cannot read. */
  push(chunk: Uint8Array): void {
    this.objects.push(chunk);
  }

  /**
   * Checks the file ended properly and builds the Recording. With `partial` (a live stream that
   * broke off) a stream without its end tag is kept: the blocks read so far become a recording
   * that reads as cut; only a stream that never got past its header is refused.
   */
  finish(options: { partial?: boolean } = {}): Recording {
    const cut = options.partial === true && !this.objects.finished;
    if (!cut || this.imp.header === undefined) this.objects.end();
    try {
      const { onEventCounter: _counters, ...imports } = this.options;
      return importToRecording(this.imp, { ...imports, cut });
    } catch (err) {
      // Values the checks above let through but the model refuses (a corrupt id or size).
      if (err instanceof NettraceFormatError || !(err instanceof Error)) throw err;
      throw new NettraceFormatError(`Corrupt .nettrace file: ${err.message.replace(/\.$/, '')}.`, this.bytesRead);
    }
  }
}

function isChunk(source: Uint8Array | Iterable<Uint8Array>): source is Uint8Array {
  return source instanceof Uint8Array;
}

/** Reads a whole file given as one buffer or as chunks. */
export function fromNettrace(source: Uint8Array | Iterable<Uint8Array>, options: NettraceReadOptions = {}): Recording {
  const reader = new NettraceReader();
  const chunks = isChunk(source) ? [source] : source;
  for (const chunk of chunks) {
    reader.push(chunk);
    options.onProgress?.(reader.bytesRead, options.totalBytes);
  }
  return reader.finish();
}

/** The same over an async source, such as a file stream. */
export async function fromNettraceAsync(source: AsyncIterable<Uint8Array>, options: NettraceReadOptions = {}): Promise<Recording> {
  const reader = new NettraceReader();
  for await (const chunk of source) {
    reader.push(chunk);
    options.onProgress?.(reader.bytesRead, options.totalBytes);
  }
  return reader.finish();
}
