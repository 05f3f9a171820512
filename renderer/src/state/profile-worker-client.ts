// The UI thread's side of the profile worker (worker/protocol.ts): request ids matched to
// replies, stream chunks handed over without copying when their buffer is their own.

import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { FlameQuery, FlatTree, ParallelQuery, ParallelTree, ProcessFilter, RecordingSummary, WorkerReply, WorkerRequest } from '../worker/protocol.js';
import type { AnalysisQueryMessage, BaselineSummary, DiffSideQuery } from '../worker/analysis-protocol.js';
import type { DiffFunctions, DiffNormalize, DiffTree } from '../../../structs/analysis/diff.js';
import type { FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { FunctionsTable } from '../../../structs/analysis/functions-table.js';
import type { SourceLineTable } from '../../../structs/api/contract.js';
import type { Sandwich } from '../../../structs/analysis/call-trees.js';
import type { StackNear } from '../../../structs/analysis/profile-analysis.js';
import type { ThreadTimeline, TimelineQuery } from '../../../structs/analysis/thread-timeline.js';
import type { EventTableQuery, ExceptionTable, TypeTable } from '../../../structs/profile/event-tables.js';
import type { RecordingViewData, RecordingViewId } from '../../../structs/analysis/recording-views.js';
import type { RequestTimeline } from '../../../structs/analysis/request-timeline.js';

/** What the client needs of a Worker, so tests can stand in for one. */
export interface WorkerPort {
  post(message: WorkerRequest, transfer: Transferable[]): void;
  listen(onReply: (reply: WorkerReply) => void, onFailure: (message: string) => void): void;
  terminate(): void;
}

export const WORKER_FAILED = 'The profile worker did not start, so recordings cannot be shown; rebuild the renderer (npm run build) and reload.';

/** The real worker, bundled next to app.js as worker.js. */
export function startProfileWorker(): WorkerPort {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen: (onReply, onFailure) => {
      worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => onReply(event.data));
      // A script that fails to load or throws at top level arrives here, not as a reply.
      worker.addEventListener('error', (event: ErrorEvent) => {
        event.preventDefault();
        onFailure(WORKER_FAILED);
      });
      worker.addEventListener('messageerror', () => onFailure('The profile worker sent a reply the UI could not read.'));
    },
    terminate: () => worker.terminate(),
  };
}

interface Pending {
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

export class ProfileWorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: string | null = null;
  private readonly failureListeners = new Set<(message: string) => void>();

  constructor(private readonly port: WorkerPort) {
    port.listen((reply) => this.onReply(reply), (message) => this.fail(message));
  }

  /** Set once the worker is unusable; every later request rejects with it. */
  get failed(): string | null {
    return this.failure;
  }

  onFailure(listener: (message: string) => void): () => void {
    this.failureListeners.add(listener);
    return () => { this.failureListeners.delete(listener); };
  }

  /** A new session, or the same fed again; `keepMinutes`: the worker keeps only its last N minutes. */
  reset(keepMinutes?: number): void {
    this.port.post(keepMinutes === undefined ? { kind: 'reset' } : { kind: 'reset', keepMinutes }, []);
  }

  chunk(offset: number, bytes: Uint8Array): void {
    // Transferring a buffer hands all of it over: only do that when the chunk is the whole buffer.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
      ? bytes
      : bytes.slice();
    this.port.post({ kind: 'chunk', offset, bytes: own }, [own.buffer as ArrayBuffer]);
  }

  async flame(query: FlameQuery): Promise<FlatTree> {
    const reply = await this.request((requestId) => ({ kind: 'flame', requestId, query }));
    if (reply.kind !== 'flame') throw new Error(`The profile worker answered a flame query with ${reply.kind}.`);
    return reply.tree;
  }

  async parallel(query: ParallelQuery): Promise<ParallelTree> {
    const reply = await this.request((requestId) => ({ kind: 'parallel', requestId, query }));
    if (reply.kind !== 'parallel') throw new Error(`The profile worker answered a parallel-stacks query with ${reply.kind}.`);
    return reply.tree;
  }

  async summary(): Promise<RecordingSummary> {
    const reply = await this.request((requestId) => ({ kind: 'summary', requestId }));
    if (reply.kind !== 'summary') throw new Error(`The profile worker answered a summary query with ${reply.kind}.`);
    return reply.summary;
  }

  /** Hands the session's source lines to the worker; answers each function's hottest line (`path:line`) by name. */
  async sources(table: SourceLineTable): Promise<Map<string, string>> {
    const reply = await this.request((requestId) => ({ kind: 'lines', requestId, frameIds: table.frameIds, fileIndex: table.fileIndex, lines: table.lines, files: table.files }));
    if (reply.kind !== 'sources') throw new Error(`The profile worker answered a lines request with ${reply.kind}.`);
    return new Map(reply.names.map((n, i) => [n, reply.places[i]]));
  }

  async functions(query: AnalysisQueryMessage): Promise<FunctionsTable> {
    const reply = await this.request((requestId) => ({ kind: 'functions', requestId, query }));
    if (reply.kind !== 'functions') throw new Error(`The profile worker answered a functions query with ${reply.kind}.`);
    return reply.table;
  }

