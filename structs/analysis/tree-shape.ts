// The call tree of every stack of a source, built once (the sort-based merge is the dear
// part of a tree) and then filled with any weights in time proportional to the stacks and
// nodes: a stopped recording answers each new window, thread filter or diff without sorting
// its stacks again. A grown recording (new stacks, new labels) gets a new shape.

import type { FlatTree } from './flat-tree.js';
import type { LabelTable } from './label-table.js';
import type { StackSource } from './stack-source.js';
import { MergeKeys, mergeKeys } from './tree-merge.js';

export interface TreeShape {
  /** Every stack's path merged, root first; values are zero. */
  tree: FlatTree;
  /** Per stack id: the node its path ends at. */
  endNode: Int32Array;
  stackCount: number;
  /** The label table's size when built: a new label changes the order of children. */
  labelCount: number;
}

export function treeShape(stacks: StackSource, labels: LabelTable): TreeShape {
  const keys = new MergeKeys();
  const n = stacks.stackCount;
  for (let s = 0; s < n; s++) keys.add(s, -1, 0);
  const { tree, endNode } = mergeKeys(stacks, labels, keys, false, 0);
  return { tree, endNode, stackCount: n, labelCount: labels.count };
}

export interface ProjectedTree {
  /** The nodes some side reaches, in the shape's order; `self`/`total` as `widths` gives them. */
  tree: FlatTree;
  /** Per side, per node of `tree`: self and total in that side's values. The tree's arrays are its own: they may be transferred. */
  self: Float64Array[];
  total: Float64Array[];
}

/**
 * Fills the shape with per-stack values (one array per side, per stack id, values >= 0) and
 * keeps the nodes some side reaches. The tree's own self values are the sides' selfs weighted
 * by `weights` (one number per side: 1 for a plain tree, each side's scale over 2 for a diff's
 * mean of two sides), its totals summed from them.
 */
export function projectTree(shape: TreeShape, sides: readonly Float64Array[], weights: readonly number[], sampleCount: number): ProjectedTree {
  const full = shape.tree;
  const nodes = full.nodeCount;
  const fullParent = full.parent;
  const selfs: Float64Array[] = [];
  const totals: Float64Array[] = [];
  for (const values of sides) {
    const self = new Float64Array(nodes);
    const n = Math.min(values.length, shape.stackCount);
    const end = shape.endNode;
    for (let s = 0; s < n; s++) {
      const v = values[s];
      if (v !== 0) self[end[s]] += v;
    }
    const total = self.slice();
    for (let i = nodes - 1; i > 0; i--) total[fullParent[i]] += total[i];
    selfs.push(self);
    totals.push(total);
  }
  // Keep the root and every node a side reaches; in preorder a kept node's parent is kept too.
  const newIndex = new Int32Array(nodes).fill(-1);
  let kept = 0;
  for (let i = 0; i < nodes; i++) {
    let reached = i === 0;
    for (let k = 0; k < totals.length && !reached; k++) reached = totals[k][i] !== 0;
    if (reached) newIndex[i] = kept++;
  }
  const label = new Int32Array(kept);
  const parent = new Int32Array(kept);
  const depth = new Uint16Array(kept);
  for (let i = 0; i < nodes; i++) {
    const j = newIndex[i];
    if (j < 0) continue;
    label[j] = full.label[i];
    parent[j] = i === 0 ? -1 : newIndex[fullParent[i]];
    depth[j] = full.depth[i];
  }
  const pick = (a: Float64Array): Float64Array => {
    const out = new Float64Array(kept);
    for (let i = 0; i < nodes; i++) if (newIndex[i] >= 0) out[newIndex[i]] = a[i];
    return out;
  };
  const outSelf = selfs.map(pick);
  const outTotal = totals.map(pick);
  const self = new Float64Array(kept);
  outSelf.forEach((side, k) => {
    const w = weights[k];
    for (let j = 0; j < kept; j++) self[j] += side[j] * w;
  });
  const total = self.slice();
  for (let j = kept - 1; j > 0; j--) total[parent[j]] += total[j];
  return {
    tree: { nodeCount: kept, label, parent, depth, total, self, labels: full.labels, labelKind: full.labelKind.slice(), totalValue: kept > 0 ? total[0] : 0, sampleCount },
    self: outSelf,
    total: outTotal,
  };
}
