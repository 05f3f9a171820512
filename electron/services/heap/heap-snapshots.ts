// The workstation's heap snapshots: each lives in a worker thread of its own (heap-worker.ts),
// which takes or reads it, analyses it and answers the Heap tab's queries; this side keeps their
// list, hands queries on, and makes diffs from two workers' answers (types and paths are small,
// the graphs never leave their workers). Closing a snapshot ends its worker and frees its graph.

import { basename } from 'node:path';
import { Worker } from 'node:worker_threads';
import type {
  HeapDominatorChildren, HeapPathRow, HeapSnapshotInfo, HeapTypeRow, WorkstationApi, WorkstationEvent,
} from '../../../structs/api/contract.js';
import { diffPaths, diffTypeStats } from '../../../structs/heap/heap-analysis.js';
import { UserError } from '../errors/user-error.js';
import { JobCancelled, type CancellableJobs } from '../workstation/cancellable-jobs.js';
import type { HeapFigures, HeapQuery, HeapQueryResult, HeapWorkerMessage, HeapWorkerRequest, HeapWorkerSource } from './heap-worker-messages.js';

interface Held {
  info: HeapSnapshotInfo;
  worker: Worker;
  pending: Map<number, { resolve: (r: HeapQueryResult) => void; reject: (e: Error) => void }>;
}

export class HeapSnapshots {
  private readonly held = new Map<string, Held>();
  /** Workers still taking or reading their snapshot: a shutdown ends them too, or they would keep the process alive. */
  private readonly starting = new Set<Worker>();
  private closed = false;
  private nextId = 1;
  private nextQuery = 1;
  /** Per session (one process), the type names its walks learned: a later walk may not be told them again (structs/heap/heap-walk-reader.ts). */
  private readonly typeNames = new Map<string, Map<number, string>>();

  constructor(private readonly emit: (event: WorkstationEvent) => void) {}

