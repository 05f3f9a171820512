// Parallel stacks: the stacks of many threads merged into one root-first tree, each node
// listing the threads that pass through it, so threads blocked in the same place share one
// trunk and the tree branches where their stacks diverge.

import type { Recording } from '../../../structs/profile/recording.js';
import type { FlatTree, ParallelQuery, ParallelTree } from './protocol.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { PairTable, growFloat64 } from '../../../structs/analysis/pair-table.js';
import { monoBounds, ThreadSlots } from './sample-filter.js';
import { MergeKeys, mergeKeys } from '../../../structs/analysis/tree-merge.js';
import type { FoldedView } from './analysis-core.js';
import type { StackSums } from './stack-sums.js';
import { queryThreads } from './process-filter.js';

// Window sums use a dense stack x thread matrix up to this many cells (16 MiB), a hash above.
const DENSE_CELLS = 1 << 21;

/**
 * Values are sample counts. 'current': each thread that has not ended contributes its latest
 * sample (the latest before `toMs` and not before `fromMs` when given), so a node's total is
 * the number of threads through it. 'window': every sample in the window contributes 1, so a
 * node's total is how many samples passed through it, and its threads are those with at least
 * one sample through it. Every sample counts, whatever its CPU/wall flags. Thread lists are
 * sorted by wire thread id. `processIds` narrows the threads to those processes' (a recording of several).
 */
/** With `sums`, a 'window' query scans only the samples of the 1 s buckets its window touches. */
export function buildParallelTree(rec: Recording, query: ParallelQuery, labels: LabelTable = new LabelTable(rec), view: FoldedView | null = null, sums: StackSums | null = null): ParallelTree {
  const keys = new MergeKeys();
  let keyThreads: number[] = [];
  let sampleCount = 0;
  const meta = rec.meta;
  if (meta !== undefined && rec.sampleCount > 0) {
    const slots = new ThreadSlots(rec);
    const { from, to } = monoBounds(meta.startMono, query);
    const range = sums === null ? { from: 0, to: rec.sampleCount } : sums.indexRange({ from, to });
    const all = query.mode === 'current' ? latestStacks(rec, slots, from, to) : windowStacks(rec, slots, from, to, range.from, range.to);
    const shown = queryThreads(rec, null, query.processIds);
    const chosen = shown === null ? null : new Set(shown);
    const stacks = chosen === null ? all : all.filter((t) => chosen.has(t.threadId));
    keyThreads = stacks.map((t) => t.threadId);
    for (const t of stacks) {
      keys.add(t.stackId, -1, t.count);
      sampleCount += t.count;
    }
  }
  if (view !== null) for (let i = 0; i < keys.count; i++) keys.stack[i] = view.stacks.ofStack(keys.stack[i]);
  const { tree, endNode } = mergeKeys(view?.stacks ?? rec, view?.labels ?? labels, keys, false, sampleCount);
  return { ...tree, threads: threadLists(tree, endNode, keyThreads), by: 'threads' };
}

/**
 * Per node of a merged tree, the threads of the keys whose paths pass through it, sorted; a key
 * whose thread is negative adds none.
 */
export function threadLists(tree: FlatTree, endNode: Int32Array, keyThreads: readonly number[]): number[][] {
  const threads: number[][] = Array.from({ length: tree.nodeCount }, () => []);
  // Keys in ascending thread order, each walking up from where its path ends until it meets
  // a node that already lists its thread (everything above does too): each list comes out
  // sorted, and the work is the size of the lists.
  const byThread = Array.from(keyThreads.keys()).filter((k) => keyThreads[k] >= 0).sort((a, b) => keyThreads[a] - keyThreads[b]);
  const lastThread = new Float64Array(tree.nodeCount).fill(-1);
  for (const key of byThread) {
    const t = keyThreads[key];
    for (let node = endNode[key]; node >= 0 && lastThread[node] !== t; node = tree.parent[node]) {
      lastThread[node] = t;
      threads[node].push(t);
    }
  }
  return threads;
}

interface ThreadStack {
  threadId: number;
  stackId: number;
  count: number;
}

/** The latest in-window sample of every thread that has not ended, scanning back from the newest. */
function latestStacks(rec: Recording, slots: ThreadSlots, from: number, to: number): ThreadStack[] {
  const live = new Uint8Array(slots.count);
  let remaining = 0;
  slots.ids.forEach((id, s) => {
    if (rec.thread(id)?.ended === false) {
      live[s] = 1;
      remaining++;
    }
  });
  const out: ThreadStack[] = [];
  const { mono, threadId, stackId } = rec.sampleColumns();
  for (let i = mono.length - 1; i >= 0 && remaining > 0; i--) {
    const m = mono[i];
    if (m >= to || m < from) continue;
    const s = slots.slot(threadId[i]);
    if (s < 0 || live[s] === 0) continue;
    live[s] = 0;
    remaining--;
    out.push({ threadId: threadId[i], stackId: stackId[i], count: 1 });
  }
  return out;
}

/** Sample counts per (thread, stack) in the window: a dense stack x thread matrix when it is small, else a hash of pairs. */
function windowStacks(rec: Recording, slots: ThreadSlots, from: number, to: number, first: number, end: number): ThreadStack[] {
  const { mono, threadId, stackId } = rec.sampleColumns();
  const threads = Math.max(1, slots.count);
  const out: ThreadStack[] = [];
  if (rec.stackCount * threads <= DENSE_CELLS) {
    const cells = new Float64Array(rec.stackCount * threads);
    const dense = slots.dense;
    for (let i = first; i < end; i++) {
      const m = mono[i];
      if (m >= to || m < from) continue;
      const t = threadId[i];
      const s = t < dense.length ? dense[t] : slots.slot(t);
      if (s >= 0) cells[stackId[i] * threads + s]++;
    }
    for (let c = 0; c < cells.length; c++) {
      if (cells[c] !== 0) out.push({ stackId: Math.floor(c / threads), threadId: slots.ids[c % threads], count: cells[c] });
    }
    return out;
  }
  const pairs = new PairTable(1 << 12);
  let counts = new Float64Array(pairs.first.length);
  for (let i = first; i < end; i++) {
    const m = mono[i];
    if (m >= to || m < from) continue;
    // Keyed by slot, not thread id: the pair table holds int32s and thread ids are u32.
    const s = slots.slot(threadId[i]);
    if (s < 0) continue;
    const p = pairs.intern(stackId[i], s);
    if (p >= counts.length) counts = growFloat64(counts, p + 1);
    counts[p]++;
  }
  for (let p = 0; p < pairs.size; p++) out.push({ stackId: pairs.first[p], threadId: slots.ids[pairs.second[p]], count: counts[p] });
  return out;
}
