// The "where did the time go" table of `clrscope record`'s summary. Self time goes to the
// innermost managed frame because a thread blocked in libc's futex wait is really spending
// its time in the managed method that waited; natives only win when no managed frame exists.

import { sumByStack } from './aggregate.js';
import { frameLabel } from './frame-label.js';
import { FunctionKind } from '../wire/records.js';
import type { ProfileMetric } from './event-metrics.js';
import type { Recording } from './recording.js';

export interface TopMethodRow {
  name: string;
  module: string;
  selfValue: number;
  selfPct: number;
  totalValue: number;
  totalPct: number;
}

interface Tally {
  functionId: number;
  self: number;
  total: number;
  lastStack: number;
}

/**
 * The `n` functions with the most self value, then total, then name. Percentages are of the
 * metric's sum over all samples. `summed`: the metric per stack already (a recording that keeps
 * no samples).
 */
export function topMethods(rec: Recording, metric: ProfileMetric, n: number, summed?: Float64Array): TopMethodRow[] {
  const byStack = summed ?? sumByStack(rec, metric);
  const tallies = new Map<number, Tally>();
  const tally = (functionId: number): Tally => {
    let t = tallies.get(functionId);
    if (t === undefined) {
      t = { functionId, self: 0, total: 0, lastStack: -1 };
      tallies.set(functionId, t);
    }
    return t;
  };
  let sum = 0;
  for (let stackId = 0; stackId < byStack.length; stackId++) {
    const value = byStack[stackId];
    if (value === 0) continue;
    sum += value;
    const frames = rec.stackFrames(stackId);
    if (frames.length === 0) continue;
    let selfId = frames[0];
    for (let i = 0; i < frames.length; i++) {
      if (rec.functionInfo(frames[i])?.kind === FunctionKind.Managed) {
        selfId = frames[i];
        break;
      }
    }
    tally(selfId).self += value;
    for (let i = 0; i < frames.length; i++) {
      const t = tally(frames[i]);
      // Recursion repeats a function within one stack; it still counts once.
      if (t.lastStack === stackId) continue;
      t.lastStack = stackId;
      t.total += value;
    }
  }
  const pct = (v: number): number => (sum > 0 ? (100 * v) / sum : 0);
  const rows = Array.from(tallies.values(), (t) => {
    const fn = rec.functionInfo(t.functionId);
    return {
      name: fn === undefined ? `[function ${t.functionId}]` : frameLabel(fn),
      module: fn?.module ?? '',
      selfValue: t.self,
      selfPct: pct(t.self),
      totalValue: t.total,
      totalPct: pct(t.total),
    };
  });
  rows.sort((a, b) => b.selfValue - a.selfValue || b.totalValue - a.totalValue || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return rows.slice(0, Math.max(0, n));
}
