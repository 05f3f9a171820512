// Merges weighted stacks into a FlatTree by sorting instead of hashing. Each key (a distinct
// stack, optionally behind a prefix label such as its thread) is a path of label ranks;
// sorted lexicographically, each path shares with its predecessor exactly the prefix it
// shares with any earlier path, so the tree is built like a trie from sorted words: compare
// with the previous path, append nodes for the rest. Nodes come out already in depth-first
// preorder with children in name order, so flattening costs nothing, and there is no hash
// table to probe or grow: node creation is an append to typed arrays.

import type { FlatTree } from './flat-tree.js';
import { ROOT_LABEL, type LabelTable } from './label-table.js';
import { growInt32 } from './pair-table.js';
import type { StackSource } from './stack-source.js';

const MAX_DEPTH = 0xffff;
const NO_PREFIX = -1;

/** Weighted paths to merge: add() each, then mergeKeys(). */
export class MergeKeys {
  count = 0;
  stack = new Int32Array(256);
  /** A label placed above the stack's frames (a thread node), or -1. */
  prefix = new Int32Array(256);
  value = new Float64Array(256);

  add(stackId: number, prefixLabel: number, value: number): void {
    const k = this.count;
    if (k === this.stack.length) {
      this.stack = growInt32(this.stack);
      this.prefix = growInt32(this.prefix);
      const v = new Float64Array(k * 2);
      v.set(this.value);
      this.value = v;
    }
    this.stack[k] = stackId;
    this.prefix[k] = prefixLabel;
    this.value[k] = value;
    this.count = k + 1;
  }
}

export interface MergedTree {
  tree: FlatTree;
  /** Per key (as added), the FlatTree node its path ends at. */
  endNode: Int32Array;
  /** The keys in the order their values were added to their end nodes' self. */
  order: Int32Array;
}

/**
 * Not inverted: each stack's frames from the outermost to the leaf; inverted: leaf first.
 * A key's value goes to its end node's self; totals are summed bottom-up afterwards.
 */
export function mergeKeys(rec: StackSource, labels: LabelTable, keys: MergeKeys, inverted: boolean, sampleCount: number): MergedTree {
  const k = keys.count;
  const { slotOf, seq, start } = stackSequences(rec, labels, keys, inverted);
  const rank = labels.rank();
  for (let i = 0; i < seq.length; i++) seq[i] = rank[seq[i]];
  const prefixRank = new Int32Array(k);
  for (let i = 0; i < k; i++) prefixRank[i] = keys.prefix[i] === NO_PREFIX ? NO_PREFIX : rank[keys.prefix[i]];

  const keySlot = new Int32Array(k);
  for (let i = 0; i < k; i++) keySlot[i] = slotOf[keys.stack[i]];
  const order = sortKeys(keySlot, prefixRank, sortSlots(seq, start));

  const nodes = new NodeColumns(nodeBound(keys, keySlot, start));
  nodes.append(-1, rank[ROOT_LABEL], 0);
  const endNode = buildTrie(nodes, order, keySlot, prefixRank, seq, start, keys.value);
  return { tree: nodes.toFlatTree(labels, sampleCount), endNode, order };
}

/**
 * Each distinct stack's position when the stacks are sorted by their label-rank sequences.
 * Comparing sequences is the dear part of the sort, so it is done once per distinct stack;
 * keys (many per stack when grouped by thread) are then sorted by integers.
 */
function sortSlots(seq: Int32Array, start: Int32Array): Int32Array {
  const slots = start.length - 1;
  const order = new Int32Array(slots);
  for (let i = 0; i < slots; i++) order[i] = i;
  order.sort((a, b) => {
    let i = start[a];
    let j = start[b];
    const ea = start[a + 1];
    const eb = start[b + 1];
    while (i < ea && j < eb) {
      const d = seq[i] - seq[j];
      if (d !== 0) return d;
      i++;
      j++;
    }
    // A path that is a prefix of another comes first: the parent before its children.
    return (ea - i) - (eb - j);
  });
  const slotRank = new Int32Array(slots);
  for (let r = 0; r < slots; r++) slotRank[order[r]] = r;
  return slotRank;
}

/** Keys in path order: by prefix rank, then by their stack's rank. */
function sortKeys(keySlot: Int32Array, prefixRank: Int32Array, slotRank: Int32Array): Int32Array {
  const k = keySlot.length;
  const slots = slotRank.length;
  let prefixes = 1;
  for (let i = 0; i < k; i++) if (prefixRank[i] + 2 > prefixes) prefixes = prefixRank[i] + 2;
  const order = new Int32Array(k);
  if (prefixes * slots * k < Number.MAX_SAFE_INTEGER) {
    // One composite number per key, sorted numerically (no comparator calls); the key index
    // is the low digit, so the order also comes out of the sorted numbers.
    const composite = new Float64Array(k);
    for (let i = 0; i < k; i++) composite[i] = ((prefixRank[i] + 1) * slots + slotRank[keySlot[i]]) * k + i;
    composite.sort();
    for (let o = 0; o < k; o++) order[o] = composite[o] % k;
    return order;
  }
  for (let i = 0; i < k; i++) order[i] = i;
  order.sort((a, b) => (prefixRank[a] - prefixRank[b]) || (slotRank[keySlot[a]] - slotRank[keySlot[b]]));
  return order;
}

/** At most one node per path element plus the root; capped so a huge bound is grown into instead. */
function nodeBound(keys: MergeKeys, keySlot: Int32Array, start: Int32Array): number {
  let bound = 1;
  for (let i = 0; i < keys.count; i++) bound += start[keySlot[i] + 1] - start[keySlot[i]] + (keys.prefix[i] === NO_PREFIX ? 0 : 1);
  return Math.max(16, Math.min(bound, 1 << 22));
}

