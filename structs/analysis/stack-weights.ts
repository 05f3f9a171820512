// The one pass over samples every analysis starts with: the samples of a query (sample type,
// time window, threads) summed per stack, value and count. Everything after works per
// distinct stack, so its cost does not grow with the number of samples.

import type { SampleMetric } from '../profile/recording.js';
import type { FoldedStacks } from './fold.js';
import type { SampleSource } from './stack-source.js';

const NS_PER_MS = 1e6;

export interface SampleQuery {
  /** Sample type: CPU ns, wall ns, or a count of samples. */
  metric: SampleMetric;
  /** Milliseconds after the recording's start, inclusive; absent = from the start. */
  fromMs?: number;
  /** Exclusive; absent = to the end. */
  toMs?: number;
  /** Wire thread ids; absent or null = every thread. */
  threadIds?: readonly number[] | null;
}

export interface StackWeights {
  /** Per stack id: the metric's sum. */
  value: Float64Array;
  /** Per stack id: how many samples. */
  count: Float64Array;
  totalValue: number;
  sampleCount: number;
}

/**
 * Sums the query's samples per stack of `src`. A sample whose metric value is 0 (a wall-only
 * sample in a CPU query) is left out, as the flame graph leaves it out.
 */
export function weighStacks(src: SampleSource, query: SampleQuery): StackWeights {
  const stacks = src.stackCount;
  const value = new Float64Array(stacks);
  const count = new Float64Array(stacks);
  const meta = src.meta;
  if (meta === undefined || src.sampleCount === 0) return { value, count, totalValue: 0, sampleCount: 0 };
  const from = query.fromMs === undefined ? -Infinity : meta.startMono + query.fromMs * NS_PER_MS;
  const to = query.toMs === undefined ? Infinity : meta.startMono + query.toMs * NS_PER_MS;
  const cols = src.sampleColumns();
  const { mono, threadId, stackId } = cols;
  const values = query.metric === 'cpu' ? cols.cpuNs : query.metric === 'wall' ? cols.wallNs : null;
  const allowed = query.threadIds === undefined || query.threadIds === null ? null : new Set(query.threadIds);
  const windowed = from !== -Infinity || to !== Infinity;
  let totalValue = 0;
  let sampleCount = 0;
  const n = stackId.length;
  for (let i = 0; i < n; i++) {
    const v = values === null ? 1 : values[i];
    if (v === 0) continue;
    if (windowed) {
      const m = mono[i];
      if (m < from || m >= to) continue;
    }
    if (allowed !== null && !allowed.has(threadId[i])) continue;
    const s = stackId[i];
    value[s] += v;
    count[s] += 1;
    totalValue += v;
    sampleCount++;
  }
  return { value, count, totalValue, sampleCount };
}

/** The same weights per folded stack. */
export function foldWeights(fold: FoldedStacks, w: StackWeights): StackWeights {
  const n = w.value.length;
  const map = fold.mapAll(n);
  const value = new Float64Array(fold.stackCount);
  const count = new Float64Array(fold.stackCount);
  for (let s = 0; s < n; s++) {
    if (w.count[s] === 0) continue;
    value[map[s]] += w.value[s];
    count[map[s]] += w.count[s];
  }
  return { value, count, totalValue: w.totalValue, sampleCount: w.sampleCount };
}

/** Which sample types a recording has values for, in the order the report offers them. */
export function sampleTypesOf(src: SampleSource): SampleMetric[] {
  const { cpuNs, wallNs } = src.sampleColumns();
  const types: SampleMetric[] = [];
  if (cpuNs.some((v) => v !== 0)) types.push('cpu');
  if (wallNs.some((v) => v !== 0)) types.push('wall');
  types.push('samples');
  return types;
}
