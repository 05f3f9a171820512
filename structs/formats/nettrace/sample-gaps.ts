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
 * already sorted). `fallbackNs`: the interval when there are no gaps to measure (one sample per thread).
 */
export function sampleGaps(timeNs: (i: number) => number, thread: Uint32Array, count: number, order: Uint32Array | undefined, fallbackNs: number): SampleGaps {
  const last = new Map<number, number>();
  const gaps = new Float64Array(count);
  const measured: number[] = [];
  for (let k = 0; k < count; k++) {
    const i = order === undefined ? k : order[k];
    const t = timeNs(i);
    const previous = last.get(thread[i]);
    gaps[i] = previous === undefined ? -1 : t - previous;
    if (previous !== undefined && t > previous) measured.push(t - previous);
    last.set(thread[i], t);
  }
  let typicalNs = fallbackNs;
  if (measured.length > 0) {
    measured.sort((a, b) => a - b);
    typicalNs = Math.max(1, Math.round(measured[measured.length >> 1]));
  }
  const longest = LONG_GAP_FACTOR * typicalNs;
  const wallNs = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const g = gaps[i];
    wallNs[i] = g <= 0 || g > longest ? typicalNs : Math.round(g);
  }
  return { wallNs, typicalNs };
}
