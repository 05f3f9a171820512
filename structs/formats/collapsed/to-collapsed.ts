// Brendan Gregg's collapsed-stack text (`root;...;leaf VALUE`), which speedscope and
// flamegraph.pl read and which tests use to compare merged and exported profiles as text.

import { sumByStackAndThread, metricOf } from '../../profile/aggregate.js';
import { frameLabel } from '../../profile/frame-label.js';
import type { Recording, SampleMetric } from '../../profile/recording.js';
import { threadLabel } from '../../profile/thread-label.js';

export interface CollapsedOptions {
  metric: SampleMetric;
  /** Prefix each stack with its thread's name; threads sharing a name merge, as in any collapsed tool. */
  groupByThread?: boolean;
}

/** ';' separates frames and a newline ends a line, so neither may appear inside a frame. */
function clean(text: string): string {
  return text.replace(/[;\r\n]/g, '_');
}

/** Lines `[thread;]root;...;leaf VALUE`, sorted, equal lines summed, zero-valued ones left out; ends with a newline. */
export function toCollapsed(rec: Recording, options: CollapsedOptions): string {
  const stackText: (string | undefined)[] = [];
  const textOf = (stackId: number): string => {
    let text = stackText[stackId];
    if (text === undefined) {
      const frames = rec.stackFrames(stackId);
      const parts: string[] = [];
      for (let i = frames.length - 1; i >= 0; i--) {
        const fn = rec.functionInfo(frames[i]);
        parts.push(fn === undefined ? `[function ${frames[i]}]` : clean(frameLabel(fn)));
      }
      text = parts.join(';');
      stackText[stackId] = text;
    }
    return text;
  };
  const lines = new Map<string, number>();
  for (const sum of sumByStackAndThread(rec)) {
    const value = metricOf(sum, options.metric);
    if (value === 0) continue;
    const stack = textOf(sum.stackId);
    const line = options.groupByThread ? `${clean(threadLabel(rec.thread(sum.threadId), sum.threadId))};${stack}` : stack;
    lines.set(line, (lines.get(line) ?? 0) + value);
  }
  const keys = Array.from(lines.keys()).sort();
  return keys.map((k) => `${k} ${lines.get(k)}\n`).join('');
}
