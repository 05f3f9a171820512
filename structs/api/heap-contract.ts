// The Heap tab's part of the API contract (structs/api/contract.ts): heap snapshots live in the
// main process (each in a worker thread of its own, electron/services/heap/heap-snapshots.ts),
// and the renderer asks for what it shows: the types table, paths from roots, dominator-tree
// children, diffs against another snapshot. The graph itself never crosses.

/** A heap snapshot the workstation holds (electron/services/heap/heap-snapshots.ts): taken of a session's process, or read from a file. */
export interface HeapSnapshotInfo {
  id: string;
  /** What the user sees: "process 1234, 18:02:11" or the file's name. */
  label: string;
  source: 'process' | 'file';
  /** The session whose process it was taken of (null for a file). */
  sessionId: string | null;
  pid: number | null;
  /** Unix epoch ms when it was taken or opened. */
  takenAtMs: number;
  objects: number;
  references: number;
  roots: number;
  /** Bytes of every object. */
  bytes: number;
  /** False when the process exited or the stream broke during the walk: the objects read are kept. */
  complete: boolean;
}

/** One type of a heap snapshot (as `clrscope heap --format json` prints them), with its change since a baseline when asked for one. */
export interface HeapTypeRow {
  type: string;
  count: number;
  bytes: number;
  retainedBytes: number;
  countDelta?: number;
  bytesDelta?: number;
  retainedDelta?: number;
}

/** The paths from roots to a type's objects, grouped: `[root] → Type → .field Type → … → TYPE`, with how many objects each holds. */
export interface HeapPathRow {
  path: string[];
  count: number;
  /** With a baseline: the change in objects the path holds. */
  countDelta?: number;
}

/** One object of the dominator tree (or the super-root's children: what roots alone keep alive). */
export interface HeapDominatorNode {
  /** The object's index in the snapshot. */
  node: number;
  type: string;
  bytes: number;
  retainedBytes: number;
  /** Objects it immediately dominates. */
  children: number;
}

/** The most children heapDominators answers at once. */
export const MAX_HEAP_CHILDREN = 1000;
/** The longest type name heapPaths takes. */
export const MAX_HEAP_TYPE_CHARS = 4096;

export interface HeapTakeRequest {
  /** A live session (launched or attached) whose process is snapshotted. */
  sessionId: string;
  /** Names the take, so cancelJob can call it off (the process is left as it was, no snapshot kept). */
  jobId?: string;
}

export interface HeapOpenRequest {
  /** Absolute path of a .gcdump, .clrheap or .clrscope file holding a snapshot. */
  path: string;
}

export interface HeapSaveRequest {
  snapshotId: string;
  /** Absolute path of the .clrheap file to write. */
  path: string;
}

export interface HeapTypesRequest {
  snapshotId: string;
  /** Another snapshot to compare with: rows then carry their deltas and types that went away are listed too. */
  baselineId?: string;
}

export interface HeapPathsRequest {
  snapshotId: string;
  /** A type's full name, as heapTypes gives it. */
  type: string;
  baselineId?: string;
}

export interface HeapDominatorsRequest {
  snapshotId: string;
  /** An object's index, or -1 for what the roots alone keep alive. */
  node: number;
  /** At most this many children, the most retaining first (1..MAX_HEAP_CHILDREN). */
  limit: number;
}

export interface HeapDominatorChildren {
  /** Children of the node, the most retaining first, at most `limit`. */
  nodes: HeapDominatorNode[];
  /** How many it has in all. */
  total: number;
}

