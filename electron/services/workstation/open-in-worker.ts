// The workstation's side of opening a recording file: a worker thread parses it
// (open-file-worker.ts) while this side takes the session's stream a piece at a time, so other
// clients are answered meanwhile. The worker's heap is capped: a file that would make it grow
// past the cap ends in a sentence, not in the workstation running out of memory.

import { Worker } from 'node:worker_threads';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { UserError } from '../errors/user-error.js';
import type { RecordingFileFormat } from '../../../structs/formats/registry.js';
import { CHUNK_TAKEN, type OpenFileMessage, type OpenFileRequest } from './open-file-messages.js';
import { JobCancelled } from './cancellable-jobs.js';

/** The worker's JavaScript heap; the import budget keeps a file's model within ~200 MiB. */
const WORKER_HEAP_MIB = 384;

export interface OpenFileHandlers {
  onProgress(phase: 'reading' | 'preparing', done: number, total: number): void;
  /** One piece of the session's stream, in order; may take its time (the next waits). */
  onChunk(bytes: Uint8Array): Promise<void> | void;
}

export interface OpenedInWorker {
  format: RecordingFileFormat;
  counters: CountersPoint[];
}

/**
 * Opens `path` in a worker thread; resolves once every piece of its stream was handed to onChunk.
 * An abort of `signal` ends the worker (reading, or symbolizing an imported trace) at once and
 * rejects with JobCancelled.
 */
export function openInWorker(path: string, handlers: OpenFileHandlers, signal?: AbortSignal): Promise<OpenedInWorker> {
  const request: OpenFileRequest = { path };
  const worker = new Worker(new URL('./open-file-worker.js', import.meta.url), {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MIB },
    stdout: false,
    stderr: false,
  });
  return new Promise<OpenedInWorker>((resolve, reject) => {
    let settled = false;
    // Pieces are handed on one after the other, in order, whatever onChunk awaits.
    let queue = Promise.resolve();
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      f();
    };
    worker.on('message', (message: OpenFileMessage) => {
      if (message.type === 'progress') handlers.onProgress(message.phase, message.done, message.total);
      else if (message.type === 'chunk') {
        queue = queue.then(async () => {
          if (settled) return;
          await handlers.onChunk(message.bytes);
          worker.postMessage(CHUNK_TAKEN);
        }).catch((err: unknown) => settle(() => reject(err)));
      } else if (message.type === 'done') {
        queue = queue.then(() => settle(() => resolve({ format: message.format, counters: message.counters })));
      } else {
        queue = queue.then(() => settle(() => reject(message.user ? new UserError(message.message) : new Error(message.message))));
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const sentence = err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `Cannot read ${path}: reading it took more than the ${WORKER_HEAP_MIB} MiB of memory clrscope gives a file being opened.`
        : `Cannot read ${path}: the reader stopped (${err.message.replace(/[.\s]+$/, '')}).`;
      settle(() => reject(new UserError(sentence)));
    });
    const cancel = (): void => settle(() => reject(new JobCancelled(`Opening ${path}`)));
    if (signal?.aborted === true) cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    worker.on('exit', (code) => {
      settle(() => reject(new Error(`The file reader stopped (exit code ${code}) before it finished ${path}.`)));
    });
  });
}
