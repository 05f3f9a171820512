// Per-stack sums of a growing recording, kept so a live refresh costs the samples that arrived
// since the previous one plus the tree, not the whole recording. Samples are folded in when a
// query asks (never twice): per recorded stack, the CPU and wall sums and, once a query has
// filtered or grouped by thread, the sums per (stack, thread). A time window takes the sums of
// the whole minutes inside it (per (minute, stack)) and scans only the samples of its ragged
// ends, found through 1 s buckets that remember which run of sample indexes they span.
//
// Sums of the whole recording are added in sample order, so they equal a full scan's bit for
// bit; a window or a thread-filtered or grouped tree adds partial sums, which equals the scan
// exactly for integer nanoseconds (the wire's u64 values, exact in doubles below 2^53 ns = 104 days).

import type { Recording } from '../../../structs/profile/recording.js';
import { PairTable, growFloat64, growInt32 } from '../../../structs/analysis/pair-table.js';
import type { FlameMetric } from './protocol.js';
import type { MonoBounds } from './sample-filter.js';

const NS_PER_BUCKET = 1e9;
const NS_PER_BLOCK = 60e9;
// Buckets beyond this (115 days after HELLO; a corrupt or foreign clock) share the last one:
// the window scan tests every sample's time, so a shared bucket is slower, never wrong.
const MAX_BUCKETS = 1 << 23;
const DENSE_THREAD_LIMIT = 1 << 20;

/** What a summing pass saw: samples taken into the tree and the newest of them (target mono ns). */
export interface Sums {
  count: number;
  newestMono: number;
}

/** One metric's totals: per stack, per thread (by StackSums' own thread index) and overall. */
class MetricSums {
  stack = new Float64Array(1024);
  // Per stack: how many samples with a non-zero value (the analyses' sample counts).
  stackSamples = new Float64Array(1024);
  threadCount = new Float64Array(64);
  threadNewest = new Float64Array(64).fill(-Infinity);
  count = 0;
  newest = -Infinity;
  // Per (stack, thread) pair, by PairTable index; filled only once a query needs threads.
  pair = new Float64Array(0);
}

export class StackSums {
  private readonly rec: Recording;
  private counted = 0;
  // Samples in the time index (buckets, per-minute sums): every counted one, unless the recording let them go.
  private indexed = 0;
  private readonly metrics: [MetricSums, MetricSums] = [new MetricSums(), new MetricSums()];
  // Wire thread id -> our dense thread index + 1 (0: not seen yet); large ids in the Map.
  private threadIndex = new Int32Array(64);
  private readonly sparseThreads = new Map<number, number>();
  /** Our thread index -> wire thread id. */
  readonly threadIds: number[] = [];
  // Per-thread pair sums start at the first query that filters or groups by thread, from sample 0.
  private pairs: PairTable | null = null;
  private pairsCounted = 0;
  // Per 1 s bucket after HELLO: the first and last sample index in it (-1: none yet).
  private bucketFirst = new Int32Array(256).fill(-1);
  private bucketLast = new Int32Array(256).fill(-1);
  private buckets = 0;
  // Per (minute after HELLO, stack): CPU and wall sums; per minute and metric: samples and the newest.
  private readonly blockPairs = new PairTable(1 << 12);
  private blockSum: [Float64Array, Float64Array] = [new Float64Array(1 << 12), new Float64Array(1 << 12)];
  private blockCount: [Float64Array, Float64Array] = [new Float64Array(64), new Float64Array(64)];
  private blockNewest: [Float64Array, Float64Array] = [new Float64Array(64).fill(-Infinity), new Float64Array(64).fill(-Infinity)];
  private readonly nsPerBlock: number;
  // Per stack: the minute its last sample fell in and that (minute, stack)'s index, so a run of
  // samples in one minute finds its sums without hashing.
  private pairOfStack = new Int32Array(1024);
  private blockOfStack = new Int32Array(1024).fill(-1);

  /** `blockSeconds`: the span of the sums windows take whole (tests make it short). */
  constructor(rec: Recording, blockSeconds = NS_PER_BLOCK / 1e9) {
    this.rec = rec;
    this.nsPerBlock = blockSeconds * 1e9;
  }

