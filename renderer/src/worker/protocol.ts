// Messages between the renderer's UI thread and its profile worker. The worker owns the
// recording: it decodes the session's wire stream (the same decoder the collector uses) and
// answers queries with trees in flat typed arrays, which cross the thread boundary without
// copying object graphs.

import type { GcRow } from '../../../structs/analysis/gc-stats.js';
import type { FlatTree } from '../../../structs/analysis/flat-tree.js';
import type { FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import type { EventMetric } from '../../../structs/profile/event-metrics.js';
import type { OwnCost } from '../../../structs/wire/records.js';
import type { AnalysisRequest, AnalysisReply } from './analysis-protocol.js';

export type { FlatTree } from '../../../structs/analysis/flat-tree.js';

/** CPU or wall time, or an event type's sum (structs/profile/event-metrics.ts). */
export type FlameMetric = 'cpu' | 'wall' | EventMetric;

export interface TimeWindow {
  /** Milliseconds from the recording's start (HELLO), inclusive; absent = from the start. */
  fromMs?: number;
  /** Exclusive; absent = to the end. */
  toMs?: number;
}

/** Which processes' threads a query looks at, in a recording of several (PROCESS records). */
export interface ProcessFilter {
  /** Pids whose threads to include (with threadIds: the threads in both); null or absent = every process. */
  processIds?: number[] | null;
}

export interface FlameQuery extends TimeWindow, ProcessFilter {
  metric: FlameMetric;
  /** Wire thread ids to include; null = every thread. */
  threadIds: number[] | null;
  /** Icicle: leaves at the root, callers below. */
  inverted: boolean;
  /** One root per thread under the "all" root (thread names as frames). */
  groupByThread: boolean;
  /** One root per process under the "all" root ("[pid name]"); takes the place of groupByThread when both are set. */
  groupByProcess?: boolean;
  /** Folding and grouping of the stacks; absent = the stacks as recorded. */
  fold?: FoldOptions;
  /** Async call stacks where the recording has them (CPU and wall only): awaiting methods above a continuation. */
  asyncStacks?: boolean;
  /** With an event metric: only the events whose type name (label) is this one. */
  eventType?: string;
  /** CPU and wall: only the samples this HTTP endpoint's requests hold ("GET /orders/{id}"; worker/flame-endpoint.ts). */
  endpoint?: string;
  /** CPU and wall: only the samples these requests hold (indexes in requestsOf's order; structs/analysis/request-picks.ts). */
  requestIds?: number[];
}

/** Parallel stacks of threads, or of logical operations (async recordings). */
export type ParallelBy = 'threads' | 'operations';

export interface ParallelQuery extends TimeWindow, ProcessFilter {
  /** 'current': each thread's latest stack; 'window': every sample's stack in the window. */
  mode: 'current' | 'window';
  /**
   * 'operations' (a recording with async call stacks): each logical operation's chain, where it
   * is suspended or running (worker/parallel-operations.ts); absent or 'threads': threads' stacks.
   */
  by?: ParallelBy;
  /** As FlameQuery's. */
  fold?: FoldOptions;
}

/** Parallel stacks: a tree like FlatTree whose nodes also say which threads pass through them. */
export interface ParallelTree extends FlatTree {
  /** Per node, the wire thread ids through it (sorted); by operations, the threads running one. */
  threads: number[][];
  /** What a node's value counts: threads' samples, or operations. */
  by: ParallelBy;
}

export interface ThreadSummary {
  id: number;
  osTid: number;
  name: string;
  /** The thread's process in a recording of several; null in a one-process recording. */
  pid: number | null;
  ended: boolean;
  cpuNs: number;
  wallNs: number;
}

export interface ProcessSummary {
  pid: number;
  /** The kernel's name ("dotnet"); may be empty. */
  name: string;
  /** What its node is called when the flame graph groups by process: "[pid name]". */
  label: string;
}

export interface RecordingSummary {
  /** One row per collection from the runtime's GC events (structs/analysis/gc-stats.ts), `startNs` from the recording's start; empty without those events. */
  gcs: GcRow[];
  pid: number | null;
  runtimeVersion: string | null;
  intervalNs: number;
  /** Milliseconds from the first to the last sample or event. */
  durationMs: number;
  sampleCount: number;
  droppedSamples: number;
  threads: ThreadSummary[];
  /** The processes of a recording of several (a launch with child processes), in the order they connected; empty for one process. */
  processes: ProcessSummary[];
  pauses: PauseEntry[];
  /** The event types the recording has events for (the flame graph's type selector offers them). */
  eventMetrics: EventMetric[];
  /** The recording has async call stacks (the flame graph offers its "async stacks" switch). */
  hasAsync: boolean;
  /** The session keeps only its last N minutes in the views (reset's keepMinutes); null: the whole recording. */
  keepMinutes: number | null;
  /** Where the kept part begins (ms after HELLO) once older data was let go; null while everything is held. */
  keptFromMs: number | null;
  /** CPU that came without a fresh stack (threads that blocked clrscope's signal, lost captures), in ms. */
  stacklessCpuMs: number;
  /** When the profiler stopped CPU and wall sampling because a library took its signal over (ms after HELLO); null while it samples. */
  signalLostMs: number | null;
  /** clrscope's own measured cost in the program so far (PROTOCOL.md, STATS); null when the stream has none. */
  ownCost: OwnCost | null;
  ended: boolean;
  /** A sentence when the stream was corrupt. */
  error: string | null;
}

export type WorkerRequest =
  /** A new session, or the same one fed again; `keepMinutes`: keep only its last N minutes (kept-window.ts). */
  | { kind: 'reset'; keepMinutes?: number }
  | { kind: 'chunk'; offset: number; bytes: Uint8Array }
  | { kind: 'flame'; requestId: number; query: FlameQuery }
  | { kind: 'parallel'; requestId: number; query: ParallelQuery }
  | { kind: 'summary'; requestId: number }
  | AnalysisRequest;

export type WorkerReply =
  | { kind: 'flame'; requestId: number; tree: FlatTree }
  | { kind: 'parallel'; requestId: number; tree: ParallelTree }
  | { kind: 'summary'; requestId: number; summary: RecordingSummary }
  | AnalysisReply
  | { kind: 'error'; requestId: number | null; message: string };
