// PerfView's "By name" table: every function with its self value (samples whose leaf it is)
// and total value (samples with it anywhere in the stack, once per stack however deep it
// recurses), and the same two as sample counts. Columns in typed arrays, so 50,000 rows
// cross to the UI thread without 50,000 objects.

import type { StackSource } from './stack-source.js';
import type { StackWeights } from './stack-weights.js';
import { frameLabel } from '../profile/frame-label.js';

export interface FunctionsTable {
  rowCount: number;
  name: string[];
  /** FunctionKind per row: 0 managed, 1 native, 2 synthetic. */
  kind: Uint8Array;
  module: string[];
  self: Float64Array;
  total: Float64Array;
  selfSamples: Float64Array;
  totalSamples: Float64Array;
  /** The metric's sum over the query: what percentages are of. */
  totalValue: number;
  sampleCount: number;
}

/** Per function id of a source: self and total, as values and sample counts. */
export interface FunctionTallies {
  self: Float64Array;
  total: Float64Array;
  selfSamples: Float64Array;
  totalSamples: Float64Array;
}

/** Which frame of a stack (leaf first) a sample's self value goes to: its index. */
export type SelfFrame = (frames: Uint32Array) => number;

/**
 * Tallies every function of `stacks` over the weighted stacks (`w` is per stack of `stacks`);
 * self goes to the leaf, or to the frame `selfOf` picks (wall time: wait-self.ts).
 */
export function tallyFunctions(stacks: StackSource, w: StackWeights, selfOf?: SelfFrame): FunctionTallies {
  const n = Math.min(w.value.length, stacks.stackCount);
  let frames = stacks.functionCount ?? 0;
  if (stacks.functionCount === undefined) {
    for (let s = 0; s < n; s++) {
      if (w.count[s] === 0) continue;
      const f = stacks.stackFrames(s);
      for (let i = 0; i < f.length; i++) if (f[i] + 1 > frames) frames = f[i] + 1;
    }
  }
  const self = new Float64Array(frames);
  const total = new Float64Array(frames);
  const selfSamples = new Float64Array(frames);
  const totalSamples = new Float64Array(frames);
  // The stack that last counted a frame's total: recursion counts once per stack.
  const lastStack = new Int32Array(frames).fill(-1);
  for (let s = 0; s < n; s++) {
    const c = w.count[s];
    if (c === 0) continue;
    const v = w.value[s];
    const f = stacks.stackFrames(s);
    if (f.length === 0) continue;
    const at = selfOf === undefined ? f[0] : f[selfOf(f)];
    self[at] += v;
    selfSamples[at] += c;
    for (let i = 0; i < f.length; i++) {
      const id = f[i];
      if (lastStack[id] === s) continue;
      lastStack[id] = s;
      total[id] += v;
      totalSamples[id] += c;
    }
  }
  return { self, total, selfSamples, totalSamples };
}

/**
 * One row per frame of `stacks` that some weighted stack passes through, sorted by self value,
 * then total value (both descending), then name. `w` is per stack of `stacks`.
 */
export function functionsTable(stacks: StackSource, w: StackWeights, selfOf?: SelfFrame): FunctionsTable {
  const { self, total, selfSamples, totalSamples } = tallyFunctions(stacks, w, selfOf);
  const frames = self.length;
  const rows: number[] = [];
  for (let id = 0; id < frames; id++) if (totalSamples[id] > 0) rows.push(id);
  const names = new Map<number, string>();
  const nameOf = (id: number): string => {
    let text = names.get(id);
    if (text === undefined) {
      const fn = stacks.functionInfo(id);
      text = fn === undefined ? `[function ${id}]` : frameLabel(fn);
      names.set(id, text);
    }
    return text;
  };
  rows.sort((a, b) => self[b] - self[a] || total[b] - total[a] || compareText(nameOf(a), nameOf(b)));
  const table: FunctionsTable = {
    rowCount: rows.length,
    name: rows.map(nameOf),
    kind: Uint8Array.from(rows, (id) => stacks.functionInfo(id)?.kind ?? 2),
    module: rows.map((id) => stacks.functionInfo(id)?.module ?? ''),
    self: Float64Array.from(rows, (id) => self[id]),
    total: Float64Array.from(rows, (id) => total[id]),
    selfSamples: Float64Array.from(rows, (id) => selfSamples[id]),
    totalSamples: Float64Array.from(rows, (id) => totalSamples[id]),
    totalValue: w.totalValue,
    sampleCount: w.sampleCount,
  };
  return table;
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