  /**
   * Folds in the samples that arrived since the last call: the totals always; the time index
   * (1 s buckets, per-minute sums) only while the recording keeps every sample, since windows
   * read the samples of their ragged ends anyway. A recording that keeps only its recent
   * samples (the worker's, until a view needs them all) gets its time index built when a window
   * first asks (ensureIndex), from the samples decoded again then.
   */
  update(): void {
    const meta = this.rec.meta;
    // A recording that keeps only recent samples holds those from `base` on (the rest were folded in).
    let { base, columns: cols } = this.rec.recentSamples();
    if (this.counted < base) {
      cols = this.rec.sampleColumns();
      base = 0;
    }
    const n = base + cols.mono.length;
    if (meta === undefined || n === this.counted) return;
    const { mono, threadId, stackId, cpuNs, wallNs } = cols;
    const stacks = this.rec.stackCount;
    const [cpu, wall] = this.metrics;
    for (const m of this.metrics) {
      if (m.stack.length >= stacks) continue;
      m.stack = growFloat64(m.stack, stacks);
      m.stackSamples = growFloat64(m.stackSamples, stacks);
    }
    for (let j = this.counted - base; j < n - base; j++) {
      const t = this.indexOf(threadId[j]);
      const m = mono[j];
      const s = stackId[j];
      const c = cpuNs[j];
      if (c !== 0) add(cpu, s, t, c, m);
      const w = wallNs[j];
      if (w !== 0) add(wall, s, t, w, m);
    }
    this.counted = n;
    if (this.rec.keepsSamples) this.indexTo(n);
    if (this.pairs !== null) this.updatePairs();
  }

  /** The time index up to every sample counted, from the samples decoded again if the recording let them go. */
  private ensureIndex(): void {
    this.update();
    if (this.indexed < this.counted) this.indexTo(this.counted);
  }

  /** Adds samples indexed .. n - 1 to the 1 s buckets and the per-minute sums. */
  private indexTo(n: number): void {
    const meta = this.rec.meta;
    if (meta === undefined || n <= this.indexed) return;
    const { mono, stackId, cpuNs, wallNs } = this.rec.sampleColumns();
    const stacks = this.rec.stackCount;
    const start = meta.startMono;
    if (this.pairOfStack.length < stacks) {
      this.pairOfStack = growInt32(this.pairOfStack, stacks);
      const blocks = new Int32Array(this.pairOfStack.length).fill(-1);
      blocks.set(this.blockOfStack);
      this.blockOfStack = blocks;
    }
    const pairOfStack = this.pairOfStack;
    const blockOfStack = this.blockOfStack;
    // Samples come mostly in time order: the bucket and minute of the previous one usually fit.
    let bucket = -1;
    let bucketFrom = Infinity;
    let bucketTo = -Infinity;
    let block = -1;
    let blockFrom = Infinity;
    let blockTo = -Infinity;
    for (let i = this.indexed; i < n; i++) {
      const m = mono[i];
      const s = stackId[i];
      const c = cpuNs[i];
      const w = wallNs[i];
      if (!(m >= bucketFrom && m < bucketTo)) {
        bucket = bucketOf(m, start);
        bucketFrom = start + bucket * NS_PER_BUCKET;
        bucketTo = bucketFrom + NS_PER_BUCKET;
        // The first and last buckets also hold what lies beyond them: no fast path there.
        if (bucket === 0 || bucket === MAX_BUCKETS - 1) bucketTo = -Infinity;
        if (bucket >= this.bucketFirst.length) this.growBuckets(bucket + 1);
        if (bucket >= this.buckets) this.buckets = bucket + 1;
      }
      if (this.bucketFirst[bucket] < 0) this.bucketFirst[bucket] = i;
      this.bucketLast[bucket] = i;
      if (!(m >= blockFrom && m < blockTo)) {
        // Samples before HELLO or absurdly late belong to no minute (-1): windows scan for them.
        const k = spanIndex(m, start, this.nsPerBlock);
        block = k >= 0 && k < MAX_BUCKETS ? k : -1;
        blockFrom = block < 0 ? Infinity : start + block * this.nsPerBlock;
        blockTo = block < 0 ? -Infinity : blockFrom + this.nsPerBlock;
        this.growBlocks(block);
      }
      if (block < 0) continue;
      let p: number;
      if (blockOfStack[s] === block) {
        p = pairOfStack[s];
      } else {
        p = this.blockPairOf(block, s);
        blockOfStack[s] = block;
        pairOfStack[s] = p;
      }
      if (c !== 0) addToBlockMetric(this.blockSum[0], this.blockCount[0], this.blockNewest[0], p, block, c, m);
      if (w !== 0) addToBlockMetric(this.blockSum[1], this.blockCount[1], this.blockNewest[1], p, block, w, m);
    }
    this.indexed = n;
  }

  /** The sums of the whole recording for `metric`: per stack (index = stack id), samples counted and the newest. */
  totals(metric: FlameMetric): { stack: Float64Array; samples: Float64Array; sums: Sums } {
    this.update();
    const m = this.metrics[metric === 'cpu' ? 0 : 1];
    const stacks = this.rec.stackCount;
    return { stack: m.stack.subarray(0, stacks), samples: m.stackSamples.subarray(0, stacks), sums: { count: m.count, newestMono: m.newest } };
  }

