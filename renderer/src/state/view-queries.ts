// The worker queries the views' options stand for. "Last N seconds" is measured back from
// the newest data the worker has reported, so a stopped recording keeps its last N seconds.

import type { FlameQuery, ParallelQuery, ProcessFilter, RecordingSummary, TimeWindow } from '../worker/protocol.js';
import type { AppState, FlameOptions, ParallelMode, WindowChoice } from './app-state.js';
import type { EventTableQuery } from '../../../structs/profile/event-tables.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { FoldOptions } from '../../../structs/analysis/fold-options.js';

export function timeWindow(choice: WindowChoice, summary: RecordingSummary | null): TimeWindow {
  switch (choice.kind) {
    case 'all':
      return {};
    case 'last': {
      const end = summary?.durationMs ?? 0;
      return { fromMs: Math.max(0, end - choice.seconds * 1000) };
    }
    case 'range':
      return { fromMs: choice.fromMs, toMs: choice.toMs };
  }
}

export function flameQuery(options: FlameOptions, summary: RecordingSummary | null): FlameQuery {
  return {
    metric: options.metric,
    threadIds: options.threadIds === null ? null : [...options.threadIds],
    ...(options.processIds !== null ? { processIds: [...options.processIds] } : {}),
    inverted: options.inverted,
    groupByThread: options.groupByThread,
    // Shown, and so meant, only for a recording of several processes.
    ...(options.groupByProcess && (summary?.processes.length ?? 0) > 1 ? { groupByProcess: true } : {}),
    ...(options.asyncStacks && summary?.hasAsync === true ? { asyncStacks: true } : {}),
    ...(options.eventType !== null && isEventMetric(options.metric) ? { eventType: options.eventType } : {}),
    ...(options.endpoint != null && !isEventMetric(options.metric) ? { endpoint: options.endpoint } : {}),
    ...(options.requests != null && !isEventMetric(options.metric) ? { requestIds: [...options.requests.ids] } : {}),
    ...timeWindow(options.window, summary),
  };
}

/** The type and exceptions tables look at the flame graph's window, threads and processes. */
export function eventTableQuery(options: FlameOptions, summary: RecordingSummary | null): EventTableQuery & ProcessFilter {
  return {
    threadIds: options.threadIds === null ? null : [...options.threadIds],
    ...(options.processIds !== null ? { processIds: [...options.processIds] } : {}),
    ...timeWindow(options.window, summary),
  };
}

/** Parallel stacks look at the flame graph's window (over time) and processes. */
export function parallelQuery(mode: ParallelMode, window: WindowChoice, summary: RecordingSummary | null, processIds: readonly number[] | null = null): ParallelQuery {
  const processes = processIds !== null ? { processIds: [...processIds] } : {};
  return mode === 'current' ? { mode, ...processes } : { mode, ...processes, ...timeWindow(window, summary) };
}

/** What the window choice reads as in a toolbar. */
export function describeWindow(choice: WindowChoice): string {
  switch (choice.kind) {
    case 'all':
      return 'whole recording';
    case 'last':
      return `last ${choice.seconds} s`;
    case 'range':
      return `${(choice.fromMs / 1000).toFixed(2)}–${(choice.toMs / 1000).toFixed(2)} s`;
  }
}

/**
 * What a flame tree answers, as a key: every option that changes the tree (not the search, which
 * only highlights, and not the data, which a live refresh adds to). A window of the last N s
 * counts by its choice, not by where it lies now.
 */
export function flameAnswerKey(options: FlameOptions, fold: FoldOptions): string {
  return JSON.stringify([{ ...options, search: '' }, fold]);
}

/** Whether the flame tree held answers the current options (false before any tree). */
export function flameIsCurrent(s: Pick<AppState, 'flame' | 'flameShape' | 'flameOptions' | 'fold'>): boolean {
  return s.flame !== null && s.flameShape !== null && s.flameShape.answers === flameAnswerKey(s.flameOptions, s.fold);
}
