// The trees of the analysis, all built by the flame graph's own merge (tree-merge.ts): the
// call tree (top-down, or inverted: leaves at the root), and the sandwich of one function:
// its callers merged into a tree rooted at it, and its callees likewise.

import type { FunctionInfo } from '../profile/frame-label.js';
import type { ThreadInfo } from '../profile/recording.js';
import type { FlatTree } from './flat-tree.js';
import { LabelTable } from './label-table.js';
import type { StackSource } from './stack-source.js';
import type { StackWeights } from './stack-weights.js';
import { MergeKeys, mergeKeys } from './tree-merge.js';
import { frameLabel } from '../profile/frame-label.js';

/** Every weighted stack of `stacks` merged into one tree; inverted puts the leaves at the root. */
export function callTree(stacks: StackSource, w: StackWeights, inverted: boolean, labels: LabelTable = new LabelTable(stacks)): FlatTree {
  const keys = new MergeKeys();
  const n = Math.min(w.value.length, stacks.stackCount);
  for (let s = 0; s < n; s++) if (w.count[s] !== 0) keys.add(s, -1, w.value[s]);
  return mergeKeys(stacks, labels, keys, inverted, w.sampleCount).tree;
}

export interface Sandwich {
  name: string;
  /** The function's self and total over the query, and the query's total. */
  self: number;
  total: number;
  totalValue: number;
  /** Root (under 'all'): the function; below it its callers, then theirs, to the threads' entries. */
  callers: FlatTree;
  /** Root (under 'all'): the function; below it what it calls, to the leaves. */
  callees: FlatTree;
}

/** The stacks of another source cut to a part of each (same ids, same functions): no copy, no interning. */
class CutStacks implements StackSource {
  readonly from: Int32Array;
  readonly to: Int32Array;
  constructor(private readonly src: StackSource) {
    this.from = new Int32Array(src.stackCount);
    this.to = new Int32Array(src.stackCount);
  }
  get stackCount(): number { return this.src.stackCount; }
  stackFrames(id: number): Uint32Array { return this.src.stackFrames(id).subarray(this.from[id], this.to[id]); }
  functionInfo(id: number): FunctionInfo | undefined { return this.src.functionInfo(id); }
  thread(id: number): ThreadInfo | undefined { return this.src.thread(id); }
}

/**
 * The sandwich of the function named `name` (a frame label of `stacks`), or null when no
 * weighted stack passes through it. Each stack counts from its outermost occurrence of the
 * function, so recursion is counted once and both trees' roots carry the function's total.
 */
export function sandwich(stacks: StackSource, w: StackWeights, name: string, labels: LabelTable = new LabelTable(stacks)): Sandwich | null {
  const n = Math.min(w.value.length, stacks.stackCount);
  const named = framesNamed(stacks, w, name);
  if (named === null) return null;
  const is = (id: number): boolean => id < named.length && named[id] === 1;
  const callers = new CutStacks(stacks);
  const callees = new CutStacks(stacks);
  const callerKeys = new MergeKeys();
  const calleeKeys = new MergeKeys();
  let self = 0;
  let total = 0;
  let samples = 0;
  for (let s = 0; s < n; s++) {
    if (w.count[s] === 0) continue;
    const f = stacks.stackFrames(s);
    let k = -1;
    for (let i = f.length - 1; i >= 0; i--) {
      if (is(f[i])) {
        k = i;
        break;
      }
    }
    if (k < 0) continue;
    const v = w.value[s];
    total += v;
    samples += w.count[s];
    if (is(f[0])) self += v;
    // Callers: from the function outwards (read leaf-first, as an inverted tree reads).
    callers.from[s] = k;
    callers.to[s] = f.length;
    callerKeys.add(s, -1, v);
    // Callees: the stack cut at the function, which becomes its root end.
    callees.from[s] = 0;
    callees.to[s] = k + 1;
    calleeKeys.add(s, -1, v);
  }
  if (samples === 0) return null;
  return {
    name,
    self,
    total,
    totalValue: w.totalValue,
    callers: mergeKeys(callers, labels, callerKeys, true, samples).tree,
    callees: mergeKeys(callees, labels, calleeKeys, false, samples).tree,
  };
}

/**
 * Per frame id, 1 when the frame is labelled `name` (usually one frame; more when two
 * functions read the same): over every function the source has when it says how many, else
 * over the frames of the weighted stacks.
 */
function framesNamed(stacks: StackSource, w: StackWeights, name: string): Uint8Array | null {
  const matches = (id: number): boolean => {
    const fn = stacks.functionInfo(id);
    return fn !== undefined && frameLabel(fn) === name;
  };
  if (stacks.functionCount !== undefined) {
    const out = new Uint8Array(stacks.functionCount);
    let found = false;
    for (let id = 0; id < out.length; id++) {
      if (matches(id)) {
        out[id] = 1;
        found = true;
      }
    }
    return found ? out : null;
  }
  // 0: not looked at yet, 1: another name, 2: this name.
  let state = new Uint8Array(1024);
  let found = false;
  const n = Math.min(w.value.length, stacks.stackCount);
  for (let s = 0; s < n; s++) {
    if (w.count[s] === 0) continue;
    const f = stacks.stackFrames(s);
    for (let i = 0; i < f.length; i++) {
      const id = f[i];
      if (id >= state.length) {
        let size = state.length * 2;
        while (size <= id) size *= 2;
        const grown = new Uint8Array(size);
        grown.set(state);
        state = grown;
      }
      if (state[id] !== 0) continue;
      const match = matches(id);
      state[id] = match ? 2 : 1;
      found ||= match;
    }
  }
  if (!found) return null;
  return state.map((v) => (v === 2 ? 1 : 0));
}
