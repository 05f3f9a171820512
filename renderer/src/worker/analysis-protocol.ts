// The worker's analysis requests (issue 13): the functions table, the callers/callees
// sandwich, diffs against a window of the same recording or a baseline recording, the thread
// timeline and one thread's stack at a moment. Each is answered by structs/analysis, the code
// `clrscope report` runs, so the workstation and the report show the same numbers.

import type { DiffFunctions, DiffNormalize, DiffTree } from '../../../structs/analysis/diff.js';
import type { FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { FunctionsTable } from '../../../structs/analysis/functions-table.js';
import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { Sandwich } from '../../../structs/analysis/call-trees.js';
import type { StackNear } from '../../../structs/analysis/profile-analysis.js';
import type { ThreadTimeline, TimelineQuery } from '../../../structs/analysis/thread-timeline.js';
import type { EventTableQuery, ExceptionTable, TypeTable } from '../../../structs/profile/event-tables.js';
import type { RecordingViewId } from '../../../structs/analysis/recording-views.js';
import type { RequestTimeline } from '../../../structs/analysis/request-timeline.js';
import type { ProcessFilter } from './protocol.js';

export type AnalysisMetric = 'cpu' | 'wall' | 'samples';

export interface AnalysisQueryMessage extends ProcessFilter {
  metric: AnalysisMetric;
  /** Milliseconds after the recording's start; absent = open. */
  fromMs?: number;
  toMs?: number;
  /** Wire thread ids; null = every thread. */
  threadIds: number[] | null;
  fold: FoldOptions;
  /** Only the samples these HTTP requests hold (indexes in requestsOf's order; structs/analysis/request-picks.ts). */
  requestIds?: number[];
}

export interface DiffSideQuery {
  /** 'current': the session's own recording; 'baseline': the one fed with baseline-chunk. */
  source: 'current' | 'baseline';
  query: AnalysisQueryMessage;
}

export interface BaselineSummary {
  sampleCount: number;
  durationMs: number;
  /** A sentence when the baseline's stream was corrupt. */
  error: string | null;
}

export type AnalysisRequest =
  | { kind: 'functions'; requestId: number; query: AnalysisQueryMessage }
  | { kind: 'sandwich'; requestId: number; query: AnalysisQueryMessage; name: string }
  | { kind: 'diff'; requestId: number; before: DiffSideQuery; after: DiffSideQuery; normalize: DiffNormalize }
  | { kind: 'timeline'; requestId: number; query: TimelineQuery }
  | { kind: 'stack-near'; requestId: number; threadId: number; atMs: number; fold: FoldOptions }
  /** Forget the baseline recording (before feeding another). */
  | { kind: 'baseline-reset' }
  /** Wire bytes of the baseline recording, as 'chunk' carries the session's. */
  | { kind: 'baseline-chunk'; offset: number; bytes: Uint8Array }
  | { kind: 'baseline-summary'; requestId: number }
  /** The session's frames' source lines as the main process found them (SourceLineTable). */
  | { kind: 'lines'; requestId: number; frameIds: number[]; fileIndex: number[]; lines: number[]; files: string[] }
  /** One function's time per source line (the source panel), by the lines the last 'lines' request gave. */
  | { kind: 'function-lines'; requestId: number; query: AnalysisQueryMessage; name: string }
  /** Allocated and live bytes per type and exceptions per type (structs/profile/event-tables.ts). */
  | { kind: 'event-tables'; requestId: number; query: EventTableQuery & ProcessFilter }
  /** A view of the whole recording registered in structs/analysis/recording-views.ts (the thread pool's story, the requests per endpoint). */
  | { kind: 'recording-view'; requestId: number; view: RecordingViewId }
  /** Where one request's time went (structs/analysis/request-timeline.ts); `index` in requestsOf's order. */
  | { kind: 'request-timeline'; requestId: number; index: number };

export type AnalysisReply =
  | { kind: 'functions'; requestId: number; table: FunctionsTable }
  | { kind: 'sandwich'; requestId: number; sandwich: Sandwich | null }
  | { kind: 'diff'; requestId: number; tree: DiffTree; functions: DiffFunctions }
  | { kind: 'timeline'; requestId: number; timeline: ThreadTimeline }
  | { kind: 'stack-near'; requestId: number; stack: StackNear | null }
  | { kind: 'baseline-summary'; requestId: number; summary: BaselineSummary }
  /** Each function's hottest source line (`path:line`), by frame label (hottest-lines.ts). */
  | { kind: 'sources'; requestId: number; names: string[]; places: string[] }
  | { kind: 'function-lines'; requestId: number; lines: FunctionLines }
  | { kind: 'event-tables'; requestId: number; types: TypeTable; exceptions: ExceptionTable }
  /** `data`: what RECORDING_VIEWS[view] returns. */
  | { kind: 'recording-view'; requestId: number; view: RecordingViewId; data: unknown }
  | { kind: 'request-timeline'; requestId: number; timeline: RequestTimeline | null };
