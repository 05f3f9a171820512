// Reuses a merged tree's shape while its keys stay the same. A live recording's whole-tree
// refresh mostly brings more samples of stacks it already has: the same keys (stack, thread
// label) with larger values. The tree's nodes, labels and order depend only on the keys, so
// then only self and total need filling in — a pass over the nodes instead of sorting every
// stack's path again. Any new key (a new stack, a thread renamed, another fold) merges anew.

import type { FlatTree } from '../../../structs/analysis/flat-tree.js';
import type { LabelTable } from '../../../structs/analysis/label-table.js';
import type { StackSource } from '../../../structs/analysis/stack-source.js';
import { mergeKeys, type MergeKeys } from '../../../structs/analysis/tree-merge.js';

// Shapes kept at once: a few views asking different trees of the same session.
const MAX_SHAPES = 8;

interface Shape {
  source: StackSource;
  labels: LabelTable;
  inverted: boolean;
  stack: Int32Array;
  prefix: Int32Array;
  order: Int32Array;
  endNode: Int32Array;
  // The tree's columns that do not depend on values; handed out as copies (replies transfer theirs).
  label: Int32Array;
  parent: Int32Array;
  depth: Uint16Array;
  labelNames: string[];
  labelKind: Uint8Array;
}

export class TreeReuse {
  private readonly shapes = new Map<string, Shape>();
  /** Trees filled into a kept shape so far (for tests and benchmarks). */
  reused = 0;

  /**
   * mergeKeys(source, labels, keys, inverted, sampleCount).tree, reusing the shape kept under
   * `slot` when the keys are the ones it was built from. Values are added to nodes in the
   * merge's own order, so the result equals a fresh merge bit for bit.
   */
  merge(slot: string, source: StackSource, labels: LabelTable, keys: MergeKeys, inverted: boolean, sampleCount: number): FlatTree {
    const shape = this.shapes.get(slot);
    if (shape !== undefined && fits(shape, source, labels, keys, inverted)) {
      this.shapes.delete(slot);
      this.shapes.set(slot, shape);
      this.reused++;
      return fill(shape, keys, sampleCount);
    }
    const { tree, endNode, order } = mergeKeys(source, labels, keys, inverted, sampleCount);
    this.shapes.delete(slot);
    this.shapes.set(slot, {
      source, labels, inverted,
      stack: keys.stack.slice(0, keys.count), prefix: keys.prefix.slice(0, keys.count), order, endNode,
      label: tree.label.slice(), parent: tree.parent.slice(), depth: tree.depth.slice(), labelNames: tree.labels.slice(), labelKind: tree.labelKind.slice(),
    });
    if (this.shapes.size > MAX_SHAPES) this.shapes.delete(this.shapes.keys().next().value as string);
    return tree;
  }
}

function fits(shape: Shape, source: StackSource, labels: LabelTable, keys: MergeKeys, inverted: boolean): boolean {
  if (shape.source !== source || shape.labels !== labels || shape.inverted !== inverted || shape.stack.length !== keys.count) return false;
  const { stack, prefix } = keys;
  for (let i = 0; i < keys.count; i++) if (shape.stack[i] !== stack[i] || shape.prefix[i] !== prefix[i]) return false;
  return true;
}

function fill(shape: Shape, keys: MergeKeys, sampleCount: number): FlatTree {
  const n = shape.parent.length;
  const self = new Float64Array(n);
  const { order, endNode } = shape;
  const value = keys.value;
  for (let o = 0; o < order.length; o++) self[endNode[order[o]]] += value[order[o]];
  const total = self.slice();
  const parent = shape.parent.slice();
  // Preorder: every node comes after its parent, so one backward pass sums subtrees.
  for (let i = n - 1; i > 0; i--) total[parent[i]] += total[i];
  return {
    nodeCount: n, label: shape.label.slice(), parent, depth: shape.depth.slice(), total, self,
    labels: shape.labelNames.slice(), labelKind: shape.labelKind.slice(), totalValue: total[0], sampleCount,
  };
}
