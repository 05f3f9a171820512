// Async call stacks as a recording keeps them (PROTOCOL.md, TASK and TASK_SAMPLES): the latest
// definition of each task (its awaiter and name), and per sample the chain of task names it ran
// in, taken when its mark arrives, so a task defined again later does not change an earlier
// sample. Chains are interned by their names: every run of one operation shares one chain,
// while task ids are new on each run. Samples of suspended operations may also say how many
// operations they stand for (OPERATION_COUNTS): few samples have one, so those are kept as
// (sample index, count) pairs in sample order, not per sample.

import { PerSampleMarks } from './per-sample-marks.js';

/** Deeper chains are cut here (the profiler cuts at the same depth). */
export const MAX_CHAIN_LEVELS = 32;

export class AsyncChains {
  private readonly tasks = new Map<number, { awaiterId: number; nameId: number }>();
  private readonly chains: Uint32Array[] = [new Uint32Array(0)];
  private readonly chainIds = new Map<string, number>();
  // Chain id per sample index (recordings without async have none).
  private readonly perSample = new PerSampleMarks();
  // Operation counts: sample indexes, ascending, and their counts.
  private countIndex = new Float64Array(0);
  private countValue = new Uint32Array(0);
  private counts = 0;
  // During a dropBefore pass: the first moved sample's new index (-1: none yet) and the
  // (new index, count) pairs of the moved samples that have counts.
  private movedFrom = -1;
  private moved: number[] = [];

  get count(): number {
    return this.chains.length - 1;
  }

  define(taskId: number, awaiterId: number, nameId: number): void {
    this.tasks.set(taskId, { awaiterId, nameId });
  }

  /** Whether a TASK record defined `taskId`. */
  has(taskId: number): boolean {
    return this.tasks.has(taskId);
  }

  /** Sample `index` ran task `taskId`; false when the task was never defined. */
  mark(index: number, taskId: number): boolean {
    if (!this.tasks.has(taskId)) return false;
    const names: number[] = [];
    const seen = new Set<number>();
    for (let id = taskId; id !== 0 && names.length < MAX_CHAIN_LEVELS && !seen.has(id);) {
      seen.add(id);
      const task = this.tasks.get(id);
      if (task === undefined) break;  // an awaiter the writer did not define: the chain ends there
      names.push(task.nameId);
      id = task.awaiterId;
    }
    this.setChain(index, this.intern(names));
    return true;
  }

  /** Sets a sample's chain directly from names (importers, tests); returns the chain id. */
  intern(names: readonly number[]): number {
    const key = names.join(',');
    let chain = this.chainIds.get(key);
    if (chain === undefined) {
      chain = this.chains.length;
      this.chains.push(Uint32Array.from(names));
      this.chainIds.set(key, chain);
    }
    return chain;
  }

  setChain(index: number, chain: number): void {
    this.perSample.set(index, chain);
  }

  /** Sample `index` (marked with a task) stands for `count` suspended operations; indexes come in order. */
  setOperations(index: number, count: number): void {
    const n = this.counts;
    if (n > 0 && index <= this.countIndex[n - 1]) {
      // A sample counted again (a file that repeats itself): the latest count holds.
      const at = this.findCount(index);
      if (at >= 0) this.countValue[at] = count;
      return;
    }
    if (n === this.countIndex.length) {
      const size = Math.max(256, n * 2);
      const index2 = new Float64Array(size);
      index2.set(this.countIndex);
      const value2 = new Uint32Array(size);
      value2.set(this.countValue);
      this.countIndex = index2;
      this.countValue = value2;
    }
    this.countIndex[n] = index;
    this.countValue[n] = count;
    this.counts = n + 1;
  }

  /** How many suspended operations sample `index` stands for (0: none said). */
  operationsOf(index: number): number {
    const at = this.findCount(index);
    return at < 0 ? 0 : this.countValue[at];
  }

  /** Whether any sample has an operation count. */
  get hasOperationCounts(): boolean {
    return this.counts > 0;
  }

  private findCount(index: number): number {
    let lo = 0;
    let hi = this.counts - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.countIndex[mid];
      if (v === index) return mid;
      if (v < index) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Whether any sample was given a chain. */
  get hasMarks(): boolean {
    return this.perSample.hasMarks;
  }

  /**
   * Sample `from` is now sample `to` (to < from: samples before it were dropped); clearFrom() then
   * clears the tail. Calls come in sample order, and every sample after the first dropped one
   * moves, so the counts of samples before the first call's `to` stay where they are.
   */
  moveMark(from: number, to: number): void {
    this.perSample.moveMark(from, to);
    if (this.counts === 0) return;
    if (this.movedFrom < 0) {
      this.movedFrom = to;
      this.moved = [];
    }
    const count = this.operationsOf(from);
    if (count !== 0) this.moved.push(to, count);
  }

  /** Clears the marks of sample indexes from `count` on (dropped samples whose slots no sample took). */
  clearFrom(count: number): void {
    this.perSample.clearFrom(count);
    if (this.counts === 0) return;
    // The counts of samples that stayed, then those of samples that moved, then none past `count`.
    const stayed = this.movedFrom < 0 ? count : this.movedFrom;
    let n = 0;
    while (n < this.counts && this.countIndex[n] < stayed) n++;
    const moved = this.moved;
    this.counts = n;
    for (let i = 0; i < moved.length; i += 2) {
      if (moved[i] < count) this.setOperations(moved[i], moved[i + 1]);
    }
    this.movedFrom = -1;
    this.moved = [];
  }

  ofSample(index: number): number {
    return this.perSample.of(index);
  }

  chain(chainId: number): Uint32Array {
    return this.chains[chainId] ?? this.chains[0];
  }

  byteSize(): number {
    return this.perSample.byteSize() + this.tasks.size * 64 + this.chains.length * 64 + this.countIndex.byteLength + this.countValue.byteLength;
  }
}
