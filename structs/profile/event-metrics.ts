// The sample types of event samples (wire v2 EVENTS): what each one counts, in which unit, and
// the value an event adds to it. Allocation events carry upscaled estimates (bytes, objects);
// contention events the wait; exception events a count (1, or several for the events the
// profiler sent without a stack once over its stack budget).

import { EventKind } from '../wire/records.js';
import type { Recording, SampleMetric } from './recording.js';

export type EventMetric = 'exceptions' | 'contentions' | 'delay' | 'alloc-samples' | 'alloc-space' | 'alloc-objects' | 'inuse-space' | 'inuse-objects';
/** Any sample type of a recording: of its samples (CPU, wall) or of its events. */
export type ProfileMetric = SampleMetric | EventMetric;

export interface EventMetricInfo {
  readonly metric: EventMetric;
  /** EventKind of the events it sums. */
  readonly kind: number;
  /** pprof's unit of the sample type (`go tool pprof -sample_index=<metric>`). */
  readonly unit: 'count' | 'nanoseconds' | 'bytes';
  /** As a person reads it in a type selector. */
  readonly title: string;
  /** What one event adds, from its two values. */
  readonly value: (value1: number, value2: number) => number;
  /**
   * A state rather than a flow (the live heap): only the newest live set counts, the one of the
   * latest LiveSnapshot at or before the end of the time looked at; earlier sets are history.
   */
  readonly snapshot?: true;
}

export const EVENT_METRICS: readonly EventMetricInfo[] = Object.freeze([
  { metric: 'alloc-space', kind: EventKind.Allocation, unit: 'bytes', title: 'Allocated bytes', value: (v1: number) => v1 },
  { metric: 'alloc-objects', kind: EventKind.Allocation, unit: 'count', title: 'Allocated objects', value: (_v1: number, v2: number) => v2 },
  { metric: 'alloc-samples', kind: EventKind.Allocation, unit: 'count', title: 'Allocation samples', value: () => 1 },
  { metric: 'delay', kind: EventKind.Contention, unit: 'nanoseconds', title: 'Lock wait', value: (v1: number) => v1 },
  { metric: 'contentions', kind: EventKind.Contention, unit: 'count', title: 'Lock contentions', value: () => 1 },
  { metric: 'exceptions', kind: EventKind.Exception, unit: 'count', title: 'Exceptions', value: (v1: number) => v1 },
  { metric: 'inuse-space', kind: EventKind.Live, unit: 'bytes', title: 'Live heap bytes', value: (v1: number) => v1, snapshot: true },
  { metric: 'inuse-objects', kind: EventKind.Live, unit: 'count', title: 'Live heap objects', value: (_v1: number, v2: number) => v2, snapshot: true },
] satisfies EventMetricInfo[]);

/** The time of the newest live set at or before `until` (its LiveSnapshot's mono), -1 for none. */
export function liveSetMono(rec: Recording, until = Infinity): number {
  const { kind, mono } = rec.events();
  let newest = -1;
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] === EventKind.LiveSnapshot && mono[i] <= until && mono[i] > newest) newest = mono[i];
  }
  return newest;
}

/**
 * Whether live event i (EventKind.Live) is of the newest live set at or before `until`. A
 * recording of several processes (record --children) has a newest set per process; its
 * LiveSnapshot markers name no process, so there the newest set of a process is the newest time
 * any of its live events has (a process whose last set was empty keeps showing its set before).
 */
export function newestLiveSet(rec: Recording, until = Infinity): (i: number) => boolean {
  const { kind, mono, threadId } = rec.events();
  if (rec.processes().length === 0) {
    const set = liveSetMono(rec, until);
    return (i) => mono[i] === set;
  }
  const newest = new Map<number, number>();
  const processIndex = (i: number): number => {
    const p = rec.processOf(threadId[i]);
    return p === undefined ? -1 : p.pid;
  };
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] !== EventKind.Live || mono[i] > until) continue;
    const p = processIndex(i);
    if (mono[i] > (newest.get(p) ?? -1)) newest.set(p, mono[i]);
  }
  return (i) => mono[i] === newest.get(processIndex(i));
}

/**
 * Which events a metric sums: those of its kind, and for a live-heap metric only those of the
 * newest live set at or before `until`.
 */
export function eventSelector(rec: Recording, info: EventMetricInfo, until = Infinity): (i: number) => boolean {
  const { kind } = rec.events();
  if (info.snapshot !== true) return (i) => kind[i] === info.kind;
  const newest = newestLiveSet(rec, until);
  return (i) => kind[i] === info.kind && newest(i);
}

export function isEventMetric(name: string): name is EventMetric {
  return EVENT_METRICS.some((m) => m.metric === name);
}

export function eventMetricInfo(metric: EventMetric): EventMetricInfo {
  const info = EVENT_METRICS.find((m) => m.metric === metric);
  if (info === undefined) throw new Error(`unknown event metric ${metric}`);
  return info;
}

/** The event metrics the recording has events for, in EVENT_METRICS order. */
export function eventMetricsPresent(rec: Recording): EventMetric[] {
  const kinds = new Set<number>();
  const { kind } = rec.events();
  for (let i = 0; i < kind.length; i++) kinds.add(kind[i]);
  return EVENT_METRICS.filter((m) => kinds.has(m.kind)).map((m) => m.metric);
}

/** The metric's value of event i (0 for events of other kinds, or of an older live set than the newest). */
export function eventValueAt(rec: Recording, info: EventMetricInfo, i: number, selected = eventSelector(rec, info)): number {
  const e = rec.events();
  return selected(i) ? info.value(e.value1[i], e.value2[i]) : 0;
}

/** The metric summed per stack id (index = stackId); events without a stack are in `unstacked`. */
export function sumEventsByStack(rec: Recording, metric: EventMetric): { sums: Float64Array; unstacked: number } {
  const info = eventMetricInfo(metric);
  const sums = new Float64Array(rec.stackCount);
  const e = rec.events();
  const counts = eventSelector(rec, info);
  let unstacked = 0;
  for (let i = 0; i < e.kind.length; i++) {
    if (!counts(i)) continue;
    const v = info.value(e.value1[i], e.value2[i]);
    if (e.stackId[i] >= 0) sums[e.stackId[i]] += v;
    else unstacked += v;
  }
  return { sums, unstacked };
}

export interface LabelTotal {
  label: string;
  value: number;
  events: number;
}

/** The metric summed per event label (type name), largest first. */
export function totalsByLabel(rec: Recording, metric: EventMetric): LabelTotal[] {
  const info = eventMetricInfo(metric);
  const e = rec.events();
  const strings = rec.strings();
  const byLabel = new Map<number, LabelTotal>();
  const counts = eventSelector(rec, info);
  for (let i = 0; i < e.kind.length; i++) {
    if (!counts(i)) continue;
    let t = byLabel.get(e.labelId[i]);
    if (t === undefined) {
      t = { label: strings.get(e.labelId[i]) ?? '', value: 0, events: 0 };
      byLabel.set(e.labelId[i], t);
    }
    t.value += info.value(e.value1[i], e.value2[i]);
    t.events += 1;
  }
  return [...byLabel.values()].sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
}
