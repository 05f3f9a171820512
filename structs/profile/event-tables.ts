// The workstation's type table and exceptions table: event samples summed per type name (the
// event's label), over a time window and a set of threads, with the values the flame graph
// gives the same events (event-metrics.ts). Allocations: estimated bytes and objects and the
// samples they come from; the live heap: what the newest live set at or before the window's end
// holds of each type, as the flame graph's "Live heap" shows it. Exceptions: how many of each
// type, the methods where they started (each thrown object once, its rethrows apart:
// exception-origins.ts), how they were rethrown, and with which messages (the thrown objects'
// _message fields, as the profiler read them).

import { EventKind } from '../wire/records.js';
import { eventMetricInfo, eventSelector } from './event-metrics.js';
import { thrownExceptions, topPaths, type RethrowPath } from './exception-origins.js';
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
  /** Throws, exact (rethrows and those over the profiler's stack budget included), as the runtime counts them. */
  count: number;
  /** Exceptions with a stack, each thrown object once: the methods' shares are of these. */
  stacked: number;
  /** Their rethrows (a `throw;`, an await of the faulted task): throws after the first. */
  rethrows: number;
  /** The methods where they started (the innermost managed frame of each one's first throw), most first; at most MAX_THROWERS. */
  methods: ThrowingMethod[];
  /** The rethrow paths of the exceptions that started in the top method, most taken first. */
  paths: RethrowPath[];
  /** Their messages, most first, each exception once (as the methods); at most MAX_MESSAGES. */
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

/** Exceptions per type, with the methods where they started and how they were rethrown. */
export function exceptionTable(rec: Recording, q: EventTableQuery): ExceptionTable {
  const e = rec.events();
  const strings = rec.strings();
  const { from, to, allowed } = bounds(rec, q);
  const entryOf = rowsByName((type) => ({
    row: { type, count: 0, stacked: 0, rethrows: 0, methods: [], paths: [], messages: [], distinctMessages: 0 } as ExceptionRow,
    methods: new Map<string, number>(),
    // Of each method, its rethrow paths by their text.
    paths: new Map<string, Map<string, RethrowPath>>(),
    // By message id, named at the end (a recording of several processes may name one text under several ids).
    messages: new Map<number, number>(),
  }), strings);
  const inWindow = (i: number): boolean => e.mono[i] >= from && e.mono[i] < to && allowed(e.threadId[i]);
  let total = 0;
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] !== EventKind.Exception || !inWindow(i)) continue;
    // An event without a stack stands for the exceptions over the stack budget: value1 of them.
    const n = e.value1[i];
    entryOf(e.labelId[i]).row.count += n;
    total += n;
  }
  // Each thrown object once, at the method where it started; its rethrows counted apart.
  for (const x of thrownExceptions(rec, inWindow)) {
    const entry = entryOf(x.labelId);
    entry.row.stacked += 1;
    entry.row.rethrows += x.rethrownAt.length;
    entry.methods.set(x.origin, (entry.methods.get(x.origin) ?? 0) + 1);
    let paths = entry.paths.get(x.origin);
    if (paths === undefined) entry.paths.set(x.origin, paths = new Map());
    const key = x.rethrownAt.join('\n');
    const path = paths.get(key);
    if (path === undefined) paths.set(key, { sites: x.rethrownAt, count: 1 });
    else path.count += 1;
    entry.messages.set(x.messageId, (entry.messages.get(x.messageId) ?? 0) + 1);
  }
  const rows = [...entryOf.all()].map(({ row, methods, paths, messages }) => {
    row.methods = [...methods].map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || compareNames(a.name, b.name))
      .slice(0, MAX_THROWERS);
    const top = row.methods[0];
    row.paths = top === undefined ? [] : topPaths(paths.get(top.name)?.values() ?? []);
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

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
