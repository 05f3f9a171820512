// The flame graph's call tree for one query. Two passes keep per-sample work tiny: first the
// samples are summed per distinct stack (per (stack, thread group) when grouped by thread) —
// a few typed-array reads per sample — then each distinct stack is merged into the tree once
// (tree-merge.ts). A recording has far fewer distinct stacks than samples, so the
// frame-by-frame work is paid per stack, not per sample.

import { AsyncSource } from '../../../structs/analysis/async-source.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { FlameQuery, FlatTree } from './protocol.js';
import { LabelTable } from '../../../structs/analysis/label-table.js';
import { PairTable, growFloat64 } from '../../../structs/analysis/pair-table.js';
import { monoBounds, ThreadSlots, type MonoBounds } from './sample-filter.js';
import { MergeKeys, mergeKeys } from '../../../structs/analysis/tree-merge.js';
import type { FoldedView } from './analysis-core.js';
import { sumEventsForFlame } from './flame-events.js';
import { isEventMetric } from '../../../structs/profile/event-metrics.js';
import type { StackSums, Sums } from './stack-sums.js';
import type { TreeReuse } from './tree-reuse.js';
import { groupLabels, queryThreads } from './process-filter.js';
import { sumEndpointSamples } from './flame-endpoint.js';
import { requestSetKey } from '../../../structs/analysis/request-picks.js';

/** A thread's group node (a thread's or a process's label), when the query groups. */
type GroupOf = (threadId: number) => number;

interface IndexRange {
  from: number;
  to: number;
}

// Grouped sums use a dense stack x group matrix up to this many cells (16 MiB), a hash above.
const DENSE_CELLS = 1 << 21;

/**
 * Builds the tree of `query`. Node values are ns of the metric (CPU or wall). Not inverted:
 * root, then each stack's outermost frame down to its leaf. Inverted: root, then leaf up to
 * the outermost caller, so a node's total is the time of the stacks that end in its path.
 * groupByThread puts one node per thread name between the root and the frames (threads that
 * share a name share the node, as in collapsed-stack text); groupByProcess one per process.
 * processIds narrow the threads to those of the processes. Samples whose metric value is 0
 * (a wall-only sample in a CPU tree) are left out and not counted in sampleCount. With a
 * folded view, each recorded stack's sum goes to its folded stack, labelled by the view.
 */
export function buildFlameTree(rec: Recording, query: FlameQuery, labels: LabelTable = new LabelTable(rec), view: FoldedView | null = null): FlatTree {
  return buildFrom(rec, query, labels, view, null, null);
}

/**
 * The tree of `query` over a recording's async call stacks (AsyncSource): its samples' logical
 * stacks, labelled by `labels` (a LabelTable of the same source) or by a view folded over it.
 * Not incremental: a logical stack is per sample (its stack and its task), not per recorded stack.
 */
export function buildAsyncFlameTree(source: AsyncSource, query: FlameQuery, labels: LabelTable, view: FoldedView | null): FlatTree {
  return buildFrom(source, query, labels, view, null, null);
}

/** What a tree is built from: a recording, or its async call stacks (CPU and wall metrics only). */
type TreeSource = Recording | AsyncSource;

/**
 * buildFlameTree's result from `sums`, which keeps per-stack sums as the recording grows: the
 * whole recording's tree costs the samples new since the last query plus the merge, a time
 * window's the samples of the 1 s buckets it touches. `reuse` keeps the shape of the trees it
 * merged, so a tree whose stacks are all known already is filled in, not merged again. Equal
 * to buildFlameTree's tree.
 */
export function buildFlameTreeIncremental(rec: Recording, query: FlameQuery, labels: LabelTable, view: FoldedView | null, sums: StackSums, reuse: TreeReuse): FlatTree {
  return buildFrom(rec, query, labels, view, sums, reuse);
}

