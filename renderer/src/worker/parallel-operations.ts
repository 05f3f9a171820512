// Parallel stacks per logical operation (async recordings): where each operation is, merged into
// the same root-first tree as the threads' stacks. A suspended operation is where the profiler's
// `[async operations]` samples put it: its chain of awaiting methods above `[suspended]` (and the
// `[awaiting Task.Delay]` it waits for), each such sample standing for the operations still
// suspended there at its tick (OPERATION_COUNTS). An operation a thread is running is that
// thread's logical stack: the awaiting methods above the running continuation's frames. A node's
// value is how many operations sit at or below it; its threads are those running one.

import type { AsyncSource } from '../../../structs/analysis/async-source.js';
import { ASYNC_OPERATIONS_THREAD } from '../../../structs/analysis/async-source.js';
import type { LabelTable } from '../../../structs/analysis/label-table.js';
import { PairTable, growFloat64 } from '../../../structs/analysis/pair-table.js';
import { MergeKeys, mergeKeys } from '../../../structs/analysis/tree-merge.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { FoldedView } from './analysis-core.js';
import type { ParallelQuery, ParallelTree } from './protocol.js';
import { threadLists } from './parallel-stacks.js';
import { monoBounds, ThreadSlots } from './sample-filter.js';

// 'current' takes the suspended operations of the latest tick that had any; a tick older than
// this many periods before the newest sample means none is suspended now. The period is the
// profiler's own cadence: the sampling interval, or the gap between the two latest ticks when the
// profiler's thread ticked slower (a loaded machine: 30-70 ms at 10 ms), where the interval alone
// dropped every suspended operation at moments between two late ticks.
const STALE_TICKS = 3;
// Ticks further back than this many intervals are not looked for to learn the period.
const PERIOD_LOOKBACK = 100;

/** Whether a thread is the profiler's synthetic `[async operations]` thread (its name prefixed by its process in a merged recording). */
export function isAsyncOperationsThread(name: string): boolean {
  return name === ASYNC_OPERATIONS_THREAD || name.endsWith(`] ${ASYNC_OPERATIONS_THREAD}`);
}

/**
 * 'current': the operations suspended at the latest tick (before `toMs` when given), each
 * counted once where it sits, and the operation each live thread runs in its latest sample.
 * 'window': every such count in the window, and every sample a thread took in an operation, so a
 * node's value is operation-ticks (as the threads' window counts samples). Samples of threads
 * run outside any operation, or whose continuation's frame was not found, are not operations.
 */
export function buildOperationsTree(rec: Recording, source: AsyncSource, query: ParallelQuery, labels: LabelTable, view: FoldedView | null): ParallelTree {
  const keys = new MergeKeys();
  const keyThreads: number[] = [];
  let operations = 0;
  const add = (stack: number, thread: number, count: number): void => {
    keys.add(stack, -1, count);
    keyThreads.push(thread);
    operations += count;
  };
  const meta = rec.meta;
  if (meta !== undefined && source.sampleCount > 0) {
    const opThreads = new Set(rec.threads().filter((t) => isAsyncOperationsThread(t.name)).map((t) => t.id));
    const { from, to } = monoBounds(meta.startMono, query);
    if (query.mode === 'current') current(rec, source, opThreads, from, to, meta.intervalNs, add);
    else window(rec, source, opThreads, from, to, add);
  }
  if (view !== null) for (let i = 0; i < keys.count; i++) keys.stack[i] = view.stacks.ofStack(keys.stack[i]);
  const { tree, endNode } = mergeKeys(view?.stacks ?? source, view?.labels ?? labels, keys, false, operations);
  return { ...tree, threads: threadLists(tree, endNode, keyThreads), by: 'operations' };
}

type Add = (stack: number, thread: number, count: number) => void;

function current(rec: Recording, source: AsyncSource, opThreads: Set<number>, from: number, to: number, intervalNs: number, add: Add): void {
  const slots = new ThreadSlots(rec);
  const live = new Uint8Array(slots.count);
  let remaining = 0;
  slots.ids.forEach((id, s) => {
    if (!opThreads.has(id) && rec.thread(id)?.ended === false) {
      live[s] = 1;
      remaining++;
    }
  });
  const { mono, threadId, stackId } = source.sampleColumns();
  const suspended: [number, number][] = [];
  let tick = NaN;
  let previousTick = NaN;
  let newest = -Infinity;
  for (let i = mono.length - 1; i >= 0; i--) {
    const m = mono[i];
    if (m >= to || m < from) continue;
    if (m > newest) newest = m;
    // Every thread placed, and past any tick that could still be current (and the tick before it, for the period): done.
    if (remaining === 0 && (Number.isNaN(tick) ? m < newest - STALE_TICKS * intervalNs : !Number.isNaN(previousTick) || m < tick - PERIOD_LOOKBACK * intervalNs)) break;
    const t = threadId[i];
    if (opThreads.has(t)) {
      if (Number.isNaN(tick)) tick = m;
      else if (Number.isNaN(previousTick) && m < tick) previousTick = m;
      const count = m === tick ? rec.sampleOperations(i) : 0;
      if (count > 0) suspended.push([stackId[i], count]);
      continue;
    }
    const s = slots.slot(t);
    if (s < 0 || live[s] === 0) continue;
    live[s] = 0;
    remaining--;
    if (source.isSpliced(stackId[i])) add(stackId[i], t, 1);
  }
  const period = Number.isNaN(previousTick) ? intervalNs : Math.max(intervalNs, tick - previousTick);
  if (Number.isNaN(tick) || tick < newest - STALE_TICKS * period) return;
  for (const [stack, count] of suspended) add(stack, -1, count);
}

function window(rec: Recording, source: AsyncSource, opThreads: Set<number>, from: number, to: number, add: Add): void {
  const slots = new ThreadSlots(rec);
  const { mono, threadId, stackId } = source.sampleColumns();
  // (stack, thread slot + 1; 0 for suspended operations) -> operations.
  const pairs = new PairTable(1 << 12);
  let counts = new Float64Array(pairs.first.length);
  for (let i = 0; i < mono.length; i++) {
    const m = mono[i];
    if (m >= to || m < from) continue;
    const t = threadId[i];
    let slot = 0;
    let count = 1;
    if (opThreads.has(t)) {
      count = rec.sampleOperations(i);
      if (count === 0) continue;
    } else {
      if (!source.isSpliced(stackId[i])) continue;
      slot = slots.slot(t) + 1;
      if (slot === 0) continue;
    }
    const p = pairs.intern(stackId[i], slot);
    if (p >= counts.length) counts = growFloat64(counts, p + 1);
    counts[p] += count;
  }
  for (let p = 0; p < pairs.size; p++) {
    const slot = pairs.second[p];
    add(pairs.first[p], slot === 0 ? -1 : slots.ids[slot - 1], counts[p]);
  }
}
