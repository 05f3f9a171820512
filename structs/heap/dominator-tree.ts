// The dominator tree's children lists, in CSR form over the idom column (slot N is the super-root,
// whose children are what roots alone keep alive): the Heap tab's expandable tree and the per-type
// retained bytes both walk it. Built once per snapshot in O(N), 4 bytes per object plus N + 2 offsets.

import type { Dominators } from './dominators.js';

export class DominatorTree {
  /** childStart[v] .. childStart[v + 1] index `children` for node v; v = nodeCount is the super-root. */
  readonly childStart: Int32Array;
  readonly children: Int32Array;

  constructor(readonly nodeCount: number, private readonly dominators: Dominators) {
    const N = nodeCount;
    const { idom } = dominators;
    const childStart = new Int32Array(N + 2);
    for (let v = 0; v < N; v++) if (idom[v] >= -1) childStart[(idom[v] === -1 ? N : idom[v]) + 1]++;
    for (let i = 0; i <= N; i++) childStart[i + 1] += childStart[i];
    const children = new Int32Array(childStart[N + 1]);
    const fill = childStart.slice(0, N + 1);
    for (let v = 0; v < N; v++) if (idom[v] >= -1) children[fill[idom[v] === -1 ? N : idom[v]]++] = v;
    this.childStart = childStart;
    this.children = children;
  }

  /** How many objects `node` immediately dominates (-1: the super-root). */
  childCount(node: number): number {
    const v = node < 0 ? this.nodeCount : node;
    return this.childStart[v + 1] - this.childStart[v];
  }

  /**
   * The `limit` children of `node` (-1: the super-root) that retain the most, most first. A
   * partial selection: a node with a million children costs one pass and a sort of `limit`.
   */
  topChildren(node: number, limit: number): Int32Array {
    const v = node < 0 ? this.nodeCount : node;
    const from = this.childStart[v];
    const to = this.childStart[v + 1];
    const { retained } = this.dominators;
    const byRetained = (a: number, b: number): number => retained[b] - retained[a] || a - b;
    const all = to - from;
    if (all <= limit) return this.children.slice(from, to).sort(byRetained);
    // Keep the best `limit` in a sorted window; most children lose at the first comparison.
    const best: number[] = [];
    for (let i = from; i < to; i++) {
      const c = this.children[i];
      if (best.length === limit) {
        if (byRetained(c, best[limit - 1]) >= 0) continue;
        best.pop();
      }
      let at = best.length;
      while (at > 0 && byRetained(c, best[at - 1]) < 0) at--;
      best.splice(at, 0, c);
    }
    return Int32Array.from(best);
  }
}