function buildFrom(rec: TreeSource, asked: FlameQuery, labels: LabelTable, view: FoldedView | null, stackSums: StackSums | null, reuse: TreeReuse | null): FlatTree {
  const keys = new MergeKeys();
  const table = view?.labels ?? labels;
  // The process filter is the threads of its processes from here on.
  const query: FlameQuery = { ...asked, threadIds: queryThreads(rec, asked.threadIds, asked.processIds) };
  const groupOf = groupLabels(rec, table, query);
  let sums: Sums = { count: 0, newestMono: -Infinity };
  const meta = rec.meta;
  const metric = query.metric;
  if (meta !== undefined && isEventMetric(metric) && !(rec instanceof AsyncSource)) {
    sums = sumEventsForFlame(rec, metric, query.threadIds, groupOf, monoBounds(meta.startMono, query), new ThreadSlots(rec), table, keys, query.eventType);
  } else if (meta !== undefined && rec.sampleCount > 0 && (query.endpoint !== undefined || query.requestIds !== undefined) && !(rec instanceof AsyncSource)) {
    sums = sumEndpointSamples(rec, query, monoBounds(meta.startMono, query), keys);
  } else if (meta !== undefined && rec.sampleCount > 0) {
    const bounds = monoBounds(meta.startMono, query);
    const whole = query.fromMs === undefined && query.toMs === undefined;
    if (stackSums !== null && whole) {
      sums = fromStackSums(stackSums, rec.stackCount, query, groupOf, keys);
    } else if (stackSums !== null && query.threadIds === null && groupOf === null) {
      const perStack = new Float64Array(rec.stackCount);
      sums = stackSums.windowSums(query.metric, bounds, perStack);
      for (let s = 0; s < perStack.length; s++) if (perStack[s] !== 0) keys.add(s, -1, perStack[s]);
    } else {
      const range = stackSums === null ? { from: 0, to: rec.sampleCount } : stackSums.indexRange(bounds);
      const slots = new ThreadSlots(rec);
      sums = groupOf !== null
        ? sumByStackAndGroup(rec, query, bounds, range, slots, groupOf, keys)
        : sumByStack(rec, query, bounds, range, slots, keys);
    }
  }
  if (view !== null) for (let i = 0; i < keys.count; i++) keys.stack[i] = view.stacks.ofStack(keys.stack[i]);
  const source = view?.stacks ?? rec;
  const tree = reuse === null
    ? mergeKeys(source, table, keys, query.inverted, sums.count).tree
    : reuse.merge(shapeSlot(query), source, table, keys, query.inverted, sums.count);
  if (meta !== undefined && sums.count > 0) tree.newestSampleUnixMs = Number(meta.startUnixNs) / 1e6 + (sums.newestMono - meta.startMono) / 1e6;
  return tree;
}

/** Queries that usually give the same keys share a kept shape; the keys are compared anyway. */
function shapeSlot(query: FlameQuery): string {
  const windowed = query.fromMs !== undefined || query.toMs !== undefined;
  return JSON.stringify([query.metric, query.inverted, query.groupByThread, query.groupByProcess === true, query.threadIds, windowed, query.fold ?? null, query.eventType ?? null, query.endpoint ?? null, query.requestIds === undefined ? null : requestSetKey(query.requestIds)]);
}

/** The whole recording's keys from the kept sums: per stack, per (stack, thread) when filtered or grouped. */
function fromStackSums(stackSums: StackSums, stackCount: number, query: FlameQuery, groupOf: GroupOf | null, keys: MergeKeys): Sums {
  if (query.threadIds === null && groupOf === null) {
    const { stack, sums } = stackSums.totals(query.metric);
    for (let s = 0; s < stack.length; s++) if (stack[s] !== 0) keys.add(s, -1, stack[s]);
    return sums;
  }
  const allowed = query.threadIds === null ? null : new Set(query.threadIds);
  const keep = (id: number): boolean => allowed === null || allowed.has(id);
  if (groupOf === null) {
    const perStack = new Float64Array(stackCount);
    const sums = stackSums.forEachThreadSum(query.metric, keep, (s, _t, v) => { perStack[s] += v; });
    for (let s = 0; s < perStack.length; s++) if (perStack[s] !== 0) keys.add(s, -1, perStack[s]);
    return sums;
  }
  // One key per (stack, group label): threads sharing a name (or a process) share the key, as in the scan.
  const pairs = new PairTable(1 << 12);
  let pairSums = new Float64Array(pairs.first.length);
  const labelOf = new Map<number, number>();
  for (const t of stackSums.threadIds) labelOf.set(t, groupOf(t));
  const sums = stackSums.forEachThreadSum(query.metric, keep, (s, t, v) => {
    const p = pairs.intern(s, labelOf.get(t) as number);
    if (p >= pairSums.length) pairSums = growFloat64(pairSums, p + 1);
    pairSums[p] += v;
  });
  for (let p = 0; p < pairs.size; p++) keys.add(pairs.first[p], pairs.second[p], pairSums[p]);
  return sums;
}

