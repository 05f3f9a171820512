// The workstation's type table and exceptions table: event samples summed per type name (the
// event's label), over a time window and a set of threads, with the values the flame graph
// gives the same events (event-metrics.ts). Allocations: estimated bytes and objects and the
// samples they come from; the live heap: what the newest live set at or before the window's end
// holds of each type, as the flame graph's "Live heap" shows it. Exceptions: how many of each
// type, which method threw them (the innermost managed frame of their stacks) and with which
// messages (the thrown objects' _message fields, as the profiler read them).

import { EventKind, FunctionKind } from '../wire/records.js';
import { eventMetricInfo, eventSelector } from './event-metrics.js';
import { frameLabel } from './frame-label.js';
import type { Recording } from './recording.js';

export interface EventTableQuery {
  /** Milliseconds after the recording's start (HELLO), inclusive; absent = from the start. */
  fromMs?: number;
  /** Exclusive; absent = to the end. */
  toMs?: number;
  /** Wire thread ids; null = every thread. */
  threadIds: readonly number[] | null;
}

export interface TypeRow {
  /** The type's name as the runtime gave it (generic arguments included); '' when the event had none. */
  type: string;
  /** Estimated bytes allocated (alloc-space). */
  bytes: number;
  /** Estimated objects allocated (alloc-objects). */
  objects: number;
  /** Allocation samples behind the estimates (alloc-samples). */
  samples: number;
  /** What the newest live set holds of the type (inuse-space, inuse-objects); 0 without one. */
  liveBytes: number;
  liveObjects: number;
}

export interface TypeTable {
  /** Largest allocated bytes first, then live bytes, then name. */
  rows: TypeRow[];
  bytes: number;
  objects: number;
  samples: number;
  liveBytes: number;
  liveObjects: number;
  /** The recording has live-heap sets (allocations were on with the live heap). */
  hasLive: boolean;
}

export interface ThrowingMethod {
  name: string;
  count: number;
}

export interface ExceptionMessage {
  /** null: the exceptions had no message recorded (a null _message, or a recording without messages). */
  text: string | null;
  count: number;
}

export interface ExceptionRow {
  type: string;
  /** Exceptions thrown, exact (those over the profiler's stack budget included). */
  count: number;
  /** Of them, the ones with a stack: the methods' shares are of these. */
  stacked: number;
  /** The methods that threw them (innermost managed frame), most first; at most MAX_THROWERS. */
  methods: ThrowingMethod[];
  /** Their messages, most first, of the exceptions with a stack (as the methods); at most MAX_MESSAGES. */
  messages: ExceptionMessage[];
  /** Distinct messages among them (null counted as one). */
  distinctMessages: number;
}

export interface ExceptionTable {
  /** Most thrown first, then name. */
  rows: ExceptionRow[];
  count: number;
}

/** Throwing methods kept per exception type. */
export const MAX_THROWERS = 5;
/** Messages kept per exception type. */
export const MAX_MESSAGES = 5;

interface Bounds {
  from: number;
  to: number;
  allowed: (threadId: number) => boolean;
}

function bounds(rec: Recording, q: EventTableQuery): Bounds {
  const start = rec.meta?.startMono ?? 0;
  const allowed = q.threadIds === null ? null : new Set(q.threadIds);
  return {
    from: q.fromMs === undefined ? -Infinity : start + q.fromMs * 1e6,
    to: q.toMs === undefined ? Infinity : start + q.toMs * 1e6,
    allowed: allowed === null ? () => true : (id) => allowed.has(id),
  };
}

/** Allocated and live bytes and objects per type. */
export function typeTable(rec: Recording, q: EventTableQuery): TypeTable {
  const e = rec.events();
  const strings = rec.strings();
  const { from, to, allowed } = bounds(rec, q);
  // The live heap is a state: the newest set before the window's end, wherever it began (as flame-events.ts).
  const live = eventSelector(rec, eventMetricInfo('inuse-space'), to);
  const row = rowsByName((type): TypeRow => ({ type, bytes: 0, objects: 0, samples: 0, liveBytes: 0, liveObjects: 0 }), strings);
  const t: TypeTable = { rows: [], bytes: 0, objects: 0, samples: 0, liveBytes: 0, liveObjects: 0, hasLive: false };
  for (let i = 0; i < e.kind.length; i++) {
    const kind = e.kind[i];
    if (kind === EventKind.LiveSnapshot) t.hasLive = true;
    if (kind !== EventKind.Allocation && kind !== EventKind.Live) continue;
    const m = e.mono[i];
    if (m >= to || !allowed(e.threadId[i])) continue;
    if (kind === EventKind.Allocation) {
      if (m < from) continue;
      const r = row(e.labelId[i]);
      r.bytes += e.value1[i];
      r.objects += e.value2[i];
      r.samples += 1;
      t.bytes += e.value1[i];
      t.objects += e.value2[i];
      t.samples += 1;
    } else if (live(i)) {
      const r = row(e.labelId[i]);
      r.liveBytes += e.value1[i];
      r.liveObjects += e.value2[i];
      t.liveBytes += e.value1[i];
      t.liveObjects += e.value2[i];
    }
  }
  t.rows = [...row.all()].sort((a, b) => b.bytes - a.bytes || b.liveBytes - a.liveBytes || compareNames(a.type, b.type));
  return t;
}

