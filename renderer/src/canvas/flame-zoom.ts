// The zoom of every tree drawn by the flame renderer (the flame graph, the sandwich's halves,
// the differential flame graph), written once. Node indices change with every live update
// of a tree, a frame's path of labels from the root does not: a zoom is that path, and the
// node shown for it is looked up again in each new tree.
//
// The one fallback rule: when the zoomed frame is gone from a new tree (its samples left
// the kept window, or a filter dropped them), the zoom shows the deepest frame of its path
// that is still there, never the whole tree, so the user stays where they were looking.
// The path itself is kept, so the frame is zoomed again once it comes back.

import type { FlatTree } from '../worker/protocol.js';

/** Labels from the root's child down to the zoomed frame; empty when not zoomed. */
export type ZoomPath = readonly string[];

export const NOT_ZOOMED: ZoomPath = [];

/** Labels from the root's child down to `node` (empty for the root or a node the tree does not have). */
export function labelPath(tree: FlatTree, node: number): string[] {
  const path: string[] = [];
  if (node >= tree.nodeCount) return path;
  for (let at = node; at > 0; at = tree.parent[at]) path.push(tree.labels[tree.label[at]]);
  return path.reverse();
}

/**
 * The node `path` leads to in `tree`, or the deepest node on the way that the tree still has
 * (0, the root, when not even the first label is there, and for an empty tree). `end` is the
 * layout's index past each subtree (flame-layout.ts), so siblings are visited, not subtrees.
 */
export function zoomedNode(tree: FlatTree, end: Int32Array, path: ZoomPath): number {
  if (tree.nodeCount === 0) return 0;
  let node = 0;
  for (const name of path) {
    let found = -1;
    for (let c = node + 1; c < end[node]; c = end[c]) {
      if (tree.labels[tree.label[c]] === name) {
        found = c;
        break;
      }
    }
    if (found < 0) break;
    node = found;
  }
  return node;
}

/** What a click on `node` zooms to: its path, NOT_ZOOMED on the root, null on empty space (nothing changes). */
export function zoomAfterClick(tree: FlatTree | null, node: number): ZoomPath | null {
  if (tree === null || node < 0 || node >= tree.nodeCount) return null;
  return node === 0 ? NOT_ZOOMED : labelPath(tree, node);
}

export function sameZoom(a: ZoomPath, b: ZoomPath): boolean {
  return a.length === b.length && a.every((label, i) => label === b[i]);
}