  list(): HeapSnapshotInfo[] {
    return [...this.held.values()].map((h) => h.info);
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  /**
   * Takes a snapshot of process `pid` (a session's); resolves once it is analysed. `signal`
   * calls it off: the worker ends (its EventPipe session with it) and it rejects with JobCancelled.
   */
  take(pid: number, sessionId: string, signal?: AbortSignal): Promise<HeapSnapshotInfo> {
    const label = `process ${pid}, ${new Date().toTimeString().slice(0, 8)}`;
    const known = this.typeNames.get(sessionId);
    return this.start({ kind: 'process', pid, ...(known !== undefined ? { knownTypeNames: known } : {}) }, label, sessionId, signal);
  }

  /** Reads a snapshot file; resolves once it is analysed. */
  open(path: string): Promise<HeapSnapshotInfo> {
    return this.start({ kind: 'file', path }, basename(path), null);
  }

  private start(source: HeapWorkerSource, label: string, sessionId: string | null, signal?: AbortSignal): Promise<HeapSnapshotInfo> {
    if (this.closed) return Promise.reject(new UserError('The workstation is shutting down.'));
    const id = `h${this.nextId++}`;
    const worker = new Worker(new URL('./heap-worker.js', import.meta.url), { workerData: source, stdout: false, stderr: false });
    const pending: Held['pending'] = new Map();
    this.starting.add(worker);
    return new Promise<HeapSnapshotInfo>((resolve, reject) => {
      let ready = false;
      const fail = (err: Error): void => {
        this.starting.delete(worker);
        for (const p of pending.values()) p.reject(err);
        pending.clear();
        if (this.held.get(id)?.worker === worker) {
          const gone = this.held.get(id)!.info;
          this.held.delete(id);
          this.emit({ type: 'heap-snapshot', snapshot: gone, closed: true });
        }
        if (!ready) reject(err);
        void worker.terminate();
      };
      worker.on('message', (message: HeapWorkerMessage) => {
        switch (message.type) {
          case 'progress':
            this.emit({ type: 'heap-progress', label, phase: message.phase, done: message.done, total: message.total });
            break;
          case 'ready': {
            ready = true;
            this.starting.delete(worker);
            if (sessionId !== null && message.figures.typeNames !== undefined) this.typeNames.set(sessionId, message.figures.typeNames);
            const info = snapshotInfo(id, label, source, sessionId, message.figures);
            this.held.set(id, { info, worker, pending });
            this.emit({ type: 'heap-snapshot', snapshot: info });
            resolve(info);
            break;
          }
          case 'failed':
            fail(message.user ? new UserError(message.message) : new Error(message.message));
            break;
          case 'reply': {
            const p = pending.get(message.id);
            if (p === undefined) break;
            pending.delete(message.id);
            if (message.error !== undefined) p.reject(message.user === true ? new UserError(message.error) : new Error(message.error));
            else p.resolve(message.result ?? null);
            break;
          }
        }
      });
      worker.on('error', (err: Error & { code?: string }) => {
        fail(new UserError(err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `The heap snapshot (${label}) needs more memory than its worker may take.`
          : `The heap snapshot's worker (${label}) stopped: ${err.message.replace(/[.\s]+$/, '')}.`));
      });
      worker.on('exit', () => fail(new UserError(this.closed ? 'The workstation is shutting down.' : `The heap snapshot's worker (${label}) ended.`)));
      const cancel = (): void => {
        if (!ready) fail(new JobCancelled(`The heap snapshot of ${label}`));
      };
      if (signal?.aborted === true) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  private query(id: string, query: HeapQuery): Promise<HeapQueryResult> {
    const held = this.held.get(id);
    if (held === undefined) return Promise.reject(new UserError(`There is no heap snapshot '${id}'.`));
    const request: HeapWorkerRequest = { id: this.nextQuery++, query };
    return new Promise((resolve, reject) => {
      held.pending.set(request.id, { resolve, reject });
      held.worker.postMessage(request);
    });
  }

  async types(id: string, baselineId?: string): Promise<HeapTypeRow[]> {
    const after = (await this.query(id, { op: 'types' })) as HeapTypeRow[];
    if (baselineId === undefined) return after;
    const before = (await this.query(baselineId, { op: 'types' })) as HeapTypeRow[];
    return diffTypeStats(before, after);
  }

  async paths(id: string, type: string, baselineId?: string): Promise<HeapPathRow[]> {
    const after = (await this.query(id, { op: 'paths', type })) as HeapPathRow[];
    if (baselineId === undefined) return after;
    const before = (await this.query(baselineId, { op: 'paths', type })) as HeapPathRow[];
    return diffPaths(before, after);
  }

  async dominators(id: string, node: number, limit: number): Promise<HeapDominatorChildren> {
    return (await this.query(id, { op: 'dominators', node, limit })) as HeapDominatorChildren;
  }

  async save(id: string, path: string): Promise<void> {
    await this.query(id, { op: 'save', path, info: this.fileInfo(id) });
  }

  /** The snapshots taken of a session's process, oldest first, as .clrheap files' bytes (kept in its .clrscope export). */
  async clrheapsOf(sessionId: string): Promise<Uint8Array[]> {
    const ids = [...this.held.values()].filter((h) => h.info.sessionId === sessionId).map((h) => h.info.id);
    const out: Uint8Array[] = [];
    for (const id of ids) out.push((await this.query(id, { op: 'bytes', info: this.fileInfo(id) })) as Uint8Array);
    return out;
  }

  private fileInfo(id: string): { pid?: number; takenAt: string } {
    const info = this.held.get(id)?.info;
    return { ...(info?.pid != null ? { pid: info.pid } : {}), takenAt: new Date(info?.takenAtMs ?? Date.now()).toISOString() };
  }

  async close(id: string): Promise<void> {
    const held = this.held.get(id);
    if (held === undefined) return;
    this.held.delete(id);
    await held.worker.terminate();
    this.emit({ type: 'heap-snapshot', snapshot: held.info, closed: true });
  }

  /** A session was closed: its process's type names go with it. */
  forgetSession(sessionId: string): void {
    this.typeNames.delete(sessionId);
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.starting].map((w) => w.terminate()));
    await Promise.all([...this.held.keys()].map((id) => this.close(id)));
  }
}

function snapshotInfo(id: string, label: string, source: HeapWorkerSource, sessionId: string | null, f: HeapFigures): HeapSnapshotInfo {
  return {
    id, label, source: source.kind, sessionId, pid: f.pid, takenAtMs: Date.now(),
    objects: f.objects, references: f.references, roots: f.roots, bytes: f.bytes, complete: f.complete,
  };
}

/** The contract's heap operations over the workstation's snapshots; `pidOf` names a live session's process or says in a sentence why it cannot. */
/** The pid of a session's process, which must be running for a snapshot to be taken of it; one sentence otherwise. */
export function snapshotPid(session: { pid: number | null; state: string; label: string }): number {
  const { pid, state, label } = session;
  if (state !== 'recording' || pid === null) throw new UserError(`A heap snapshot is taken of a running process: ${label} is ${state === 'starting' ? 'still starting' : 'not running'}.`);
  return pid;
}

export function heapOperations(heaps: HeapSnapshots, pidOf: (sessionId: string) => number, jobs: CancellableJobs): Pick<WorkstationApi,
  'takeHeapSnapshot' | 'openHeapSnapshot' | 'listHeapSnapshots' | 'saveHeapSnapshot' | 'closeHeapSnapshot' | 'heapTypes' | 'heapPaths' | 'heapDominators'> {
  return {
    takeHeapSnapshot: (request) => jobs.run(request.jobId, (signal) => heaps.take(pidOf(request.sessionId), request.sessionId, signal)),
    openHeapSnapshot: (request) => heaps.open(request.path),
    listHeapSnapshots: async () => heaps.list(),
    saveHeapSnapshot: (request) => heaps.save(request.snapshotId, request.path),
    closeHeapSnapshot: (id) => heaps.close(id),
    heapTypes: (request) => heaps.types(request.snapshotId, request.baselineId),
    heapPaths: (request) => heaps.paths(request.snapshotId, request.type, request.baselineId),
    heapDominators: (request) => heaps.dominators(request.snapshotId, request.node, request.limit),
  };
}