  /**
   * Calls visit(stack, thread id, sum) for every (stack, thread) with a non-zero sum of
   * `metric` whose thread `keep` accepts, and returns those threads' sample count and newest.
   */
  forEachThreadSum(metric: FlameMetric, keep: (threadId: number) => boolean, visit: (stackId: number, threadId: number, sum: number) => void): Sums {
    this.update();
    if (this.pairs === null) {
      this.pairs = new PairTable(1 << 12);
      this.updatePairs();
    }
    const m = this.metrics[metric === 'cpu' ? 0 : 1];
    const kept = this.threadIds.map((id) => keep(id));
    let count = 0;
    let newest = -Infinity;
    kept.forEach((k, t) => {
      if (!k) return;
      count += m.threadCount[t];
      if (m.threadNewest[t] > newest) newest = m.threadNewest[t];
    });
    const { first, second } = this.pairs;
    for (let p = 0; p < this.pairs.size; p++) {
      const v = m.pair[p];
      if (v !== 0 && kept[second[p]]) visit(first[p], this.threadIds[second[p]], v);
    }
    return { count, newestMono: newest };
  }

  /**
   * The run of sample indexes [from, to) that holds every sample inside `bounds` (and others,
   * which the caller's per-sample time test leaves out). Empty when no sample can be inside.
   */
  indexRange(bounds: MonoBounds): { from: number; to: number } {
    this.ensureIndex();
    const meta = this.rec.meta;
    if (meta === undefined || this.buckets === 0 || bounds.from >= bounds.to) return { from: 0, to: 0 };
    const lo = bucketOf(bounds.from, meta.startMono);
    const hi = Math.min(bucketOf(bounds.to, meta.startMono), this.buckets - 1);
    let from = Infinity;
    let to = -1;
    for (let b = lo; b <= hi; b++) {
      if (this.bucketFirst[b] < 0) continue;
      if (this.bucketFirst[b] < from) from = this.bucketFirst[b];
      if (this.bucketLast[b] > to) to = this.bucketLast[b];
    }
    return to < 0 ? { from: 0, to: 0 } : { from, to: to + 1 };
  }

  /**
   * Adds to `perStack` (index = stack id) the sums of `metric` over the samples inside `bounds`,
   * every thread: the minutes wholly inside from their sums, the rest sample by sample.
   */
  windowSums(metric: FlameMetric, window: MonoBounds, perStack: Float64Array): Sums {
    this.ensureIndex();
    // An unreadable bound is an open one, as the scan's comparisons treat it.
    const bounds = { from: Number.isNaN(window.from) ? -Infinity : window.from, to: Number.isNaN(window.to) ? Infinity : window.to };
    const meta = this.rec.meta;
    const sums: Sums = { count: 0, newestMono: -Infinity };
    if (meta === undefined || !(bounds.from < bounds.to)) return sums;
    const x = metric === 'cpu' ? 0 : 1;
    const start = meta.startMono;
    const blocks = this.blockCount[x].length;
    // Whole minutes [first, end) inside the window.
    let first = Math.max(0, Math.ceil((bounds.from - start) / this.nsPerBlock));
    let end = Math.min(blocks, Math.floor((bounds.to - start) / this.nsPerBlock));
    // The edges as the minutes' own expressions give them, whatever the division rounded.
    if (start + first * this.nsPerBlock < bounds.from) first++;
    if (start + end * this.nsPerBlock > bounds.to) end--;
    if (first >= end) {
      this.scan(x, bounds, perStack, sums);
      return sums;
    }
    const blockSum = this.blockSum[x];
    const { first: blockOf, second: stackOf } = this.blockPairs;
    for (let p = 0; p < this.blockPairs.size; p++) {
      const b = blockOf[p];
      if (b >= first && b < end) perStack[stackOf[p]] += blockSum[p];
    }
    for (let b = first; b < end; b++) {
      sums.count += this.blockCount[x][b];
      if (this.blockNewest[x][b] > sums.newestMono) sums.newestMono = this.blockNewest[x][b];
    }
    this.scan(x, { from: bounds.from, to: start + first * this.nsPerBlock }, perStack, sums);
    this.scan(x, { from: start + end * this.nsPerBlock, to: bounds.to }, perStack, sums);
    return sums;
  }

  /** Adds the samples inside `bounds` one by one (the ragged ends of a window). */
  private scan(x: number, bounds: MonoBounds, perStack: Float64Array, sums: Sums): void {
    if (!(bounds.from < bounds.to)) return;
    const { from, to } = this.indexRange(bounds);
    const cols = this.rec.sampleColumns();
    const values = x === 0 ? cols.cpuNs : cols.wallNs;
    const { mono, stackId } = cols;
    for (let i = from; i < to; i++) {
      const v = values[i];
      if (v === 0) continue;
      const m = mono[i];
      if (m < bounds.from || m >= bounds.to) continue;
      perStack[stackId[i]] += v;
      sums.count++;
      if (m > sums.newestMono) sums.newestMono = m;
    }
  }

