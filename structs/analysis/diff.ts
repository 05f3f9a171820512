// Differences between two profiles: two recordings (of any runtime or format) or two time
// windows of one. Frames are matched by their label, which folding has normalized, so
// `HashSet<System.__Canon>.Add` from clrscope and ``HashSet`1[System.__Canon].Add`` from a
// nettrace are one function.
//
// The differential flame graph is one tree holding both sides' paths. A node's width is the
// mean of its two sides (so a frame present on either side is drawn, and children never
// outgrow their parent) and `delta` is after minus before; both normalized to each side's
// total (percentage points) or absolute (the metric's unit), as the user picks.

import type { FunctionInfo } from '../profile/frame-label.js';
import { frameLabel } from '../profile/frame-label.js';
import type { ThreadInfo } from '../profile/recording.js';
import { NO_EXTRA_ROOT, StackTable } from '../profile/stack-table.js';
import type { FlatTree } from './flat-tree.js';
import { compareText, functionsTable, type FunctionsTable } from './functions-table.js';
import { LabelTable } from './label-table.js';
import type { StackSource } from './stack-source.js';
import type { StackWeights } from './stack-weights.js';
import { MergeKeys, mergeKeys } from './tree-merge.js';

export interface DiffSide {
  stacks: StackSource;
  weights: StackWeights;
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

/** Both sides' frames, one id per label and kind. */
class UnionStacks implements StackSource {
  readonly table = new StackTable(() => undefined);
  private readonly infos: FunctionInfo[] = [];
  private readonly byKey = new Map<string, number>();

  get stackCount(): number { return this.table.count; }
  stackFrames(id: number): Uint32Array { return this.table.frames(id); }
  functionInfo(id: number): FunctionInfo | undefined { return this.infos[id]; }
  thread(): ThreadInfo | undefined { return undefined; }

  /** Translates a side's frame ids into this table's. */
  frameMap(side: StackSource): (id: number) => number {
    const map = new Map<number, number>();
    return (id) => {
      let u = map.get(id);
      if (u === undefined) {
        const fn = side.functionInfo(id);
        const info: FunctionInfo = fn ?? { id, kind: 2, name: `[function ${id}]`, module: '', file: '' };
        const key = `${info.kind}\u0001${frameLabel(info)}`;
        u = this.byKey.get(key);
        if (u === undefined) {
          u = this.infos.length;
          this.infos.push({ ...info, id: u });
          this.byKey.set(key, u);
        }
        map.set(id, u);
      }
      return u;
    };
  }
}

interface SideKeys {
  /** Per key of this side: its raw value. */
  start: number;
  values: number[];
}

export function diffTree(before: DiffSide, after: DiffSide, normalize: DiffNormalize): DiffTree {
  const union = new UnionStacks();
  const keys = new MergeKeys();
  const B = before.weights.totalValue;
  const A = after.weights.totalValue;
  const scale = (total: number): number => (normalize === 'share' ? (total > 0 ? 100 / total : 0) : 1);
  const add = (side: DiffSide, factor: number): SideKeys => {
    const start = keys.count;
    const values: number[] = [];
    const map = union.frameMap(side.stacks);
    let buffer = new Uint32Array(64);
    const n = Math.min(side.weights.value.length, side.stacks.stackCount);
    for (let s = 0; s < n; s++) {
      if (side.weights.count[s] === 0) continue;
      const f = side.stacks.stackFrames(s);
      if (buffer.length < f.length) buffer = new Uint32Array(f.length * 2);
      for (let i = 0; i < f.length; i++) buffer[i] = map(f[i]);
      const id = union.table.intern(buffer.subarray(0, f.length), NO_EXTRA_ROOT);
      const v = side.weights.value[s];
      // The width is the mean of the two sides, each normalized.
      keys.add(id, -1, (v * factor) / 2);
      values.push(v);
    }
    return { start, values };
  };
  const b = add(before, scale(B));
  const a = add(after, scale(A));
  const { tree, endNode } = mergeKeys(union, new LabelTable(union), keys, false, before.weights.sampleCount + after.weights.sampleCount);
  const nodes = tree.nodeCount;
  const beforeSelf = new Float64Array(nodes);
  const afterSelf = new Float64Array(nodes);
  b.values.forEach((v, i) => { beforeSelf[endNode[b.start + i]] += v; });
  a.values.forEach((v, i) => { afterSelf[endNode[a.start + i]] += v; });
  const beforeTotals = beforeSelf.slice();
  const afterTotals = afterSelf.slice();
  for (let i = nodes - 1; i > 0; i--) {
    beforeTotals[tree.parent[i]] += beforeTotals[i];
    afterTotals[tree.parent[i]] += afterTotals[i];
  }
  const sb = scale(B);
  const sa = scale(A);
  const delta = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) delta[i] = afterTotals[i] * sa - beforeTotals[i] * sb;
  return {
    ...tree, normalize, before: beforeTotals, after: afterTotals, beforeSelf, afterSelf, delta, beforeTotal: B, afterTotal: A,
  };
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
  const tb = functionsTable(before.stacks, before.weights);
  const ta = functionsTable(after.stacks, after.weights);
  const rows = new Map<string, number>();
  const name: string[] = [];
  const kinds: number[] = [];
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
  const bi: number[] = [];
  const ai: number[] = [];
  for (let i = 0; i < tb.rowCount; i++) bi.push(rowOf(tb, i));
  for (let i = 0; i < ta.rowCount; i++) ai.push(rowOf(ta, i));
  const n = name.length;
  const bs = new Float64Array(n);
  const bt = new Float64Array(n);
  const as = new Float64Array(n);
  const at = new Float64Array(n);
  bi.forEach((r, i) => { bs[r] += tb.self[i]; bt[r] += tb.total[i]; });
  ai.forEach((r, i) => { as[r] += ta.self[i]; at[r] += ta.total[i]; });
  const B = tb.totalValue;
  const A = ta.totalValue;
  const measure = (v: number, total: number): number => (normalize === 'share' ? sharePct(v, total) : v);
  const selfDelta = (r: number): number => Math.abs(measure(as[r], A) - measure(bs[r], B));
  const totalDelta = (r: number): number => Math.abs(measure(at[r], A) - measure(bt[r], B));
  const order = Array.from({ length: n }, (_, r) => r);
  order.sort((x, y) => selfDelta(y) - selfDelta(x) || totalDelta(y) - totalDelta(x) || compareText(name[x], name[y]));
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
    beforeSamples: tb.sampleCount,
    afterSamples: ta.sampleCount,
  };
}
