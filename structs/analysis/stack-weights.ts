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
  /** Only the samples whose `keep` is 1 (some HTTP requests' samples: request-picks.ts); `key` names the set for caches. */
  samples?: { readonly key: string; readonly keep: Uint8Array };
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
  const ids = query.threadIds === undefined || query.threadIds === null ? null : query.threadIds;
  // Thread ids are small writer numbers: a mask by id, or a Set for an importer's large ones.
  const allowed = ids === null ? null : threadMask(ids);
  const allowedSet = ids !== null && allowed === null ? new Set(ids) : null;
  const n = stackId.length;
  const keep = query.samples?.keep ?? null;
  // One loop per case, so the common one (a metric, no window, no thread filter) tests nothing
  // but the value: this loop is the one part of every analysis that runs per sample.
  if (values !== null && ids === null && from === -Infinity && to === Infinity && keep === null) {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === 0) continue;
      const s = stackId[i];
      value[s] += v;
      count[s] += 1;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = values === null ? 1 : values[i];
      if (v === 0 || (keep !== null && keep[i] !== 1)) continue;
      const m = mono[i];
      if (m < from || m >= to) continue;
      if (allowed !== null) {
        const t = threadId[i];
        if (t >= allowed.length || allowed[t] === 0) continue;
      } else if (allowedSet !== null && !allowedSet.has(threadId[i])) {
        continue;
      }
      const s = stackId[i];
      value[s] += v;
      count[s] += 1;
    }
  }
  return stackWeights(value, count);
}

/** Per-stack sums and counts with their totals (added in stack order, as every pass adds them). */
export function stackWeights(value: Float64Array, count: Float64Array): StackWeights {
  let totalValue = 0;
  let sampleCount = 0;
  for (let s = 0; s < value.length; s++) {
    totalValue += value[s];
    sampleCount += count[s];
  }
  return { value, count, totalValue, sampleCount };
}

/**
 * The samples of two windows of one recording (same metric and threads), summed in one pass:
 * a diff of two windows reads the samples once.
 */
export function weighStacksTwice(src: SampleSource, a: SampleQuery, b: SampleQuery): [StackWeights, StackWeights] {
  const stacks = src.stackCount;
  const out: [StackWeights, StackWeights] = [
    { value: new Float64Array(stacks), count: new Float64Array(stacks), totalValue: 0, sampleCount: 0 },
    { value: new Float64Array(stacks), count: new Float64Array(stacks), totalValue: 0, sampleCount: 0 },
  ];
  const meta = src.meta;
  if (meta === undefined || src.sampleCount === 0) return out;
  const bound = (ms: number | undefined, open: number): number => (ms === undefined ? open : meta.startMono + ms * NS_PER_MS);
  const fromA = bound(a.fromMs, -Infinity);
  const toA = bound(a.toMs, Infinity);
  const fromB = bound(b.fromMs, -Infinity);
  const toB = bound(b.toMs, Infinity);
  const cols = src.sampleColumns();
  const { mono, threadId, stackId } = cols;
  const values = a.metric === 'cpu' ? cols.cpuNs : a.metric === 'wall' ? cols.wallNs : null;
  const ids = a.threadIds ?? null;
  const allowed = ids === null ? null : threadMask(ids);
  const allowedSet = ids !== null && allowed === null ? new Set(ids) : null;
  const [va, ca, vb, cb] = [out[0].value, out[0].count, out[1].value, out[1].count];
  for (let i = 0; i < stackId.length; i++) {
    const v = values === null ? 1 : values[i];
    if (v === 0) continue;
    if (allowed !== null) {
      const t = threadId[i];
      if (t >= allowed.length || allowed[t] === 0) continue;
    } else if (allowedSet !== null && !allowedSet.has(threadId[i])) {
      continue;
    }
    const m = mono[i];
    const s = stackId[i];
    if (m >= fromA && m < toA) { va[s] += v; ca[s] += 1; }
    if (m >= fromB && m < toB) { vb[s] += v; cb[s] += 1; }
  }
  return [stackWeights(va, ca), stackWeights(vb, cb)];
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

/** Per thread id, 1 when it is one of `ids`; null when an id is too large for a dense mask. */
function threadMask(ids: readonly number[]): Uint8Array | null {
  let max = 0;
  for (const id of ids) {
    if (id >= 1 << 20) return null;
    if (id > max) max = id;
  }
  const mask = new Uint8Array(max + 1);
  for (const id of ids) mask[id] = 1;
  return mask;
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