/**
 * Appends the nodes of the sorted paths and returns each key's end node. path[d] is the node
 * at depth d of the previous path and pathRank[d] its rank; a path shares the longest common
 * prefix with its predecessor and gets new nodes below it.
 */
function buildTrie(nodes: NodeColumns, order: Int32Array, keySlot: Int32Array, prefixRank: Int32Array, seq: Int32Array, start: Int32Array, value: Float64Array): Int32Array {
  const endNode = new Int32Array(order.length);
  let path = new Int32Array(64);
  let pathRank = new Int32Array(64);
  let pathLen = 1;
  path[0] = 0;
  for (let o = 0; o < order.length; o++) {
    const key = order[o];
    const slot = keySlot[key];
    const from = start[slot];
    const prefix = prefixRank[key];
    // Element at depth d (1-based) is prefix (if any) then seq[from + d - 1 - shift].
    const shift = prefix === NO_PREFIX ? 0 : 1;
    const length = start[slot + 1] - from + shift;
    if (length + 1 > path.length) {
      path = growInt32(path, length + 1);
      pathRank = growInt32(pathRank, length + 1);
    }
    let d = 1;
    let matched = true;
    if (shift === 1) {
      if (pathLen > 1 && pathRank[1] === prefix) d = 2;
      else matched = false;
    }
    if (matched) {
      const limit = Math.min(pathLen - 1, length);
      let s = from + d - 1 - shift;
      while (d <= limit && pathRank[d] === seq[s]) { d++; s++; }
    }
    for (; d <= length; d++) {
      const r = d === 1 && shift === 1 ? prefix : seq[from + d - 1 - shift];
      path[d] = nodes.append(path[d - 1], r, d > MAX_DEPTH ? MAX_DEPTH : d);
      pathRank[d] = r;
    }
    pathLen = length + 1;
    const end = path[length];
    endNode[key] = end;
    nodes.self[end] += value[key];
  }
  return endNode;
}

interface StackSequences {
  /** stack id -> slot (-1 when no key uses it). */
  slotOf: Int32Array;
  /** Label ids (then ranks) of every used stack end to end, in path order. */
  seq: Int32Array;
  /** Slot s's path is seq[start[s] .. start[s + 1]). */
  start: Int32Array;
}

/** Each distinct stack's labels once, in the order its path descends. */
function stackSequences(rec: StackSource, labels: LabelTable, keys: MergeKeys, inverted: boolean): StackSequences {
  const slotOf = new Int32Array(rec.stackCount).fill(-1);
  const used: number[] = [];
  let total = 0;
  for (let i = 0; i < keys.count; i++) {
    const s = keys.stack[i];
    if (slotOf[s] >= 0) continue;
    slotOf[s] = used.length;
    used.push(s);
    total += rec.stackFrames(s).length;
  }
  const seq = new Int32Array(total);
  const start = new Int32Array(used.length + 1);
  let at = 0;
  for (let slot = 0; slot < used.length; slot++) {
    start[slot] = at;
    const frames = rec.stackFrames(used[slot]);
    const n = frames.length;
    if (inverted) for (let i = 0; i < n; i++) seq[at++] = labels.ofFunction(frames[i]);
    else for (let i = n - 1; i >= 0; i--) seq[at++] = labels.ofFunction(frames[i]);
  }
  start[used.length] = at;
  return { slotOf, seq, start };
}

/** The tree's columns while it grows; labels are held as ranks until the end. */
class NodeColumns {
  count = 0;
  parent: Int32Array;
  rank: Int32Array;
  depth: Uint16Array;
  self: Float64Array;

  constructor(capacity: number) {
    this.parent = new Int32Array(capacity);
    this.rank = new Int32Array(capacity);
    this.depth = new Uint16Array(capacity);
    this.self = new Float64Array(capacity);
  }

  append(parent: number, rank: number, depth: number): number {
    const i = this.count;
    if (i === this.parent.length) this.grow();
    this.parent[i] = parent;
    this.rank[i] = rank;
    this.depth[i] = depth;
    this.count = i + 1;
    return i;
  }

  toFlatTree(labels: LabelTable, sampleCount: number): FlatTree {
    const n = this.count;
    const parent = this.parent.slice(0, n);
    const depth = this.depth.slice(0, n);
    const self = this.self.slice(0, n);
    const total = self.slice();
    // Preorder: every node comes after its parent, so one backward pass sums subtrees.
    for (let i = n - 1; i > 0; i--) total[parent[i]] += total[i];
    const label = new Int32Array(n);
    // The tree's own label list holds only the labels it uses, in order of first use.
    const outOfRank = new Int32Array(labels.count).fill(-1);
    const names: string[] = [];
    const kinds: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.rank[i];
      let l = outOfRank[r];
      if (l < 0) {
        l = names.length;
        outOfRank[r] = l;
        const id = labels.labelAtRank(r);
        names.push(labels.names[id]);
        kinds.push(labels.kinds[id]);
      }
      label[i] = l;
    }
    return {
      nodeCount: n, label, parent, depth, total, self,
      labels: names, labelKind: Uint8Array.from(kinds), totalValue: total[0], sampleCount,
    };
  }

  private grow(): void {
    const size = this.parent.length * 2;
    const parent = new Int32Array(size); parent.set(this.parent); this.parent = parent;
    const rank = new Int32Array(size); rank.set(this.rank); this.rank = rank;
    const depth = new Uint16Array(size); depth.set(this.depth); this.depth = depth;
    const self = new Float64Array(size); self.set(this.self); this.self = self;
  }
}
