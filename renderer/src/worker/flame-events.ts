// The flame graph of an event type (allocated bytes, lock wait, exceptions, ...): the events
// of the query's window and threads summed per stack, or per (stack, group label) when grouped
// by thread or process. Events without a stack (exceptions over the profiler's stack budget) have no place
// in a tree and are left out. A type name, when given, keeps only the events of that type. The live heap is what the newest live set before the window's end
// holds, wherever in time that set was taken.

import type { LabelTable } from '../../../structs/analysis/label-table.js';
import type { MergeKeys } from '../../../structs/analysis/tree-merge.js';
import { eventMetricInfo, eventSelector, type EventMetric } from '../../../structs/profile/event-metrics.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { MonoBounds, ThreadSlots } from './sample-filter.js';

export function sumEventsForFlame(
  rec: Recording, metric: EventMetric, threadIds: readonly number[] | null, groupOf: ((threadId: number) => number) | null,
  { from, to }: MonoBounds, slots: ThreadSlots, labels: LabelTable, keys: MergeKeys, eventType?: string,
): { count: number; newestMono: number } {
  const info = eventMetricInfo(metric);
  const e = rec.events();
  const allowed = slots.mask(threadIds);
  // One type (a row of the type or exceptions table): the label ids that name it (a recording of
  // several processes may hold the same name under more than one id).
  const ofType = eventType === undefined ? null : labelIdsNamed(rec, eventType);
  // The live heap is a state: the newest live set before the window's end.
  const counts = eventSelector(rec, info, to);
  const sums = new Map<string, { stack: number; group: number; value: number }>();
  let count = 0;
  let newest = -Infinity;
  for (let i = 0; i < e.kind.length; i++) {
    if (!counts(i) || e.stackId[i] < 0) continue;
    if (ofType !== null && !ofType.has(e.labelId[i])) continue;
    const m = e.mono[i];
    if ((m < from && info.snapshot !== true) || m >= to) continue;
    const s = slots.slot(e.threadId[i]);
    if (s < 0 || allowed[s] === 0) continue;
    const v = info.value(e.value1[i], e.value2[i]);
    if (v === 0) continue;
    const group = groupOf === null ? -1 : groupOf(e.threadId[i]);
    const key = `${e.stackId[i]}:${group}`;
    let sum = sums.get(key);
    if (sum === undefined) {
      sum = { stack: e.stackId[i], group, value: 0 };
      sums.set(key, sum);
    }
    sum.value += v;
    count++;
    if (m > newest) newest = m;
  }
  for (const sum of sums.values()) keys.add(sum.stack, sum.group, sum.value);
  return { count, newestMono: newest };
}

function labelIdsNamed(rec: Recording, name: string): Set<number> {
  const ids = new Set<number>();
  for (const [id, text] of rec.strings()) if (text === name) ids.add(id);
  // Events without a label are the unnamed type ('' in the tables).
  if (name === '') ids.add(0);
  return ids;
}
