// Exceptions by where they started. The profiler sends an event for every throw, and a `throw;`
// or an ExceptionDispatchInfo.Throw (every await of a faulted task) throws the same object again:
// counted by the innermost frame of each throw, an async service's exceptions all seem to come
// from ExceptionDispatchInfo.Throw. Each exception event carries the thrown object's identity
// (value2: the identity times two, plus one for a rethrow; structs/wire/PROTOCOL.md, EVENTS), so
// here the throws of one object become one exception, counted once at its first throw's method,
// with the places it was rethrown from, in order, as its rethrow path.

import { EventFlags, EventKind, FunctionKind } from '../wire/records.js';
import { frameLabel } from './frame-label.js';
import type { Recording } from './recording.js';

/** One thrown object: its throws in the events looked at. */
export interface ThrownException {
  /** Its type's STRING id (the event's label). */
  labelId: number;
  /** Its message's STRING id (0: none). */
  messageId: number;
  /** The method of its first throw: the innermost managed frame there. */
  origin: string;
  /** False when its first throw is not among the events (outside the window, over the stack budget): `origin` is then where it was first seen. */
  originSeen: boolean;
  /** Where it was rethrown from, in order (rethrowSite of each rethrow's stack). */
  rethrownAt: string[];
}

/** Frames of the runtime's rethrowing machinery: a rethrow is named by the first frame outside them. */
const RETHROW_MACHINERY = /^System\.Runtime\.ExceptionServices\.|^System\.Runtime\.CompilerServices\.(Configured)?(Value)?Task(Awaiter|Awaitable)|^System\.Threading\.Tasks\.(Task|ValueTask)(<[^>]*>)?\.(ThrowIfExceptional|GetResultCore|Wait|get_Result)|^System\.Threading\.ExecutionContext\./;
/** The box an async method's state machine runs in: `…AsyncStateMachineBox<TResult,StateMachine>.Method`. */
const STATE_MACHINE_BOX = /^System\.Runtime\.CompilerServices\.Async\w*MethodBuilder\S*\+AsyncStateMachineBox<(.+)>\.[^.<>]+$/;

/** The exception events (with a stack) that `select` keeps, grouped by thrown object, in the order their first events come. */
export function thrownExceptions(rec: Recording, select: (i: number) => boolean = () => true): ThrownException[] {
  const e = rec.events();
  const names = new Map<number, string>();
  const named = (stackId: number, rethrow: boolean): string => {
    const key = rethrow ? -1 - stackId : stackId;
    let name = names.get(key);
    if (name === undefined) {
      name = rethrow ? rethrowSite(rec, stackId) : innermostManaged(rec, stackId);
      names.set(key, name);
    }
    return name;
  };
  const out: ThrownException[] = [];
  // By process (a recording of several processes numbers each one's objects itself), then identity.
  const byIdentity = new Map<string, ThrownException>();
  const order: { at: number; mono: number }[] = [];
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] !== EventKind.Exception || e.stackId[i] < 0 || !select(i)) continue;
    order.push({ at: i, mono: e.mono[i] });
  }
  // Rethrows follow their first throw in time, perhaps on another thread, so not always in the stream's order.
  order.sort((a, b) => a.mono - b.mono || a.at - b.at);
  for (const { at: i } of order) {
    const known = (e.flags[i] & EventFlags.HasValue2) !== 0 && e.value2[i] >= 2;
    const rethrow = known && e.value2[i] % 2 === 1;
    const key = known ? `${rec.processOf(e.threadId[i])?.pid ?? 0}:${Math.floor(e.value2[i] / 2)}` : undefined;
    const seen = key === undefined ? undefined : byIdentity.get(key);
    if (seen !== undefined) {
      seen.rethrownAt.push(named(e.stackId[i], true));
      continue;
    }
    // Its first event here: the first throw itself, or a rethrow whose first throw is not here.
    const x: ThrownException = {
      labelId: e.labelId[i],
      messageId: e.messageId[i],
      origin: named(e.stackId[i], rethrow),
      originSeen: !rethrow,
      rethrownAt: [],
    };
    out.push(x);
    if (key !== undefined) byIdentity.set(key, x);
  }
  return out;
}

export interface RethrowPath {
  /** The rethrowing methods in order, from the first rethrow to the last; empty: never rethrown. */
  sites: string[];
  /** Exceptions that took it. */
  count: number;
}

