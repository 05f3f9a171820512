// The flame graph without a mouse: what a key does to the zoomed frame. The zoomed frame is the
// keyboard's place in the graph (the app state keeps it as a path, flame-zoom.ts), so every move
// is a zoom: into the widest callee, out to the caller, to the frame beside it, to the next
// frame the search matches.

import type { FlatTree } from '../../../structs/analysis/flat-tree.js';

/** The node after `node`'s subtree (preorder: the next node no deeper than it). */
function subtreeEnd(tree: FlatTree, node: number): number {
  let i = node + 1;
  while (i < tree.nodeCount && tree.depth[i] > tree.depth[node]) i++;
  return i;
}

/** `node`'s children, in the tree's order. */
export function childrenOf(tree: FlatTree, node: number): number[] {
  const out: number[] = [];
  const end = subtreeEnd(tree, node);
  for (let c = node + 1; c < end; c = subtreeEnd(tree, c)) out.push(c);
  return out;
}

export type FlameMove = 'in' | 'out' | 'previous' | 'next';

/** The frame a move goes to from `node` (the root is 0); `node` itself when there is nowhere to go. */
export function moveFrom(tree: FlatTree, node: number, move: FlameMove): number {
  if (tree.nodeCount === 0) return 0;
  if (move === 'in') {
    const kids = childrenOf(tree, node);
    return kids.length === 0 ? node : kids.reduce((a, b) => (tree.total[b] > tree.total[a] ? b : a));
  }
  if (node === 0) return 0;
  const parent = tree.parent[node];
  if (move === 'out') return parent;
  const siblings = childrenOf(tree, parent);
  const at = siblings.indexOf(node);
  const next = move === 'next' ? at + 1 : at - 1;
  return next < 0 || next >= siblings.length ? node : siblings[next];
}

/** The frames a search matches, outermost ones only (a match inside a match is in its width), in preorder. */
export function matchedFrames(tree: FlatTree, matches: (label: string) => boolean): number[] {
  const out: number[] = [];
  for (let i = 1; i < tree.nodeCount;) {
    if (matches(tree.labels[tree.label[i]])) {
      out.push(i);
      i = subtreeEnd(tree, i);
    } else i++;
  }
  return out;
}

/** The match after (or before, `step` -1) the frame `node`, wrapping around; -1 when nothing matches. */
export function nextMatch(matched: readonly number[], node: number, step: 1 | -1): number {
  if (matched.length === 0) return -1;
  if (step === 1) return matched.find((m) => m > node) ?? matched[0];
  for (let k = matched.length - 1; k >= 0; k--) if (matched[k] < node) return matched[k];
  return matched[matched.length - 1];
}

/** The node a zoom path leads to, or the deepest node on the way the tree still has. */
export function nodeOfPath(tree: FlatTree, path: readonly string[]): number {
  let node = 0;
  for (const label of path) {
    const child = childrenOf(tree, node).find((c) => tree.labels[tree.label[c]] === label);
    if (child === undefined) break;
    node = child;
  }
  return node;
}

/** The move a key asks for in a flame graph drawn root at the bottom (`inverted`: at the top); null for other keys. */
export function moveOfKey(key: string, inverted: boolean): FlameMove | null {
  switch (key) {
    case '+': case '=': return 'in';
    case '-': return 'out';
    case 'ArrowUp': return inverted ? 'out' : 'in';
    case 'ArrowDown': return inverted ? 'in' : 'out';
    case 'ArrowLeft': return 'previous';
    case 'ArrowRight': return 'next';
    default: return null;
  }
}
