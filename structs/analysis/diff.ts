// Differences between two profiles: two recordings (of any runtime or format) or two time
// windows of one. Frames are matched by their label, which folding has normalized, so
// `HashSet<System.__Canon>.Add` from clrscope and ``HashSet`1[System.__Canon].Add`` from a
// nettrace are one function.
//
// The differential flame graph is one tree holding both sides' paths. A node's width is the
// mean of its two sides (so a frame present on either side is drawn, and children never
// outgrow their parent) and `delta` is after minus before; both normalized to each side's
// total (percentage points) or absolute (the metric's unit), as the user picks.

import { frameLabel } from '../profile/frame-label.js';
import type { FlatTree } from './flat-tree.js';
import { compareText, functionsTable, tallyFunctions, type FunctionsTable, type SelfFrame } from './functions-table.js';
import type { StackSource } from './stack-source.js';
import type { StackWeights } from './stack-weights.js';
import { projectTree, type TreeShape } from './tree-shape.js';

export interface DiffSide {
  stacks: StackSource;
  weights: StackWeights;
  /** Where a sample's self goes (wall time: wait-self.ts); absent: the leaf. */
  selfOf?: SelfFrame;
}

/** 'share': values as percentages of each side's total; 'absolute': in the metric's unit. */
export type DiffNormalize = 'share' | 'absolute';

export interface DiffTree extends FlatTree {
  normalize: DiffNormalize;
  /** Per node, each side's total and self in the metric's unit. */
  before: Float64Array;
  after: Float64Array;
  beforeSelf: Float64Array;
  afterSelf: Float64Array;
  /** Per node, after minus before, normalized (percentage points, or the metric's unit). */
  delta: Float64Array;
  beforeTotal: number;
  afterTotal: number;
}

/** Per node of a preorder tree: its first child and its next sibling (-1: none), children in the tree's order. */
function childLinks(t: FlatTree): { first: Int32Array; next: Int32Array } {
  const first = new Int32Array(t.nodeCount).fill(-1);
  const next = new Int32Array(t.nodeCount).fill(-1);
  const last = new Int32Array(t.nodeCount).fill(-1);
  for (let i = 1; i < t.nodeCount; i++) {
    const p = t.parent[i];
    if (last[p] < 0) first[p] = i;
    else next[last[p]] = i;
    last[p] = i;
  }
  return { first, next };
}

/**
 * Two recordings' call trees (each filled from its own kept shape) merged node by node: both
 * list children in the same order (name, then kind, as tree-merge.ts sorts labels), so each
 * level is a merge of two sorted lists and the whole costs the two trees' sizes.
 */