export interface ExceptionOrigin {
  /** The method their first throws ran in (innermost managed frame). */
  method: string;
  /** Exceptions that started there (each thrown object once). */
  exceptions: number;
  /** Their rethrows (throws after the first). */
  rethrows: number;
  /** Of them, those whose first throw was not recorded, counted where first seen. */
  originNotSeen: number;
  /** Their types, most first. */
  types: { type: string; count: number }[];
  /** Their rethrow paths, most taken first; at most MAX_PATHS. */
  paths: RethrowPath[];
}

/** Rethrow paths kept per origin. */
export const MAX_PATHS = 5;

/** Exceptions grouped by the method where they started, most first (then by name). */
export function exceptionOrigins(rec: Recording, exceptions: readonly ThrownException[]): ExceptionOrigin[] {
  const strings = rec.strings();
  const byMethod = new Map<string, { origin: ExceptionOrigin; types: Map<string, number>; paths: Map<string, RethrowPath> }>();
  for (const x of exceptions) {
    let entry = byMethod.get(x.origin);
    if (entry === undefined) {
      entry = { origin: { method: x.origin, exceptions: 0, rethrows: 0, originNotSeen: 0, types: [], paths: [] }, types: new Map(), paths: new Map() };
      byMethod.set(x.origin, entry);
    }
    const o = entry.origin;
    o.exceptions += 1;
    o.rethrows += x.rethrownAt.length;
    if (!x.originSeen) o.originNotSeen += 1;
    const type = strings.get(x.labelId) ?? '';
    entry.types.set(type, (entry.types.get(type) ?? 0) + 1);
    const key = x.rethrownAt.join('\n');
    const path = entry.paths.get(key);
    if (path === undefined) entry.paths.set(key, { sites: x.rethrownAt, count: 1 });
    else path.count += 1;
  }
  const origins = [...byMethod.values()].map(({ origin, types, paths }) => {
    origin.types = [...types].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || compareNames(a.type, b.type));
    origin.paths = topPaths(paths.values());
    return origin;
  });
  return origins.sort((a, b) => b.exceptions - a.exceptions || compareNames(a.method, b.method));
}

/** The most taken paths first (the longer one of a tie first: it says more), at most MAX_PATHS. */
export function topPaths(paths: Iterable<RethrowPath>): RethrowPath[] {
  return [...paths].sort((a, b) => b.count - a.count || b.sites.length - a.sites.length || compareNames(a.sites.join(' > '), b.sites.join(' > '))).slice(0, MAX_PATHS);
}

/** A path as one line: the methods it was rethrown from, in order. */
export function pathText(path: RethrowPath): string {
  return path.sites.length === 0 ? 'not rethrown' : `rethrown at ${path.sites.join(' > ')}`;
}

/** The stack's innermost managed frame's name (its leaf when it has none). */
export function innermostManaged(rec: Recording, stackId: number): string {
  const frames = rec.stackFrames(stackId);
  if (frames.length === 0) return '[no frames]';
  let id = frames[0];
  for (const f of frames) {
    if (rec.functionInfo(f)?.kind === FunctionKind.Managed) {
      id = f;
      break;
    }
  }
  const fn = rec.functionInfo(id);
  return fn === undefined ? `[function ${id}]` : frameLabel(fn);
}

/**
 * Where a rethrow came from: the innermost managed frame outside the runtime's rethrowing
 * machinery; when the stack has none, the machinery's outermost frame (e.g. the awaiter's
 * GetResult: what the rethrowing method called).
 */
function rethrowSite(rec: Recording, stackId: number): string {
  let outermost: string | undefined;
  for (const f of rec.stackFrames(stackId)) {
    const fn = rec.functionInfo(f);
    if (fn?.kind !== FunctionKind.Managed) continue;
    const name = frameLabel(fn);
    if (RETHROW_MACHINERY.test(name)) {
      outermost = name;
      continue;
    }
    // A box's frame stands for the async method it runs: the state machine's MoveNext (whose
    // own frame the stack may lack where a call out of it left no frame of its own).
    const box = STATE_MACHINE_BOX.exec(name);
    return box === null ? name : `${lastTypeArgument(box[1])}.MoveNext`;
  }
  return outermost ?? innermostManaged(rec, stackId);
}

/** The last of a comma-separated list of type arguments, commas inside brackets not counted. */
function lastTypeArgument(args: string): string {
  let depth = 0;
  let start = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (c === '<' || c === '[') depth++;
    else if (c === '>' || c === ']') depth--;
    else if (c === ',' && depth === 0) start = i + 1;
  }
  return args.slice(start).trim();
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
