// What the worker that opens a recording file (open-file-worker.ts) and the workstation say to
// each other: the file's path one way; progress, the session's stream in pieces and the end
// the other way, each piece acknowledged so that no more than a few wait in the main process.

import type { CountersPoint } from '../../../structs/api/contract.js';
import type { RecordingFileFormat } from '../../../structs/formats/registry.js';

export interface OpenFileRequest {
  path: string;
}

export type OpenFileMessage =
  | { type: 'progress'; phase: 'reading' | 'preparing'; done: number; total: number }
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'done'; format: RecordingFileFormat; counters: CountersPoint[] }
  /** `user`: a sentence for the user (UserError); otherwise a fault of clrscope's. */
  | { type: 'error'; message: string; user: boolean };

/** The main process's answer to each chunk: it took the piece, send another. */
export const CHUNK_TAKEN = 'taken';

/** Pieces the worker may send before the first is taken. */
export const CHUNKS_IN_FLIGHT = 4;
