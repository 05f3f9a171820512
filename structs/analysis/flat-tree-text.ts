// A FlatTree as collapsed-stack text, the form tests compare (as speedscope's do) and that
// "copy as collapsed stacks" can hand to other tools; plus the tree's structural invariants.

import type { FlatTree } from './flat-tree.js';

/** One line per node with self value: its path below the root joined by ';', then the self value. Sorted, newline-terminated. */
export function flatTreeToCollapsed(tree: FlatTree): string {
  const paths: string[] = new Array<string>(tree.nodeCount);
  const lines: string[] = [];
  for (let i = 1; i < tree.nodeCount; i++) {
    const p = tree.parent[i];
    const name = tree.labels[tree.label[i]];
    paths[i] = p === 0 ? name : `${paths[p]};${name}`;
    if (tree.self[i] !== 0) lines.push(`${paths[i]} ${tree.self[i]}`);
  }
  lines.sort();
  return lines.map((l) => `${l}\n`).join('');
}

/**
 * What is wrong with `tree` as protocol.ts defines it (empty when nothing): preorder with
 * parents before children, depths one more than the parent's, subtrees contiguous, totals
 * equal to self plus the children's totals, children sorted by label name.
 */
export function flatTreeProblems(tree: FlatTree): string[] {
  const problems: string[] = [];
  const n = tree.nodeCount;
  if (n < 1 || tree.parent[0] !== -1 || tree.depth[0] !== 0) problems.push('node 0 is not a root');
  const childSum = new Float64Array(n);
  const lastChild = new Int32Array(n).fill(-1);
  for (let i = 1; i < n; i++) {
    const p = tree.parent[i];
    if (p < 0 || p >= i) {
      problems.push(`node ${i} has parent ${p}, not an earlier node`);
      continue;
    }
    if (tree.depth[i] !== tree.depth[p] + 1) problems.push(`node ${i} has depth ${tree.depth[i]} under a parent of depth ${tree.depth[p]}`);
    // In preorder the parent is the nearest earlier node of depth one less.
    for (let j = i - 1; j > p; j--) {
      if (tree.depth[j] <= tree.depth[p]) {
        problems.push(`node ${i} is not inside its parent ${p}'s subtree`);
        break;
      }
    }
    const prev = lastChild[p];
    if (prev >= 0 && tree.labels[tree.label[prev]] > tree.labels[tree.label[i]]) problems.push(`children of ${p} are not sorted by name at ${i}`);
    lastChild[p] = i;
    childSum[p] += tree.total[i];
  }
  for (let i = 0; i < n; i++) {
    const expected = tree.self[i] + childSum[i];
    if (Math.abs(expected - tree.total[i]) > 1e-6 * Math.max(1, tree.total[i])) problems.push(`node ${i} total ${tree.total[i]} != self + children ${expected}`);
  }
  if (n > 0 && tree.totalValue !== tree.total[0]) problems.push(`totalValue ${tree.totalValue} != root total ${tree.total[0]}`);
  return problems;
}
