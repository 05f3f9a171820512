// Sample values from the time between a thread's samples. The runtime's sample profiler samples
// every managed thread once per tick, but a tick is "sleep 1 ms, then suspend the runtime and
// walk every thread", so on a busy machine ticks come every few milliseconds, not every one:
// valuing each sample at the nominal 1 ms undercounts by that factor. Here a sample is worth the
// time since the same thread's previous sample, which is what clrscope's own wall samples mean.

export interface SampleGaps {
  /** Per sample (indexed as the input), the wall time it stands for, ns. */
  wallNs: Float64Array;
  /** The median gap: the effective sampling interval, ns. */
  typicalNs: number;
}

/** Gaps longer than this many typical gaps are not the sampler's rhythm (a pause, a new thread): such a sample counts one typical gap. */
const LONG_GAP_FACTOR = 10;

/**
 * `timeNs[i]`, `thread[i]` for `count` samples, visited in `order` (time order; undefined when
 * already sorted); thread values are dense indexes (the import's thread table), not OS ids.
 * `fallbackNs`: the interval when there are no gaps to measure (one sample per thread).
 */
export function sampleGaps(timeNs: Float64Array, thread: Uint32Array, count: number, order: Uint32Array | undefined, fallbackNs: number): SampleGaps {
  // Runs on the main process's thread when a fallback session stops, over millions of samples:
  // hence typed arrays (no boxed numbers, no Map per sample) and a selection, not a sort, for the median.
  let threads = 0;
  for (let i = 0; i < count; i++) if (thread[i] >= threads) threads = thread[i] + 1;
  const last = new Float64Array(threads).fill(Number.NaN);
  // Holds each sample's raw gap (-1: the thread's first) until the last loop turns it into the value.
  const wallNs = new Float64Array(count);
  const measured = new Float64Array(count);
  let measuredCount = 0;
  for (let k = 0; k < count; k++) {
    const i = order === undefined ? k : order[k];
    const t = timeNs[i];
    const previous = last[thread[i]];
    const first = Number.isNaN(previous);
    wallNs[i] = first ? -1 : t - previous;
    if (!first && t > previous) measured[measuredCount++] = t - previous;
    last[thread[i]] = t;
  }
  let typicalNs = fallbackNs;
  if (measuredCount > 0) typicalNs = Math.max(1, Math.round(kthSmallest(measured.subarray(0, measuredCount), measuredCount >> 1)));
  const longest = LONG_GAP_FACTOR * typicalNs;
  for (let i = 0; i < count; i++) {
    const g = wallNs[i];
    wallNs[i] = g <= 0 || g > longest ? typicalNs : Math.round(g);
  }
  return { wallNs, typicalNs };
}

/**
 * PerfView's thread time (TraceEvent's SampleProfilerThreadTimeComputer): each sample is worth
 * the time until its thread's next sample, so a thread's time between two samples goes to what
 * the first one saw. A thread's last sample has no next one: it is worth the typical gap, or the
 * time left to `endNs` if that is shorter. Same arguments as sampleGaps.
 */
export function forwardGaps(timeNs: Float64Array, thread: Uint32Array, count: number, order: Uint32Array | undefined, fallbackNs: number, endNs: number): SampleGaps {
  let threads = 0;
  for (let i = 0; i < count; i++) if (thread[i] >= threads) threads = thread[i] + 1;
  // Per thread, the index of its latest sample so far (-1: none yet).
  const previous = new Int32Array(threads).fill(-1);
  const wallNs = new Float64Array(count).fill(-1);
  const measured = new Float64Array(count);
  let measuredCount = 0;
  for (let k = 0; k < count; k++) {
    const i = order === undefined ? k : order[k];
    const p = previous[thread[i]];
    if (p >= 0) {
      const gap = Math.max(0, timeNs[i] - timeNs[p]);
      wallNs[p] = Math.round(gap);
      if (gap > 0) measured[measuredCount++] = gap;
    }
    previous[thread[i]] = i;
  }
  let typicalNs = fallbackNs;
  if (measuredCount > 0) typicalNs = Math.max(1, Math.round(kthSmallest(measured.subarray(0, measuredCount), measuredCount >> 1)));
  for (let i = 0; i < count; i++) if (wallNs[i] < 0) wallNs[i] = Math.max(0, Math.min(typicalNs, Math.round(endNs - timeNs[i])));
  return { wallNs, typicalNs };
}

/**
 * The value that would sit at index `k` of `values` sorted ascending (reorders `values`).
 * Hoare's selection: about 6 times faster than sorting a few million gaps, for the same value.
 * A partition that keeps going badly (the middle pivot can be the worst on crafted input) hands
 * the rest to the typed-array sort after `rounds` partitions, so the time is never quadratic.
 */
export function kthSmallest(values: Float64Array, k: number, rounds = 2 * Math.ceil(Math.log2(values.length + 1)) + 8): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi > lo) {
    if (rounds-- === 0) {
      values.subarray(lo, hi + 1).sort();
      return values[k];
    }
    const pivot = values[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const v = values[i];
        values[i] = values[j];
        values[j] = v;
        i++;
        j--;
      }
    }
    // Now [lo, j] ≤ pivot ≤ [i, hi], and anything between is the pivot itself.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k];
  }
  return values[k];
}
