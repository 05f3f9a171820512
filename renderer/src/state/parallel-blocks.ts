// Turns the worker's parallel-stacks tree into the blocks the view draws: a chain of frames
// that every thread passing through it shares (single child, same threads) is one block, so
// forty frames of thread-start plumbing take one line until the user opens them. By operations,
// a block also ends where some of its operations sit (the next node has fewer).

import type { FlatTree, ParallelTree } from '../worker/protocol.js';

export interface StackBlock {
  /** Node indices of the chain, outermost caller first. */
  nodes: number[];
  /** Wire thread ids through the block's last node (sorted). */
  threads: number[];
  children: StackBlock[];
}

export function childLists(tree: FlatTree): number[][] {
  const children: number[][] = Array.from({ length: tree.nodeCount }, () => []);
  for (let i = 1; i < tree.nodeCount; i++) {
    const p = tree.parent[i];
    if (p >= 0 && p < tree.nodeCount) children[p].push(i);
  }
  return children;
}

function sameThreads(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The blocks under the synthetic root, widest (most threads, then most time; by operations, most operations) first. */
export function stackBlocks(tree: ParallelTree): StackBlock[] {
  if (tree.nodeCount === 0) return [];
  const children = childLists(tree);
  const byOperations = tree.by === 'operations';
  const order = (list: number[]): number[] =>
    [...list].sort((a, b) => byOperations
      ? tree.total[b] - tree.total[a]
      : (tree.threads[b]?.length ?? 0) - (tree.threads[a]?.length ?? 0) || tree.total[b] - tree.total[a]);
  const build = (start: number): StackBlock => {
    const nodes = [start];
    let at = start;
    // Extend while the chain neither branches nor loses a thread (a thread ending here is a split
    // too) nor, by operations, an operation.
    while (children[at].length === 1 && sameThreads(tree.threads[children[at][0]] ?? [], tree.threads[at] ?? [])
      && (!byOperations || tree.total[children[at][0]] === tree.total[at])) {
      at = children[at][0];
      nodes.push(at);
    }
    return { nodes, threads: tree.threads[at] ?? [], children: order(children[at]).map(build) };
  };
  return order(children[0]).map(build);
}

/**
 * One thread's stack through the tree, outermost caller first, root excluded. In 'current'
 * mode a thread is on exactly one path; over a window it may be on several, and this follows
 * the heaviest.
 */
export function threadStack(tree: ParallelTree, threadId: number): number[] {
  if (tree.nodeCount === 0) return [];
  const children = childLists(tree);
  const path: number[] = [];
  let at = 0;
  for (;;) {
    let best = -1;
    for (const c of children[at]) {
      if (!(tree.threads[c] ?? []).includes(threadId)) continue;
      if (best < 0 || tree.total[c] > tree.total[best]) best = c;
    }
    if (best < 0) return path;
    path.push(best);
    at = best;
  }
}
