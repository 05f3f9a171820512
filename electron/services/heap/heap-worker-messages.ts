// What the workstation (heap-snapshots.ts) and one heap worker (heap-worker.ts) say to each other:
// where the snapshot comes from, one way; progress, the snapshot's figures once analysed, and the
// answers to queries, the other.

import type { HeapDominatorChildren, HeapPathRow, HeapTypeRow } from '../../../structs/api/contract.js';

export type HeapWorkerSource =
  | { kind: 'process'; pid: number; timeoutMs?: number; knownTypeNames?: Map<number, string> }
  | { kind: 'file'; path: string };

export interface HeapFigures {
  objects: number;
  references: number;
  roots: number;
  bytes: number;
  complete: boolean;
  /** Set when the snapshot is from a process. */
  pid: number | null;
  /** A process's type names after the walk, for its next one. */
  typeNames?: Map<number, string>;
}

export type HeapQuery =
  | { op: 'types' }
  | { op: 'paths'; type: string }
  | { op: 'dominators'; node: number; limit: number }
  | { op: 'save'; path: string; info: { pid?: number; takenAt?: string } }
  /** The snapshot as a .clrheap file's bytes (for a .clrscope export). */
  | { op: 'bytes'; info: { pid?: number; takenAt?: string } };

export type HeapQueryResult = HeapTypeRow[] | HeapPathRow[] | HeapDominatorChildren | Uint8Array | null;

export type HeapWorkerMessage =
  | { type: 'progress'; phase: 'walking' | 'reading' | 'analysing'; done: number; total: number }
  | { type: 'ready'; figures: HeapFigures }
  /** The snapshot could not be had; `user`: the message is a sentence for the user. */
  | { type: 'failed'; message: string; user: boolean }
  | { type: 'reply'; id: number; result?: HeapQueryResult; error?: string; user?: boolean };

export interface HeapWorkerRequest {
  id: number;
  query: HeapQuery;
}