/** Sums per stack over the samples range.from .. range.to - 1 inside the window. */
function sumByStack(rec: TreeSource, query: FlameQuery, { from, to }: MonoBounds, range: IndexRange, slots: ThreadSlots, keys: MergeKeys): Sums {
  const cols = rec.sampleColumns();
  const values = query.metric === 'cpu' ? cols.cpuNs : cols.wallNs;
  const { mono, threadId, stackId } = cols;
  const allowed = slots.mask(query.threadIds);
  const filterThreads = query.threadIds !== null;
  const dense = slots.dense;
  const sums = new Float64Array(rec.stackCount);
  let count = 0;
  let newest = -Infinity;
  for (let i = range.from; i < range.to; i++) {
    const v = values[i];
    if (v === 0) continue;
    const m = mono[i];
    if (m < from || m >= to) continue;
    if (filterThreads) {
      const t = threadId[i];
      const s = t < dense.length ? dense[t] : slots.slot(t);
      if (s < 0 || allowed[s] === 0) continue;
    }
    sums[stackId[i]] += v;
    count++;
    if (m > newest) newest = m;
  }
  for (let s = 0; s < sums.length; s++) if (sums[s] !== 0) keys.add(s, -1, sums[s]);
  return { count, newestMono: newest };
}

/** Sums per (stack, group label): threads sharing a name (or a process) fall into one group already here. */
function sumByStackAndGroup(rec: TreeSource, query: FlameQuery, { from, to }: MonoBounds, range: IndexRange, slots: ThreadSlots, labelOf: GroupOf, keys: MergeKeys): Sums {
  const cols = rec.sampleColumns();
  const values = query.metric === 'cpu' ? cols.cpuNs : cols.wallNs;
  const { mono, threadId, stackId } = cols;
  const allowed = slots.mask(query.threadIds);
  const groupLabels: number[] = [];
  const groupOfLabel = new Map<number, number>();
  const groupOf = new Int32Array(slots.count);
  slots.ids.forEach((id, s) => {
    const label = labelOf(id);
    let g = groupOfLabel.get(label);
    if (g === undefined) {
      g = groupLabels.length;
      groupOfLabel.set(label, g);
      groupLabels.push(label);
    }
    groupOf[s] = g;
  });
  const groups = Math.max(1, groupLabels.length);
  const dense = rec.stackCount * groups <= DENSE_CELLS;
  const cells = dense ? new Float64Array(rec.stackCount * groups) : new Float64Array(0);
  const pairs = new PairTable(dense ? 16 : 1 << 16);
  let pairSums = new Float64Array(dense ? 0 : pairs.first.length);
  let count = 0;
  let newest = -Infinity;
  for (let i = range.from; i < range.to; i++) {
    const v = values[i];
    if (v === 0) continue;
    const m = mono[i];
    if (m < from || m >= to) continue;
    const s = slots.slot(threadId[i]);
    if (s < 0 || allowed[s] === 0) continue;
    if (dense) {
      cells[stackId[i] * groups + groupOf[s]] += v;
    } else {
      const p = pairs.intern(stackId[i], groupOf[s]);
      if (p >= pairSums.length) pairSums = growFloat64(pairSums, p + 1);
      pairSums[p] += v;
    }
    count++;
    if (m > newest) newest = m;
  }
  if (dense) {
    for (let c = 0; c < cells.length; c++) if (cells[c] !== 0) keys.add(Math.floor(c / groups), groupLabels[c % groups], cells[c]);
  } else {
    for (let p = 0; p < pairs.size; p++) keys.add(pairs.first[p], groupLabels[pairs.second[p]], pairSums[p]);
  }
  return { count, newestMono: newest };
}
