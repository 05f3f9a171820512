// Node indices change with every live update of a tree; a frame's path of labels from the
// root does not. The flame view keeps its zoom across updates by path.

import type { FlatTree } from '../worker/protocol.js';

/** Labels from the first level below the root down to `node` (empty for the root). */
export function labelPath(tree: FlatTree, node: number): string[] {
  const path: string[] = [];
  for (let at = node; at > 0 && at < tree.nodeCount; at = tree.parent[at]) path.push(tree.labels[tree.label[at]]);
  return path.reverse();
}

/** The node reached by following `path` from the root, or -1 when the tree has no such path. */
export function nodeAtPath(tree: FlatTree, path: readonly string[]): number {
  if (tree.nodeCount === 0) return -1;
  let at = 0;
  for (const label of path) {
    let found = -1;
    // Children of `at` follow it in preorder; the subtree ends at the first node not deeper than it.
    for (let i = at + 1; i < tree.nodeCount && tree.depth[i] > tree.depth[at]; i++) {
      if (tree.parent[i] === at && tree.labels[tree.label[i]] === label) {
        found = i;
        break;
      }
    }
    if (found < 0) return -1;
    at = found;
  }
  return at;
}