export function diffTrees(before: FlatTree, after: FlatTree, beforeTotal: number, afterTotal: number, normalize: DiffNormalize): DiffTree {
  const la = childLinks(before);
  const lb = childLinks(after);
  // One label list for both; each tree's labels mapped to it once, and ranked by name then kind
  // so children compare as integers.
  const labels: string[] = [];
  const kinds: number[] = [];
  const ids = new Map<string, number>();
  const mapLabels = (t: FlatTree): Int32Array => Int32Array.from(t.labels, (name, l) => {
    const key = `${t.labelKind[l]}\u0001${name}`;
    let u = ids.get(key);
    if (u === undefined) {
      u = labels.length;
      labels.push(name);
      kinds.push(t.labelKind[l]);
      ids.set(key, u);
    }
    return u;
  });
  const ua = mapLabels(before);
  const ub = mapLabels(after);
  const byName = Array.from(labels, (_, u) => u).sort((x, y) => (labels[x] < labels[y] ? -1 : labels[x] > labels[y] ? 1 : kinds[x] - kinds[y]));
  const rank = new Int32Array(labels.length);
  byName.forEach((u, r) => { rank[u] = r; });
  const capacity = before.nodeCount + after.nodeCount;
  const label = new Int32Array(capacity);
  const parent = new Int32Array(capacity);
  const depth = new Uint16Array(capacity);
  const beforeSelf = new Float64Array(capacity);
  const afterSelf = new Float64Array(capacity);
  // Pending nodes in preorder, four ints each: node in before (-1: none), node in after, parent out, depth.
  let stack = new Int32Array(256);
  let top = 0;
  const push = (i: number, j: number, p: number, d: number): void => {
    if (top + 4 > stack.length) {
      const grown = new Int32Array(stack.length * 2);
      grown.set(stack);
      stack = grown;
    }
    stack[top] = i; stack[top + 1] = j; stack[top + 2] = p; stack[top + 3] = d;
    top += 4;
  };
  push(0, 0, -1, 0);
  let n = 0;
  while (top > 0) {
    top -= 4;
    const i = stack[top];
    const j = stack[top + 1];
    const out = n++;
    label[out] = i >= 0 ? ua[before.label[i]] : ub[after.label[j]];
    parent[out] = stack[top + 2];
    const d = stack[top + 3];
    depth[out] = d;
    beforeSelf[out] = i >= 0 ? before.self[i] : 0;
    afterSelf[out] = j >= 0 ? after.self[j] : 0;
    // Children merged in order, pushed, then the pushed run reversed so the first pops first.
    const from = top;
    let ci = i >= 0 ? la.first[i] : -1;
    let cj = j >= 0 ? lb.first[j] : -1;
    while (ci >= 0 || cj >= 0) {
      const c = ci < 0 ? 1 : cj < 0 ? -1 : rank[ua[before.label[ci]]] - rank[ub[after.label[cj]]];
      if (c === 0) {
        push(ci, cj, out, d + 1);
        ci = la.next[ci];
        cj = lb.next[cj];
      } else if (c < 0) {
        push(ci, -1, out, d + 1);
        ci = la.next[ci];
      } else {
        push(-1, cj, out, d + 1);
        cj = lb.next[cj];
      }
    }
    for (let x = from, y = top - 4; x < y; x += 4, y -= 4) {
      for (let k = 0; k < 4; k++) {
        const t = stack[x + k];
        stack[x + k] = stack[y + k];
        stack[y + k] = t;
      }
    }
  }
  const before2 = beforeSelf.slice(0, n);
  const after2 = afterSelf.slice(0, n);
  for (let k = n - 1; k > 0; k--) {
    before2[parent[k]] += before2[k];
    after2[parent[k]] += after2[k];
  }
  const scale = (total: number): number => (normalize === 'share' ? (total > 0 ? 100 / total : 0) : 1);
  const sb = scale(beforeTotal);
  const sa = scale(afterTotal);
  const self = new Float64Array(n);
  const delta = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    self[k] = (beforeSelf[k] * sb + afterSelf[k] * sa) / 2;
    delta[k] = after2[k] * sa - before2[k] * sb;
  }
  const total = self.slice();
  for (let k = n - 1; k > 0; k--) total[parent[k]] += total[k];
  return {
    nodeCount: n, label: label.slice(0, n), parent: parent.slice(0, n), depth: depth.slice(0, n), total, self,
    labels, labelKind: Uint8Array.from(kinds), totalValue: n > 0 ? total[0] : 0, sampleCount: before.sampleCount + after.sampleCount,
    normalize, before: before2, after: after2, beforeSelf: beforeSelf.slice(0, n), afterSelf: afterSelf.slice(0, n), delta, beforeTotal, afterTotal,
  };
}

/** The diff of two weightings of one source's stacks, filled into the source's tree shape: no merge at all. */
export function diffTreeOfShape(shape: TreeShape, before: StackWeights, after: StackWeights, normalize: DiffNormalize): DiffTree {
  const B = before.totalValue;
  const A = after.totalValue;
  const scale = (total: number): number => (normalize === 'share' ? (total > 0 ? 100 / total : 0) : 1);
  const sb = scale(B);
  const sa = scale(A);
  const p = projectTree(shape, [before.value, after.value], [sb / 2, sa / 2], before.sampleCount + after.sampleCount);
  const [bt, at] = p.total;
  const delta = new Float64Array(p.tree.nodeCount);
  for (let i = 0; i < delta.length; i++) delta[i] = at[i] * sa - bt[i] * sb;
  return { ...p.tree, normalize, before: bt, after: at, beforeSelf: p.self[0], afterSelf: p.self[1], delta, beforeTotal: B, afterTotal: A };
}