  /** One function's time per source line, for the source panel. */
  async functionLines(query: AnalysisQueryMessage, name: string): Promise<FunctionLines> {
    const reply = await this.request((requestId) => ({ kind: 'function-lines', requestId, query, name }));
    if (reply.kind !== 'function-lines') throw new Error(`The profile worker answered a source-lines query with ${reply.kind}.`);
    return reply.lines;
  }

  async sandwich(query: AnalysisQueryMessage, name: string): Promise<Sandwich | null> {
    const reply = await this.request((requestId) => ({ kind: 'sandwich', requestId, query, name }));
    if (reply.kind !== 'sandwich') throw new Error(`The profile worker answered a sandwich query with ${reply.kind}.`);
    return reply.sandwich;
  }

  async diff(before: DiffSideQuery, after: DiffSideQuery, normalize: DiffNormalize): Promise<{ tree: DiffTree; functions: DiffFunctions }> {
    const reply = await this.request((requestId) => ({ kind: 'diff', requestId, before, after, normalize }));
    if (reply.kind !== 'diff') throw new Error(`The profile worker answered a diff query with ${reply.kind}.`);
    return { tree: reply.tree, functions: reply.functions };
  }

  async timeline(query: TimelineQuery): Promise<ThreadTimeline> {
    const reply = await this.request((requestId) => ({ kind: 'timeline', requestId, query }));
    if (reply.kind !== 'timeline') throw new Error(`The profile worker answered a timeline query with ${reply.kind}.`);
    return reply.timeline;
  }

  /** Allocated bytes per type and exceptions per type, over a window and threads. */
  async eventTables(query: EventTableQuery & ProcessFilter): Promise<{ types: TypeTable; exceptions: ExceptionTable }> {
    const reply = await this.request((requestId) => ({ kind: 'event-tables', requestId, query }));
    if (reply.kind !== 'event-tables') throw new Error(`The profile worker answered a type-table query with ${reply.kind}.`);
    return { types: reply.types, exceptions: reply.exceptions };
  }

  /** A view of the whole recording (structs/analysis/recording-views.ts). */
  async recordingView<K extends RecordingViewId>(view: K): Promise<RecordingViewData<K>> {
    const reply = await this.request((requestId) => ({ kind: 'recording-view', requestId, view }));
    if (reply.kind !== 'recording-view' || reply.view !== view) throw new Error(`The profile worker answered the ${view} view with ${reply.kind}.`);
    return reply.data as RecordingViewData<K>;
  }

  /** Where one HTTP request's time went (structs/analysis/request-timeline.ts); null when there is no such ended request. */
  async requestTimeline(index: number): Promise<RequestTimeline | null> {
    const reply = await this.request((requestId) => ({ kind: 'request-timeline', requestId, index }));
    if (reply.kind !== 'request-timeline') throw new Error(`The profile worker answered a request timeline query with ${reply.kind}.`);
    return reply.timeline;
  }

  async stackNear(threadId: number, atMs: number, fold: FoldOptions): Promise<StackNear | null> {
    const reply = await this.request((requestId) => ({ kind: 'stack-near', requestId, threadId, atMs, fold }));
    if (reply.kind !== 'stack-near') throw new Error(`The profile worker answered a stack query with ${reply.kind}.`);
    return reply.stack;
  }

  baselineReset(): void {
    this.port.post({ kind: 'baseline-reset' }, []);
  }

  baselineChunk(offset: number, bytes: Uint8Array): void {
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
    this.port.post({ kind: 'baseline-chunk', offset, bytes: own }, [own.buffer as ArrayBuffer]);
  }

  async baselineSummary(): Promise<BaselineSummary> {
    const reply = await this.request((requestId) => ({ kind: 'baseline-summary', requestId }));
    if (reply.kind !== 'baseline-summary') throw new Error(`The profile worker answered a baseline query with ${reply.kind}.`);
    return reply.summary;
  }

  terminate(): void {
    this.port.terminate();
    this.fail('The profile worker was stopped.');
  }

  private request(make: (requestId: number) => WorkerRequest): Promise<WorkerReply> {
    if (this.failure !== null) return Promise.reject(new Error(this.failure));
    const requestId = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject });
      this.port.post(make(requestId), []);
    });
  }

  private onReply(reply: WorkerReply): void {
    if (reply.kind === 'error') {
      if (reply.requestId === null) {
        this.notify(reply.message);
        return;
      }
      const p = this.pending.get(reply.requestId);
      this.pending.delete(reply.requestId);
      p?.reject(new Error(reply.message));
      return;
    }
    const p = this.pending.get(reply.requestId);
    this.pending.delete(reply.requestId);
    p?.resolve(reply);
  }

  private fail(message: string): void {
    if (this.failure !== null) return;
    this.failure = message;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    this.notify(message);
  }

  private notify(message: string): void {
    for (const l of [...this.failureListeners]) l(message);
  }
}
