// .nettrace → Recording, streamed: push the file's bytes in chunks of any size (a 2 GB file
// never sits in memory whole; only one block and the compact sample tables do), then finish().

import type { Recording } from '../../profile/recording.js';
import { importToRecording } from './import-to-recording.js';
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

export class NettraceReader {
  private readonly imp = new NettraceImport();
  private readonly objects = new NettraceObjectReader(this.imp);

  get bytesRead(): number {
    return this.objects.bytesRead;
  }

  /** Feeds the next bytes; throws NettraceFormatError on a file clrscope cannot read. */
  push(chunk: Uint8Array): void {
    this.objects.push(chunk);
  }

  /** Checks the file ended properly and builds the Recording. */
  finish(): Recording {
    this.objects.end();
    try {
      return importToRecording(this.imp);
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
