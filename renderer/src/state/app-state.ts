// The shape of everything the views show. Views read it; only the Workstation controller
// writes it, so there is one place where API events, worker replies and user choices meet.

import type { ExportFormat, HeapDominatorChildren, HeapPathRow, HeapSnapshotInfo, HeapTypeRow, ProcessInfo, SessionInfo, SourceFile } from '../../../structs/api/contract.js';
import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { ZoomPath } from '../canvas/flame-zoom.js';
import type { FlameMetric, FlatTree, ParallelBy, ParallelTree, RecordingSummary } from '../worker/protocol.js';
import type { BaselineSummary } from '../worker/analysis-protocol.js';
import type { Sandwich } from '../../../structs/analysis/call-trees.js';
import type { DiffFunctions, DiffNormalize, DiffTree } from '../../../structs/analysis/diff.js';
import { DEFAULT_FOLD, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { FunctionsTable } from '../../../structs/analysis/functions-table.js';
import type { StackNear } from '../../../structs/analysis/profile-analysis.js';
import type { ThreadTimeline } from '../../../structs/analysis/thread-timeline.js';
import type { ExceptionTable, TypeTable } from '../../../structs/profile/event-tables.js';
import { NO_RECORDING_VIEWS, type RecordingViewsState } from '../../../structs/analysis/recording-views.js';
import type { Tab } from './tabs.js';
import type { RequestTimeline } from '../../../structs/analysis/request-timeline.js';

export { SESSIONLESS_TABS, TABS, type Tab } from './tabs.js';

export type HeapTypesColumn = 'type' | 'count' | 'bytes' | 'retainedBytes' | 'countDelta' | 'retainedDelta';

/** The Heap tab: the workstation's snapshots and what the tab asked of the shown one (state/heap-actions.ts). */
export interface HeapViewState {
  snapshots: HeapSnapshotInfo[];
  /** The snapshot shown, and the one it is compared with (null: none). */
  snapshotId: string | null;
  baselineId: string | null;
  /** The types table of the shown snapshot (with a baseline: the types that changed, with their deltas); null while asked. */
  types: HeapTypeRow[] | null;
  sort: TableSort<HeapTypesColumn>;
  filter: string;
  /** The type picked in the table, and the paths from roots to its objects (with a baseline: the paths that changed). */
  selectedType: string | null;
  paths: HeapPathRow[] | null;
  /** The dominator tree's loaded children by object (-1: what roots alone hold), and the objects expanded. */
  tree: Record<number, HeapDominatorChildren>;
  expanded: number[];
  /** A snapshot being taken or read: what its progress events said last. */
  progress: { label: string; phase: 'walking' | 'reading' | 'analysing'; done: number; total: number } | null;
  busy: boolean;
  /** The take under way, which Cancel calls off (null: none, or an open, which is not cancelled). */
  jobId: string | null;
}

/** What the diff compares the current view (the after side) with. */
export type DiffBaseline =
  /** Another part of the same recording, ms from its start. */
  | { kind: 'window'; fromMs: number; toMs: number }
  /** Another session's recording (a run, or an opened file), whole. */
  | { kind: 'session'; sessionId: string }
  /** Other requests of the same recording (the typical ones of "slow vs typical"), every thread and time. */
  | { kind: 'requests'; requests: RequestPick };

export interface DiffOptions {
  baseline: DiffBaseline | null;
  normalize: DiffNormalize;
}

export type FunctionsColumn = 'name' | 'self' | 'total' | 'selfSamples' | 'totalSamples';

export interface FunctionsSort {
  column: FunctionsColumn;
  descending: boolean;
}

export type TypesColumn = 'type' | 'bytes' | 'objects' | 'samples' | 'liveBytes' | 'liveObjects';
export type ExceptionsColumn = 'type' | 'count' | 'thrower' | 'throwerShare' | 'rethrows';

export interface TableSort<C extends string> {
  column: C;
  descending: boolean;
}

/** Which part of the recording the flame graph (and the parallel stacks' window mode) covers. */
export type WindowChoice =
  | { kind: 'all' }
  | { kind: 'last'; seconds: number }
  /** Picked on the GC timeline; milliseconds from the recording's start. */
  | { kind: 'range'; fromMs: number; toMs: number };

export interface FlameOptions {
  metric: FlameMetric;
  window: WindowChoice;
  /** Wire thread ids; null = every thread. */
  threadIds: number[] | null;
  /** Pids whose threads count, in a recording of several processes; null = every process. */
  processIds: number[] | null;
  inverted: boolean;
  groupByThread: boolean;
  /** One root per process (a recording of several); takes the place of groupByThread. */
  groupByProcess: boolean;
  /** Async call stacks where the recording has them (on by default; the switch shows only then). */
  asyncStacks: boolean;
  search: string;
  /** With an event type shown: only the events of this type name (picked in the type or exceptions table); null = all. */
  eventType: string | null;
  /** Only the samples of this HTTP endpoint's requests (picked in the Requests tab); null or absent = all. */
  endpoint?: string | null;
  /** Only the samples of these HTTP requests (one request or a latency range, picked in the Requests tab); null or absent = all. */
  requests?: RequestPick | null;
}

/** Some HTTP requests: their indexes in the recording's order (structs/analysis/request-picks.ts) and what to call them. */
export interface RequestPick {
  ids: number[];
  label: string;
}

export interface FlameShape {
  inverted: boolean;
  groupByThread: boolean;
  groupByProcess: boolean;
  /** The options and folding the tree answers (flameAnswerKey): not the current ones while a changed query is out. */
  answers: string;
}

export type ParallelMode = 'current' | 'window';
export type { ParallelBy };

export interface ExportStatus {
  format: ExportFormat;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  /** The name cancelJob takes while it runs; `cancelling` once Cancel was pressed. */
  jobId: string | null;
  cancelling?: boolean;
  /** Reading the recording back (bytes of its stream), then writing (the writer's steps). */
  phase?: 'reading' | 'writing';
  done: number;
  total: number;
  path: string | null;
  bytes: number | null;
  message: string | null;
}

/** A recording file being opened: what openRecording's progress events said last. */
export interface OpeningStatus {
  path: string;
  /** The name cancelJob takes; `cancelling` once Cancel was pressed. */
  jobId: string;
  cancelling: boolean;
  phase: 'reading' | 'preparing';
  done: number;
  total: number;
}

export interface AppState {
  tab: Tab;
  processes: ProcessInfo[] | null;
  processesLoading: boolean;
  sessions: SessionInfo[];
  selectedSessionId: string | null;
  summary: RecordingSummary | null;
  flame: FlatTree | null;
  /** How `flame` was built: its orientation and grouping may lag the options by one query. */
  flameShape: FlameShape | null;
  parallel: ParallelTree | null;
  parallelMode: ParallelMode;
  /** Threads' stacks, or (a recording with async call stacks) where each logical operation is. */
  parallelBy: ParallelBy;
  flameOptions: FlameOptions;
  /**
   * The flame graph's zoom: the zoomed frame as labels from the root (empty: not zoomed;
   * canvas/flame-zoom.ts). The one owner of it: the view asks the controller to change it
   * and its renderer follows.
   */
  flameZoom: ZoomPath;
  /** Bumped whenever a counters point arrives; the points live in the controller's history. */
  countersVersion: number;
  /** Bumped when the selected session's program output changed; the lines live in the controller's ProgramOutput. */
  outputVersion: number;
  /** Per session id. */
  exports: Record<string, ExportStatus>;
  /** One sentence for the user, or null. */
  error: string | null;
  /** Bytes of the selected session's stream handed to the worker. */
  streamBytes: number;
  /** A launch, attach or demo request is under way. */
  starting: boolean;
  /** A recording file is being opened, or null. */
  opening: OpeningStatus | null;
  /** The folding every view applies (saved with the settings). */
  fold: FoldOptions;
  functions: FunctionsTable | null;
  /** Each function's hottest source line, `path:line`, by frame label (where its PDB was found). */
  sources: ReadonlyMap<string, string>;
  functionsSort: FunctionsSort;
  /** The type table and the exceptions table, for the flame graph's window and threads. */
  eventTables: { types: TypeTable; exceptions: ExceptionTable } | null;
  /** The whole-recording views tabs show (the Thread pool tab's story, the Requests tab's endpoints), as last answered. */
  recordingViews: RecordingViewsState;
  /** The request whose timeline the Requests tab shows (structs/analysis/request-timeline.ts). */
  requestTimeline: RequestTimeline | null;
  typesSort: TableSort<TypesColumn>;
  exceptionsSort: TableSort<ExceptionsColumn>;
  /** The function picked in the functions table (or a sandwich): highlighted in the flame graph. */
  selectedFunction: string | null;
  sandwich: Sandwich | null;
  /** The selected function's time per source line (the Source view). */
  functionLines: FunctionLines | null;
  /** The file the Source view shows (its text, or why not), for `functionLines`' function and file. */
  sourceFile: SourceFile | null;
  timeline: ThreadTimeline | null;
  /** The stack a click on the timeline asked for. */
  timelineStack: StackNear | null;
  diff: { tree: DiffTree; functions: DiffFunctions } | null;
  diffOptions: DiffOptions;
  baselineSummary: BaselineSummary | null;
  /** Bumped when the selected session's measured methods changed; they live in the controller's Measurements. */
  measureVersion: number;
  /** The profiler's latest answer to a measure or revert request, for the Measure view. */
  measureNotice: string | null;
  /** A measure or revert request is under way. */
  measuring: boolean;
  heap: HeapViewState;
}

export const DEFAULT_LAST_SECONDS = 10;

export function initialState(): AppState {
  return {
    tab: 'processes',
    processes: null,
    processesLoading: false,
    sessions: [],
    selectedSessionId: null,
    summary: null,
    flame: null,
    flameShape: null,
    parallel: null,
    parallelMode: 'current',
    parallelBy: 'threads',
    flameOptions: { metric: 'cpu', window: { kind: 'all' }, threadIds: null, processIds: null, inverted: false, groupByThread: false, groupByProcess: false, asyncStacks: true, search: '', eventType: null },
    flameZoom: [],
    countersVersion: 0,
    outputVersion: 0,
    exports: {},
    error: null,
    streamBytes: 0,
    starting: false,
    opening: null,
    fold: DEFAULT_FOLD,
    functions: null,
    sources: new Map(),
    functionsSort: { column: 'self', descending: true },
    eventTables: null,
    recordingViews: NO_RECORDING_VIEWS,
    requestTimeline: null,
    typesSort: { column: 'bytes', descending: true },
    exceptionsSort: { column: 'count', descending: true },
    selectedFunction: null,
    sandwich: null,
    functionLines: null,
    sourceFile: null,
    timeline: null,
    timelineStack: null,
    diff: null,
    diffOptions: { baseline: null, normalize: 'share' },
    baselineSummary: null,
    measureVersion: 0,
    measureNotice: null,
    measuring: false,
    heap: {
      snapshots: [], snapshotId: null, baselineId: null, types: null, sort: { column: 'retainedBytes', descending: true }, filter: '',
      selectedType: null, paths: null, tree: {}, expanded: [], progress: null, busy: false, jobId: null,
    },
  };
}

export function isLive(session: SessionInfo | undefined): boolean {
  return session !== undefined && (session.state === 'starting' || session.state === 'recording');
}