  /** The index of (block, stack) in the block sums, grown to hold it. */
  private blockPairOf(block: number, stack: number): number {
    const p = this.blockPairs.intern(block, stack);
    if (p >= this.blockSum[0].length) {
      const size = Math.max(p + 1, this.blockPairs.first.length);
      this.blockSum = [growFloat64(this.blockSum[0], size), growFloat64(this.blockSum[1], size)];
    }
    return p;
  }

  private growBlocks(block: number): void {
    if (block < this.blockCount[0].length) return;
    const size = Math.max(block + 1, this.blockCount[0].length * 2);
    this.blockCount = [growFloat64(this.blockCount[0], size), growFloat64(this.blockCount[1], size)];
    const grownSize = this.blockCount[0].length;
    this.blockNewest = this.blockNewest.map((a) => {
      const grown = new Float64Array(grownSize).fill(-Infinity);
      grown.set(a);
      return grown;
    }) as [Float64Array, Float64Array];
  }

  private updatePairs(): void {
    const pairs = this.pairs as PairTable;
    const { threadId, stackId, cpuNs, wallNs } = this.rec.sampleColumns();
    const [cpu, wall] = this.metrics;
    for (let i = this.pairsCounted; i < this.counted; i++) {
      const p = pairs.intern(stackId[i], this.indexOf(threadId[i]));
      if (p >= cpu.pair.length) {
        const size = Math.max(p + 1, pairs.first.length);
        cpu.pair = growFloat64(cpu.pair, size);
        wall.pair = growFloat64(wall.pair, size);
      }
      cpu.pair[p] += cpuNs[i];
      wall.pair[p] += wallNs[i];
    }
    this.pairsCounted = this.counted;
  }

  private indexOf(threadId: number): number {
    if (threadId < DENSE_THREAD_LIMIT) {
      if (threadId < this.threadIndex.length) {
        const t = this.threadIndex[threadId];
        if (t !== 0) return t - 1;
      }
    } else {
      const t = this.sparseThreads.get(threadId);
      if (t !== undefined) return t;
    }
    return this.addThread(threadId);
  }

  private addThread(threadId: number): number {
    const t = this.threadIds.length;
    this.threadIds.push(threadId);
    if (threadId < DENSE_THREAD_LIMIT) {
      if (threadId >= this.threadIndex.length) this.threadIndex = growInt32(this.threadIndex, threadId + 1);
      this.threadIndex[threadId] = t + 1;
    } else {
      this.sparseThreads.set(threadId, t);
    }
    for (const m of this.metrics) {
      if (t >= m.threadCount.length) {
        m.threadCount = growFloat64(m.threadCount, t + 1);
        const newest = new Float64Array(m.threadCount.length).fill(-Infinity);
        newest.set(m.threadNewest);
        m.threadNewest = newest;
      }
    }
    return t;
  }

  private growBuckets(size: number): void {
    const n = Math.max(size, this.bucketFirst.length * 2);
    const first = new Int32Array(n).fill(-1);
    first.set(this.bucketFirst);
    const last = new Int32Array(n).fill(-1);
    last.set(this.bucketLast);
    this.bucketFirst = first;
    this.bucketLast = last;
  }
}

function addToBlockMetric(sum: Float64Array, count: Float64Array, newest: Float64Array, pair: number, block: number, value: number, mono: number): void {
  sum[pair] += value;
  count[block]++;
  if (mono > newest[block]) newest[block] = mono;
}

function add(m: MetricSums, stack: number, thread: number, value: number, mono: number): void {
  m.stack[stack] += value;
  m.stackSamples[stack]++;
  m.count++;
  if (mono > m.newest) m.newest = mono;
  m.threadCount[thread]++;
  if (mono > m.threadNewest[thread]) m.threadNewest[thread] = mono;
}

/** The bucket of a mono time; monotone in `mono`, so a window's samples lie in its bounds' buckets. */
function bucketOf(mono: number, startMono: number): number {
  const b = spanIndex(mono, startMono, NS_PER_BUCKET);
  if (!(b > 0)) return 0;
  return b < MAX_BUCKETS ? b : MAX_BUCKETS - 1;
}

/**
 * k such that start + k * width <= mono < start + (k + 1) * width, computed with the same
 * expressions the windows use for the edges, so a sample on an edge (within rounding) falls
 * on the side the windows put it on.
 */
function spanIndex(mono: number, start: number, width: number): number {
  let k = Math.floor((mono - start) / width);
  if (!(Math.abs(k) < 2 ** 40)) return k;
  if (mono < start + k * width) k--;
  else if (mono >= start + (k + 1) * width) k++;
  return k;
}
