// The worker's half of the analysis requests (analysis-protocol.ts): it owns the session's
// ProfileAnalysis (folded stacks kept per folding choice, so a live refresh folds only the
// new stacks), the baseline recording a diff compares with, and one LabelTable per folded
// view so the flame graph and parallel stacks keep their cheap incremental label ranks.

import type { FlatTree } from '../../../structs/analysis/flat-tree.js';
import { isNoFold, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import type { FoldedStacks } from '../../../structs/analysis/fold.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { ProfileAnalysis, diffAnalyses, type AnalysisQuery, type WholeWeights } from '../../../structs/analysis/profile-analysis.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { FrameLines, knownLines } from '../../../structs/profile/frame-lines.js';
import { functionLines } from '../../../structs/analysis/function-lines.js';
import { hottestLines, type StackTotals } from '../../../structs/analysis/hottest-lines.js';
import { exceptionTable, typeTable } from '../../../structs/profile/event-tables.js';
import { isRecordingViewId, recordingView } from '../../../structs/analysis/recording-views.js';
import { requestSampleMask, requestSetKey } from '../../../structs/analysis/request-picks.js';
import { requestTimeline } from '../../../structs/analysis/request-timeline.js';
import type { AnalysisQueryMessage, AnalysisReply, AnalysisRequest, BaselineSummary } from './analysis-protocol.js';
import { StreamFeed } from './stream-feed.js';
import { queryThreads } from './process-filter.js';

export interface AnalysisOutput {
  reply: AnalysisReply | { kind: 'error'; requestId: number | null; message: string };
  transfer: ArrayBuffer[];
}

/** A folded view for the flame graph and parallel stacks: its stacks and its labels. */
export interface FoldedView {
  stacks: FoldedStacks;
  labels: LabelTable;
}

/** The analysis's query over `rec`: the process filter becomes the threads of its processes. */
function analysisQuery(rec: Recording, q: AnalysisQueryMessage): AnalysisQuery {
  const threadIds = queryThreads(rec, q.threadIds, q.processIds);
  // Some requests' samples: the same rule as their flame graph's (worker/flame-endpoint.ts).
  const samples = q.requestIds === undefined ? {} : { samples: { key: `${requestSetKey(q.requestIds)}@${rec.sampleCount}`, keep: requestSampleMask(rec, q.requestIds) } };
  return { metric: q.metric, fold: q.fold, threadIds, ...samples, ...(q.fromMs !== undefined ? { fromMs: q.fromMs } : {}), ...(q.toMs !== undefined ? { toMs: q.toMs } : {}) };
}

/** The distinct ArrayBuffers under `arrays`, to transfer rather than copy. */
export function buffersOf(arrays: readonly ArrayBufferView[]): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer && !out.includes(a.buffer)) out.push(a.buffer);
  return out;
}

export function flatTreeArrays(tree: FlatTree): ArrayBufferView[] {
  return [tree.label, tree.parent, tree.depth, tree.total, tree.self, tree.labelKind];
}

export class AnalysisCore {
  private analysisValue: ProfileAnalysis;
  private baseline: StreamFeed | null = null;
  private baselineAnalysis: ProfileAnalysis | null = null;

  private readonly rec: Recording;
  // The frames' lines as the main process last gave them (none until it did).
  private lines: FrameLines | null = null;

  // The worker's running per-stack sums as the whole recording's weights, so that the functions
  // table, the sandwich and each function's hottest line do not need every sample
  // (hottest-lines.ts says why); without them the samples are read.
  private readonly whole: WholeWeights | undefined;

  constructor(rec: Recording, whole?: WholeWeights) {
    this.rec = rec;
    this.whole = whole;
    this.analysisValue = new ProfileAnalysis(rec, whole);
  }

  get analysis(): ProfileAnalysis {
    return this.analysisValue;
  }

  /** The recording let its oldest samples go (a kept window): what was weighed and folded from them starts over; the baseline stays. */
  rebase(): void {
    this.analysisValue = new ProfileAnalysis(this.rec, this.whole);
  }

  private stackTotals(): StackTotals | undefined {
    const cpu = this.whole?.('cpu');
    const wall = this.whole?.('wall');
    return cpu === undefined || wall === undefined ? undefined : { cpu: cpu.value, wall: wall.value };
  }

  /** The folded view the options ask for; null when they fold nothing (the recording's own stacks serve). */
  view(fold: FoldOptions | undefined): FoldedView | null {
    if (fold === undefined || isNoFold(fold)) return null;
    const stacks = this.analysis.folded(fold);
    return { stacks, labels: this.analysis.labelsOf(stacks) };
  }