export interface DiffFunctions {
  rowCount: number;
  name: string[];
  kind: Uint8Array;
  beforeSelf: Float64Array;
  beforeTotal: Float64Array;
  afterSelf: Float64Array;
  afterTotal: Float64Array;
  /** Each side's sum over its query. */
  beforeValue: number;
  afterValue: number;
  beforeSamples: number;
  afterSamples: number;
}

/** Share of a side's total, in percent (0 for an empty side). */
export function sharePct(value: number, total: number): number {
  return total > 0 ? (100 * value) / total : 0;
}

/**
 * The functions table of both sides joined by name: every function on either side, ordered by
 * how much its self value changed (largest change first, as `normalize` measures it), then its
 * total's change, then name.
 */
export function diffFunctions(before: DiffSide, after: DiffSide, normalize: DiffNormalize): DiffFunctions {
  const name: string[] = [];
  const kinds: number[] = [];
  let bs: Float64Array;
  let bt: Float64Array;
  let as: Float64Array;
  let at: Float64Array;
  if (before.stacks === after.stacks) {
    // One source, two windows: the same function ids on both sides.
    const tb = tallyFunctions(before.stacks, before.weights, before.selfOf);
    const ta = tallyFunctions(after.stacks, after.weights, after.selfOf);
    const ids: number[] = [];
    const frames = Math.max(tb.total.length, ta.total.length);
    for (let id = 0; id < frames; id++) if ((tb.totalSamples[id] ?? 0) > 0 || (ta.totalSamples[id] ?? 0) > 0) ids.push(id);
    for (const id of ids) {
      const fn = before.stacks.functionInfo(id);
      name.push(fn === undefined ? `[function ${id}]` : frameLabel(fn));
      kinds.push(fn?.kind ?? 2);
    }
    const pick = (a: Float64Array): Float64Array => Float64Array.from(ids, (id) => a[id] ?? 0);
    bs = pick(tb.self); bt = pick(tb.total); as = pick(ta.self); at = pick(ta.total);
  } else {
    const tb = functionsTable(before.stacks, before.weights, before.selfOf);
    const ta = functionsTable(after.stacks, after.weights, after.selfOf);
    const rows = new Map<string, number>();
    const rowOf = (t: FunctionsTable, i: number): number => {
      const key = `${t.kind[i]}\u0001${t.name[i]}`;
      let r = rows.get(key);
      if (r === undefined) {
        r = name.length;
        rows.set(key, r);
        name.push(t.name[i]);
        kinds.push(t.kind[i]);
      }
      return r;
    };
    const bi = Array.from({ length: tb.rowCount }, (_, i) => rowOf(tb, i));
    const ai = Array.from({ length: ta.rowCount }, (_, i) => rowOf(ta, i));
    bs = new Float64Array(name.length); bt = new Float64Array(name.length); as = new Float64Array(name.length); at = new Float64Array(name.length);
    bi.forEach((r, i) => { bs[r] += tb.self[i]; bt[r] += tb.total[i]; });
    ai.forEach((r, i) => { as[r] += ta.self[i]; at[r] += ta.total[i]; });
  }
  const n = name.length;
  const B = before.weights.totalValue;
  const A = after.weights.totalValue;
  const measure = (v: number, total: number): number => (normalize === 'share' ? sharePct(v, total) : v);
  const selfDelta = Float64Array.from({ length: n }, (_, r) => Math.abs(measure(as[r], A) - measure(bs[r], B)));
  const totalDelta = Float64Array.from({ length: n }, (_, r) => Math.abs(measure(at[r], A) - measure(bt[r], B)));
  const order = Array.from({ length: n }, (_, r) => r);
  order.sort((x, y) => selfDelta[y] - selfDelta[x] || totalDelta[y] - totalDelta[x] || compareText(name[x], name[y]));
  return {
    rowCount: n,
    name: order.map((r) => name[r]),
    kind: Uint8Array.from(order, (r) => kinds[r]),
    beforeSelf: Float64Array.from(order, (r) => bs[r]),
    beforeTotal: Float64Array.from(order, (r) => bt[r]),
    afterSelf: Float64Array.from(order, (r) => as[r]),
    afterTotal: Float64Array.from(order, (r) => at[r]),
    beforeValue: B,
    afterValue: A,
    beforeSamples: before.weights.sampleCount,
    afterSamples: after.weights.sampleCount,
  };
}