/** Exceptions per type, with the methods that threw them. */
export function exceptionTable(rec: Recording, q: EventTableQuery): ExceptionTable {
  const e = rec.events();
  const strings = rec.strings();
  const { from, to, allowed } = bounds(rec, q);
  // The throwing method of each stack, named once.
  const thrower = new Map<number, string>();
  const throwerOf = (stackId: number): string => {
    let name = thrower.get(stackId);
    if (name === undefined) {
      name = innermostManaged(rec, stackId);
      thrower.set(stackId, name);
    }
    return name;
  };
  const entryOf = rowsByName((type) => ({
    row: { type, count: 0, stacked: 0, methods: [], messages: [], distinctMessages: 0 } as ExceptionRow,
    methods: new Map<string, number>(),
    // By message id, named at the end (a recording of several processes may name one text under several ids).
    messages: new Map<number, number>(),
  }), strings);
  let total = 0;
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] !== EventKind.Exception) continue;
    const m = e.mono[i];
    if (m < from || m >= to || !allowed(e.threadId[i])) continue;
    const entry = entryOf(e.labelId[i]);
    // An event without a stack stands for the exceptions over the stack budget: value1 of them.
    const n = e.value1[i];
    entry.row.count += n;
    total += n;
    if (e.stackId[i] < 0) continue;
    entry.row.stacked += n;
    const name = throwerOf(e.stackId[i]);
    entry.methods.set(name, (entry.methods.get(name) ?? 0) + n);
    const message = e.messageId[i];
    entry.messages.set(message, (entry.messages.get(message) ?? 0) + n);
  }
  const rows = [...entryOf.all()].map(({ row, methods, messages }) => {
    row.methods = [...methods].map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || compareNames(a.name, b.name))
      .slice(0, MAX_THROWERS);
    const byText = new Map<string | null, number>();
    for (const [id, count] of messages) {
      const text = id === 0 ? null : strings.get(id) ?? null;
      byText.set(text, (byText.get(text) ?? 0) + count);
    }
    row.distinctMessages = byText.size;
    row.messages = [...byText].map(([text, count]) => ({ text, count }))
      .sort((a, b) => b.count - a.count || compareNames(a.text ?? '', b.text ?? ''))
      .slice(0, MAX_MESSAGES);
    return row;
  });
  rows.sort((a, b) => b.count - a.count || compareNames(a.type, b.type));
  return { rows, count: total };
}

/**
 * One row per type name, found by the event's label id. Keyed by the name, not the id: a
 * recording of several processes may name one type under several ids.
 */
function rowsByName<R>(make: (type: string) => R, strings: ReadonlyMap<number, string>): ((labelId: number) => R) & { all(): IterableIterator<R> } {
  const byId = new Map<number, R>();
  const byName = new Map<string, R>();
  const find = (labelId: number): R => {
    let r = byId.get(labelId);
    if (r !== undefined) return r;
    const type = strings.get(labelId) ?? '';
    r = byName.get(type);
    if (r === undefined) {
      r = make(type);
      byName.set(type, r);
    }
    byId.set(labelId, r);
    return r;
  };
  return Object.assign(find, { all: () => byName.values() });
}

/** The stack's innermost managed frame's name (its leaf when it has none), as the summary's "self" is. */
function innermostManaged(rec: Recording, stackId: number): string {
  const frames = rec.stackFrames(stackId);
  if (frames.length === 0) return '[no frames]';
  let id = frames[0];
  for (let i = 0; i < frames.length; i++) {
    if (rec.functionInfo(frames[i])?.kind === FunctionKind.Managed) {
      id = frames[i];
      break;
    }
  }
  const fn = rec.functionInfo(id);
  return fn === undefined ? `[function ${id}]` : frameLabel(fn);
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
