// Event samples summed per (kind, stack, thread, label, lock owner, message): the rows an exporter
// writes, one per distinct place, each with every event metric's total.

import { EVENT_METRICS, newestLiveSet, type EventMetric } from './event-metrics.js';
import { EventFlags, EventKind } from '../wire/records.js';
import type { Recording } from './recording.js';

/** The frame events without a stack hang under (exceptions over the profiler's stack budget). */
export const UNSTACKED_FRAME = '[no stack: over the stack budget]';

export interface EventSum {
  kind: number;
  /** The recording's stack id, -1 for none. */
  stackId: number;
  /** 0: no thread. */
  threadId: number;
  label: string;
  /** Contention: the stream's id of the thread that held the lock when the wait began, 0 when not known. */
  ownerThreadId: number;
  /** Exceptions: their message ('' for none). */
  message: string;
  /** By EVENT_METRICS index. */
  values: Float64Array;
}

export function eventSumValue(sum: EventSum, metric: EventMetric): number {
  return sum.values[EVENT_METRICS.findIndex((m) => m.metric === metric)];
}

/** In order of first appearance; of the live heap, the newest live set only. */
export function sumEventsByStackThreadLabel(rec: Recording): EventSum[] {
  const e = rec.events();
  const strings = rec.strings();
  const byKey = new Map<string, EventSum>();
  const out: EventSum[] = [];
  const newest = newestLiveSet(rec);
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] === EventKind.Live && !newest(i)) continue;
    const owner = e.kind[i] === EventKind.Contention && (e.flags[i] & EventFlags.HasValue2) !== 0 ? e.value2[i] : 0;
    const message = e.messageId[i];
    const key = `${e.kind[i]}:${e.stackId[i]}:${e.threadId[i]}:${e.labelId[i]}:${owner}:${message}`;
    let sum = byKey.get(key);
    if (sum === undefined) {
      sum = {
        kind: e.kind[i], stackId: e.stackId[i], threadId: e.threadId[i], label: strings.get(e.labelId[i]) ?? '', ownerThreadId: owner,
        message: message === 0 ? '' : strings.get(message) ?? '', values: new Float64Array(EVENT_METRICS.length),
      };
      byKey.set(key, sum);
      out.push(sum);
    }
    EVENT_METRICS.forEach((m, j) => {
      if (m.kind === e.kind[i]) sum.values[j] += m.value(e.value1[i], e.value2[i]);
    });
  }
  return out;
}
