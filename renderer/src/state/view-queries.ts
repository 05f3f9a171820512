// The worker queries the views' options stand for. "Last N seconds" is measured back from
// the newest data the worker has reported, so a stopped recording keeps its last N seconds.

import type { FlameQuery, ParallelQuery, RecordingSummary, TimeWindow } from '../worker/protocol.js';
import type { FlameOptions, ParallelMode, WindowChoice } from './app-state.js';

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
    inverted: options.inverted,
    groupByThread: options.groupByThread,
    ...(options.asyncStacks && summary?.hasAsync === true ? { asyncStacks: true } : {}),
    ...timeWindow(options.window, summary),
  };
}

export function parallelQuery(mode: ParallelMode, window: WindowChoice, summary: RecordingSummary | null): ParallelQuery {
  return mode === 'current' ? { mode } : { mode, ...timeWindow(window, summary) };
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
