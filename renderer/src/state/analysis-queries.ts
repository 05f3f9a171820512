// The analysis requests the views' options stand for: the functions table, the sandwich and
// the diff's after side take the flame graph's metric, window and threads, so every view
// looks at the same samples; all of them take the folding the user picked.

import type { FoldOptions } from '../../../structs/analysis/fold-options.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { AnalysisQueryMessage, DiffSideQuery } from '../worker/analysis-protocol.js';
import type { RecordingSummary } from '../worker/protocol.js';
import type { DiffBaseline, FlameOptions } from './app-state.js';
import { timeWindow } from './view-queries.js';

export function analysisQuery(options: FlameOptions, fold: FoldOptions, summary: RecordingSummary | null): AnalysisQueryMessage {
  return {
    // The analyses weigh samples; with an event type in the flame graph they show CPU time.
    metric: isEventMetric(options.metric) ? 'cpu' : options.metric,
    threadIds: options.threadIds === null ? null : [...options.threadIds],
    ...(options.processIds !== null ? { processIds: [...options.processIds] } : {}),
    fold,
    ...(options.requests != null ? { requestIds: [...options.requests.ids] } : {}),
    ...timeWindow(options.window, summary),
  };
}

/** The before side of a diff: a window of the same recording (same threads), or another recording whole. */
export function baselineSide(baseline: DiffBaseline, after: AnalysisQueryMessage): DiffSideQuery {
  if (baseline.kind === 'window') {
    return { source: 'current', query: { ...after, fromMs: baseline.fromMs, toMs: baseline.toMs } };
  }
  if (baseline.kind === 'requests') {
    // Requests are compared whole: their samples, on whichever threads and whenever they ran.
    return { source: 'current', query: { metric: after.metric, threadIds: null, fold: after.fold, requestIds: [...baseline.requests.ids] } };
  }
  // Thread ids and processes are one recording's own: the other recording is compared whole.
  return { source: 'baseline', query: { metric: after.metric, threadIds: null, fold: after.fold } };
}