  /** The reply to an analysis request, or null for the baseline's feeding (which only replies when it fails). */
  handle(request: AnalysisRequest): AnalysisOutput | null {
    switch (request.kind) {
      case 'functions': {
        const table = this.analysis.functions(analysisQuery(this.rec, request.query));
        return { reply: { kind: 'functions', requestId: request.requestId, table }, transfer: buffersOf([table.kind, table.self, table.total, table.selfSamples, table.totalSamples]) };
      }
      case 'sandwich': {
        const sandwich = this.analysis.sandwich(analysisQuery(this.rec, request.query), request.name);
        const transfer = sandwich === null ? [] : buffersOf([...flatTreeArrays(sandwich.callers), ...flatTreeArrays(sandwich.callees)]);
        return { reply: { kind: 'sandwich', requestId: request.requestId, sandwich }, transfer };
      }
      case 'diff': {
        const side = (source: 'current' | 'baseline'): ProfileAnalysis | string => {
          if (source === 'current') return this.analysis;
          return this.baselineAnalysis ?? 'No baseline recording is loaded to compare with.';
        };
        const before = side(request.before.source);
        const after = side(request.after.source);
        if (typeof before === 'string' || typeof after === 'string') {
          return { reply: { kind: 'error', requestId: request.requestId, message: typeof before === 'string' ? before : after as string }, transfer: [] };
        }
        const recordingOf = (source: 'current' | 'baseline'): Recording => (source === 'current' ? this.rec : this.baseline?.recording ?? this.rec);
        const d = diffAnalyses(
          before, analysisQuery(recordingOf(request.before.source), request.before.query),
          after, analysisQuery(recordingOf(request.after.source), request.after.query), request.normalize,
        );
        const t = d.tree;
        const f = d.functions;
        return {
          reply: { kind: 'diff', requestId: request.requestId, tree: t, functions: f },
          transfer: buffersOf([...flatTreeArrays(t), t.before, t.after, t.beforeSelf, t.afterSelf, t.delta, f.kind, f.beforeSelf, f.beforeTotal, f.afterSelf, f.afterTotal]),
        };
      }
      case 'timeline': {
        const timeline = this.analysis.timeline(request.query);
        return { reply: { kind: 'timeline', requestId: request.requestId, timeline }, transfer: buffersOf([timeline.cpu, timeline.seen]) };
      }
      case 'stack-near':
        return { reply: { kind: 'stack-near', requestId: request.requestId, stack: this.analysis.stackNear(request.threadId, request.atMs, request.fold) }, transfer: [] };
      case 'baseline-reset':
        this.baseline = null;
        this.baselineAnalysis = null;
        return null;
      case 'baseline-chunk': {
        if (this.baseline === null) {
          this.baseline = new StreamFeed();
          this.baselineAnalysis = new ProfileAnalysis(this.baseline.recording);
        }
        const failure = this.baseline.push(request.offset, request.bytes);
        return failure === null ? null : { reply: { kind: 'error', requestId: null, message: `The baseline recording: ${failure}` }, transfer: [] };
      }
      case 'baseline-summary':
        return { reply: { kind: 'baseline-summary', requestId: request.requestId, summary: this.baselineSummary() }, transfer: [] };
      case 'lines': {
        const at = request.lines.map((line, i) => ({ file: request.files[request.fileIndex[i]] ?? '', line }));
        this.lines = knownLines(this.rec, request.frameIds, at);
        const sources = hottestLines(this.rec, this.lines, this.stackTotals());
        return { reply: { kind: 'sources', requestId: request.requestId, names: [...sources.keys()], places: [...sources.values()] }, transfer: [] };
      }
      case 'function-lines': {
        const lines = functionLines(this.rec, this.lines ?? new FrameLines(this.rec, () => null), request.name, analysisQuery(this.rec, request.query));
        return { reply: { kind: 'function-lines', requestId: request.requestId, lines }, transfer: [] };
      }
      case 'event-tables': {
        const query = { ...request.query, threadIds: queryThreads(this.rec, request.query.threadIds, request.query.processIds) };
        return {
          reply: { kind: 'event-tables', requestId: request.requestId, types: typeTable(this.rec, query), exceptions: exceptionTable(this.rec, query) },
          transfer: [],
        };
      }
      case 'recording-view': {
        // The view's name comes across the worker boundary: only a registered one is run.
        if (!isRecordingViewId(request.view)) return { reply: { kind: 'error', requestId: request.requestId, message: `The profile worker has no view ${JSON.stringify(request.view)}.` }, transfer: [] };
        return { reply: { kind: 'recording-view', requestId: request.requestId, view: request.view, data: recordingView(this.rec, request.view) }, transfer: [] };
      }
      case 'request-timeline': return { reply: { kind: 'request-timeline', requestId: request.requestId, timeline: requestTimeline(this.rec, request.index) }, transfer: [] };
    }
  }

  private baselineSummary(): BaselineSummary {
    const rec = this.baseline?.recording;
    if (rec === undefined || rec.meta === undefined) return { sampleCount: 0, durationMs: 0, error: this.baseline?.error ?? null };
    let last = rec.meta.startMono;
    const { mono } = rec.sampleColumns();
    for (let i = 0; i < mono.length; i++) if (mono[i] > last) last = mono[i];
    return { sampleCount: rec.sampleCount, durationMs: (last - rec.meta.startMono) / 1e6, error: this.baseline?.error ?? null };
  }
}
