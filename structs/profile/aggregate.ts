// Views aggregate per distinct stack first, so per-frame work is done once per stack rather
// than once per sample.

import { isEventMetric, sumEventsByStack, type ProfileMetric } from './event-metrics.js';
import type { Recording, SampleColumnViews, SampleMetric } from './recording.js';
import { SampleFlags } from '../wire/records.js';

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

/**
 * All three metrics summed per (stack, thread) pair, in order of first appearance, folded in a
 * batch of samples at a time: a reader of a long stream keeps the sums, not the samples.
 */
export class StackThreadSums {
  readonly list: StackThreadSum[] = [];
  /** The newest sample's time (-Infinity before any). */
  lastMono = Number.NEGATIVE_INFINITY;
  /** Samples that carry a CPU value, and a wall value (SampleFlags), when `add` was given the flags. */
  cpuSamples = 0;
  wallSamples = 0;
  // One map per thread keyed by stack id: small-integer keys keep the lookups fast (a composite
  // stack * threads key would leave the small-integer range on long recordings).
  private readonly byThread = new Map<number, Map<number, StackThreadSum>>();

  add(columns: Pick<SampleColumnViews, 'mono' | 'stackId' | 'threadId' | 'cpuNs' | 'wallNs'> & Partial<Pick<SampleColumnViews, 'flags'>>): void {
    const { mono, stackId, threadId, cpuNs, wallNs, flags } = columns;
    if (flags !== undefined) {
      for (let i = 0; i < flags.length; i++) {
        if ((flags[i] & SampleFlags.Cpu) !== 0) this.cpuSamples++;
        if ((flags[i] & SampleFlags.Wall) !== 0) this.wallSamples++;
      }
    }
    let lastThread = -1;
    let sums: Map<number, StackThreadSum> | undefined;
    for (let i = 0; i < stackId.length; i++) {
      if (threadId[i] !== lastThread || sums === undefined) {
        lastThread = threadId[i];
        sums = this.byThread.get(lastThread);
        if (sums === undefined) {
          sums = new Map();
          this.byThread.set(lastThread, sums);
        }
      }
      let sum = sums.get(stackId[i]);
      if (sum === undefined) {
        sum = { stackId: stackId[i], threadId: threadId[i], samples: 0, cpuNs: 0, wallNs: 0 };
        sums.set(stackId[i], sum);
        this.list.push(sum);
      }
      sum.samples += 1;
      sum.cpuNs += cpuNs[i];
      sum.wallNs += wallNs[i];
      if (mono[i] > this.lastMono) this.lastMono = mono[i];
    }
  }

  /** Samples per stack id (index = stackId). */
  samplesByStack(stackCount: number): Float64Array {
    const out = new Float64Array(stackCount);
    for (const s of this.list) out[s.stackId] += s.samples;
    return out;
  }

  /** A sample metric summed per stack id (index = stackId), as sumByStack gives it from the samples. */
  byStack(metric: SampleMetric, stackCount: number): Float64Array {
    const out = new Float64Array(stackCount);
    for (const s of this.list) out[s.stackId] += metric === 'cpu' ? s.cpuNs : metric === 'wall' ? s.wallNs : s.samples;
    return out;
  }
}

/** All three metrics summed per (stack, thread) pair, in order of first appearance. `rec` may be a view with other stacks (AsyncSource). */
export function sumByStackAndThread(rec: Pick<Recording, 'sampleColumns'>): StackThreadSum[] {
  const sums = new StackThreadSums();
  sums.add(rec.sampleColumns());
  return sums.list;
}

export function metricOf(sum: StackThreadSum, metric: SampleMetric): number {
  return metric === 'cpu' ? sum.cpuNs : metric === 'wall' ? sum.wallNs : sum.samples;
}
