// Frame and thread labels of one recording, interned to small integers so the tree merge
// compares integers, not strings. Function ids map to labels through a dense array (writer
// ids are small and sequential), so the per-frame lookup in the merge is one typed-array read.
// Two functions with the same label text share a label, so they merge in trees exactly as
// they do in collapsed-stack text.

import { frameLabel } from '../profile/frame-label.js';
import { threadLabel } from '../profile/thread-label.js';
import type { StackSource } from './stack-source.js';
import { FunctionKind } from '../wire/records.js';

/** labelKind of thread and process nodes (FunctionKind covers 0..2). */
export const THREAD_KIND = 3;
/** Label id of the synthetic root ("all"). */
export const ROOT_LABEL = 0;
export const ROOT_NAME = 'all';

// Function ids below this go in the dense array (4 MiB at most); larger ones in a Map.
const DENSE_LIMIT = 1 << 20;

export class LabelTable {
  readonly names: string[] = [ROOT_NAME];
  readonly kinds: number[] = [FunctionKind.Synthetic];
  private readonly rec: StackSource;
  private readonly functionText = new Map<string, number>();
  private readonly threadText = new Map<string, number>();
  // function id -> label + 1 (0 = not looked up yet).
  private dense = new Int32Array(1024);
  private readonly sparse = new Map<number, number>();
  private sorted: number[] = [ROOT_LABEL];
  private rankCache = new Int32Array(1);

  constructor(rec: StackSource) {
    this.rec = rec;
  }

  get count(): number {
    return this.names.length;
  }

  ofFunction(functionId: number): number {
    if (functionId < this.dense.length) {
      const l = this.dense[functionId];
      if (l !== 0) return l - 1;
    }
    return this.lookUpFunction(functionId);
  }

  /** The label of a thread's node: its name, or "thread <tid>" when unnamed; same-named threads share it. */
  ofThread(threadId: number): number {
    return this.ofGroup(threadLabel(this.rec.thread(threadId), threadId));
  }

  /** The label of a node that groups samples by who ran them (a thread, a process: "[pid name]"), by its text. */
  ofGroup(text: string): number {
    let l = this.threadText.get(text);
    if (l === undefined) {
      l = this.add(text, THREAD_KIND);
      this.threadText.set(text, l);
    }
    return l;
  }

  /**
   * rank[label] = the label's position when all labels are sorted by name (then kind), so
   * sorting paths compares integers. Kept sorted incrementally: after the first queries a
   * live recording adds few new functions per update.
   */
  rank(): Int32Array {
    const n = this.names.length;
    if (this.rankCache.length === n) return this.rankCache;
    const fresh: number[] = [];
    for (let l = this.rankCache.length; l < n; l++) fresh.push(l);
    if (fresh.length * 8 > n) {
      this.sorted = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.compare(a, b));
    } else {
      for (const l of fresh) this.sorted.splice(this.insertionPoint(l), 0, l);
    }
    const rank = new Int32Array(n);
    for (let i = 0; i < n; i++) rank[this.sorted[i]] = i;
    this.rankCache = rank;
    return rank;
  }

  /** The label whose rank is `rank` (call rank() first, after the last label was added). */
  labelAtRank(rank: number): number {
    return this.sorted[rank];
  }

  private compare(a: number, b: number): number {
    const x = this.names[a];
    const y = this.names[b];
    if (x !== y) return x < y ? -1 : 1;
    return this.kinds[a] - this.kinds[b];
  }

  private insertionPoint(label: number): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.sorted[mid], label) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private lookUpFunction(functionId: number): number {
    const known = this.sparse.get(functionId);
    if (known !== undefined) return known;
    const fn = this.rec.functionInfo(functionId);
    const text = fn === undefined ? `[function ${functionId}]` : frameLabel(fn);
    let l = this.functionText.get(text);
    if (l === undefined) {
      l = this.add(text, fn === undefined ? FunctionKind.Synthetic : fn.kind);
      this.functionText.set(text, l);
    }
    if (functionId < DENSE_LIMIT) {
      if (functionId >= this.dense.length) {
        let size = this.dense.length * 2;
        while (size <= functionId) size *= 2;
        const grown = new Int32Array(size);
        grown.set(this.dense);
        this.dense = grown;
      }
      this.dense[functionId] = l + 1;
    } else {
      this.sparse.set(functionId, l);
    }
    return l;
  }

  private add(text: string, kind: number): number {
    this.names.push(text);
    this.kinds.push(kind);
    return this.names.length - 1;
  }
}
