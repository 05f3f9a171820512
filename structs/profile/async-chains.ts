// Async call stacks as a recording keeps them (PROTOCOL.md, TASK and TASK_SAMPLES): the latest
// definition of each task (its awaiter and name), and per sample the chain of task names it ran
// in, taken when its mark arrives, so a task defined again later does not change an earlier
// sample. Chains are interned by their names: every run of one operation shares one chain,
// while task ids are new on each run.

/** Deeper chains are cut here (the profiler cuts at the same depth). */
export const MAX_CHAIN_LEVELS = 32;

export class AsyncChains {
  private readonly tasks = new Map<number, { awaiterId: number; nameId: number }>();
  private readonly chains: Uint32Array[] = [new Uint32Array(0)];
  private readonly chainIds = new Map<string, number>();
  // Chain id per sample index, allocated at the first mark (recordings without async have none).
  private perSample: Uint32Array | undefined;

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
    let per = this.perSample;
    if (per === undefined || index >= per.length) {
      let size = per === undefined ? 1024 : per.length * 2;
      while (size <= index) size *= 2;
      const grown = new Uint32Array(size);
      if (per !== undefined) grown.set(per);
      per = grown;
      this.perSample = grown;
    }
    per[index] = chain;
  }

  /** Whether any sample was given a chain. */
  get hasMarks(): boolean {
    return this.perSample !== undefined;
  }

  /** Sample `from` is now sample `to` (to < from: samples before it were dropped); clearFrom() then clears the tail. */
  moveMark(from: number, to: number): void {
    const per = this.perSample;
    if (per === undefined || to >= per.length) return;
    per[to] = from < per.length ? per[from] : 0;
  }

  /** Clears the marks of sample indexes from `count` on (dropped samples whose slots no sample took). */
  clearFrom(count: number): void {
    this.perSample?.fill(0, Math.min(count, this.perSample.length));
  }

  ofSample(index: number): number {
    const per = this.perSample;
    return per !== undefined && index < per.length ? per[index] : 0;
  }

  chain(chainId: number): Uint32Array {
    return this.chains[chainId] ?? this.chains[0];
  }

  byteSize(): number {
    return (this.perSample?.byteLength ?? 0) + this.tasks.size * 64 + this.chains.length * 64;
  }
}
