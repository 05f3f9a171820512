// Views aggregate per distinct stack first, so per-frame work is done once per stack rather
// than once per sample.

import { isEventMetric, sumEventsByStack, type ProfileMetric } from './event-metrics.js';
import type { Recording, SampleMetric } from './recording.js';

/** Sum of the metric per stack id (index = stackId); an event metric's events without a stack are left out. */
export function sumByStack(rec: Recording, metric: ProfileMetric): Float64Array {
  if (isEventMetric(metric)) return sumEventsByStack(rec, metric).sums;
  const sums = new Float64Array(rec.stackCount);
  const { stackId, cpuNs, wallNs } = rec.sampleColumns();
  const n = stackId.length;
  if (metric === 'samples') for (let i = 0; i < n; i++) sums[stackId[i]] += 1;
  else {
    const values = metric === 'cpu' ? cpuNs : wallNs;
    for (let i = 0; i < n; i++) sums[stackId[i]] += values[i];
  }
  return sums;
}

export interface StackThreadSum {
  stackId: number;
  threadId: number;
  samples: number;
  cpuNs: number;
  wallNs: number;
}

/** All three metrics summed per (stack, thread) pair, in order of first appearance. `rec` may be a view with other stacks (AsyncSource). */
export function sumByStackAndThread(rec: Pick<Recording, 'sampleColumns' | 'threads'>): StackThreadSum[] {
  const { stackId, threadId, cpuNs, wallNs } = rec.sampleColumns();
  // Dense thread indexes keep the composite key below 2^53 for any realistic stack count.
  const threadIndex = new Map<number, number>();
  for (const t of rec.threads()) threadIndex.set(t.id, threadIndex.size);
  const width = Math.max(1, threadIndex.size);
  const byKey = new Map<number, StackThreadSum>();
  const out: StackThreadSum[] = [];
  for (let i = 0; i < stackId.length; i++) {
    const key = stackId[i] * width + (threadIndex.get(threadId[i]) ?? 0);
    let sum = byKey.get(key);
    if (sum === undefined) {
      sum = { stackId: stackId[i], threadId: threadId[i], samples: 0, cpuNs: 0, wallNs: 0 };
      byKey.set(key, sum);
      out.push(sum);
    }
    sum.samples += 1;
    sum.cpuNs += cpuNs[i];
    sum.wallNs += wallNs[i];
  }
  return out;
}

export function metricOf(sum: StackThreadSum, metric: SampleMetric): number {
  return metric === 'cpu' ? sum.cpuNs : metric === 'wall' ? sum.wallNs : sum.samples;
}
