// Where one HTTP request's time went, from its start to its end: on which threads it ran on a CPU,
// where it waited on a thread (blocked: sync over async, a lock, synchronous I/O), and the rest,
// when it was on no thread at all: suspended at an await.
//
// Its samples are those requests.ts gives it, and on each thread they tile its time: a sample
// stands for the time since the thread's previous one (CPU samples come at most an interval apart
// while a thread runs, wall samples an interval apart always), so the stretch from the previous
// sample, or from the request's start, to a sample is what that sample shows: running (a CPU
// sample, or a wall sample not in a wait), waiting on the thread (a wall sample in one of the
// waits `report --blocking` ranks: sync over async, a lock, synchronous I/O), or away from the
// request (a wall sample without ASP.NET Core's pipeline on its stack: after the request's first
// await its thread went back to the pool, and the pool's idle waits are no part of it, though
// requests.ts's rule still charges them to it). After the request's last sample on the thread
// that ended it, that thread went on as that sample shows until the end (a sample after the end
// may be an interval later and show the thread's next work). Time no thread holds is suspended.
// What a suspended stretch awaited is
// the `[awaiting …]` leaf of the operations the profiler saw suspended in it (record --async),
// the commonest one, read from the `[async operations]` thread (structs/wire/PROTOCOL.md).

import type { Recording } from '../profile/recording.js';
import { threadLabel } from '../profile/thread-label.js';
import { isBlockingWait } from './pool-blocking.js';
import { ASYNC_OPERATIONS_THREAD } from './async-source.js';
import { requestsOf, sampleRequests } from './requests.js';

export type SpanState = 'cpu' | 'blocked';

export interface TimelineSpan {
  /** Ms from the request's start. */
  fromMs: number;
  toMs: number;
  state: SpanState;
}

export interface RequestTimelineThread {
  threadId: number;
  name: string;
  spans: TimelineSpan[];
}

export interface SuspendedStretch {
  fromMs: number;
  toMs: number;
  /** The awaited frame ("[awaiting Task.Delay]"); null when the recording has no async stacks or saw none. */
  awaiting: string | null;
}

export interface RequestTimeline {
  index: number;
  endpoint: string;
  status: number;
  traceId: string;
  /** Ms from the recording's start. */
  startMs: number;
  latencyMs: number;
  threads: RequestTimelineThread[];
  suspended: SuspendedStretch[];
  /** Ms of the latency on a CPU on some thread, waiting on a thread, and on no thread. */
  cpuMs: number;
  blockedMs: number;
  suspendedMs: number;
  /** Whether the recording has async stacks (what suspended stretches awaited can be known). */
  hasAsync: boolean;
}

const PIPELINE = /^Microsoft\.AspNetCore\./;

type SampleClass = 'cpu' | 'blocked' | 'away';

type Interval = [number, number];

/** The union of intervals, sorted and merged. */
function union(list: readonly Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const lengthOf = (list: readonly Interval[]): number => list.reduce((s, [a, b]) => s + b - a, 0);

/** The timeline of request `index` (requestsOf's order); null when there is no such ended request. */
export function requestTimeline(rec: Recording, index: number): RequestTimeline | null {
  const requests = requestsOf(rec);
  const r = requests[index];
  if (r === undefined || r.endNs === undefined || rec.meta === undefined) return null;
  const start = r.startNs;
  const end = r.endNs;
  const ms = (ns: number): number => (ns - start) / 1e6;
  const tags = sampleRequests(rec, requests);
  const { mono, threadId, stackId, cpuNs, wallNs } = rec.sampleColumns();
  const endThreads = new Set(rec.threads().filter((t) => t.osTid !== 0 && t.osTid === r.endTid).map((t) => t.id));
  const classOf = new Map<number, SampleClass>();
  const classify = (sid: number, cpu: boolean): SampleClass => {
    if (cpu) return 'cpu';
    let c = classOf.get(sid);
    if (c === undefined) {
      const names = [...rec.stackFrames(sid)].map((f) => rec.functionInfo(f)?.name ?? '');
      c = !names.some((n) => PIPELINE.test(n)) ? 'away' : names.some(isBlockingWait) ? 'blocked' : 'cpu';
      classOf.set(sid, c);
    }
    return c;
  };
  // Per thread, its samples in the request, by time.
  const perThread = new Map<number, { mono: number; what: SampleClass }[]>();
  for (let i = 0; i < tags.length; i++) {
    const m = mono[i];
    if (tags[i] !== index || m <= start || !(cpuNs[i] > 0 || wallNs[i] > 0)) continue;
    let list = perThread.get(threadId[i]);
    if (list === undefined) perThread.set(threadId[i], (list = []));
    list.push({ mono: m, what: classify(stackId[i], cpuNs[i] > 0) });
  }
  const byThread = new Map<number, { cpu: Interval[]; on: Interval[] }>();
  for (const [id, list] of perThread) {
    list.sort((x, y) => x.mono - y.mono);
    const t = { cpu: [] as Interval[], on: [] as Interval[] };
    let prev = start;
    let last: SampleClass = 'away';
    for (const sample of list) {
      const to = Math.min(end, sample.mono);
      if (to > prev && sample.what !== 'away') (sample.what === 'cpu' ? t.cpu : t.on).push([prev, to]);
      prev = Math.max(prev, to);
      last = sample.what;
    }
    if (prev < end && last !== 'away' && endThreads.has(id)) (last === 'cpu' ? t.cpu : t.on).push([prev, end]);
    if (t.cpu.length + t.on.length > 0) byThread.set(id, t);
  }
  const names = new Map(rec.threads().map((t) => [t.id, t]));
  const threads: RequestTimelineThread[] = [];
  const allCpu: Interval[] = [];
  const allOn: Interval[] = [];
  for (const [id, t] of byThread) {
    const cpu = union(t.cpu);
    const on = union([...t.on, ...cpu]);
    allCpu.push(...cpu);
    allOn.push(...on);
    // Waiting spans: the on-thread stretches less the CPU ones.
    const spans: TimelineSpan[] = cpu.map(([a, b]) => ({ fromMs: ms(a), toMs: ms(b), state: 'cpu' as const }));
    for (const [a, b] of on) {
      let at = a;
      for (const [c, d] of cpu) {
        if (d <= at || c >= b) continue;
        if (c > at) spans.push({ fromMs: ms(at), toMs: ms(c), state: 'blocked' });
        at = Math.max(at, d);
      }
      if (at < b) spans.push({ fromMs: ms(at), toMs: ms(b), state: 'blocked' });
    }
    spans.sort((x, y) => x.fromMs - y.fromMs);
    threads.push({ threadId: id, name: threadLabel(names.get(id), id), spans });
  }
  threads.sort((a, b) => (a.spans[0]?.fromMs ?? 0) - (b.spans[0]?.fromMs ?? 0));
  const on = union(allOn);
  const cpuLength = lengthOf(union(allCpu));
  // The stretches on no thread, and what the operations suspended in each awaited.
  const gaps: Interval[] = [];
  let at = start;
  for (const [a, b] of on) {
    if (a > at) gaps.push([at, a]);
    at = Math.max(at, b);
  }
  if (at < end) gaps.push([at, end]);
  const suspended = gaps.map(([a, b]) => ({ fromMs: ms(a), toMs: ms(b), awaiting: rec.hasAsync ? awaitedIn(rec, a, b) : null }));
  const onLength = lengthOf(on);
  return {
    index, endpoint: r.endpoint, status: r.status, traceId: r.traceId,
    startMs: (start - rec.meta.startMono) / 1e6,
    latencyMs: (end - start) / 1e6,
    threads, suspended,
    cpuMs: cpuLength / 1e6,
    blockedMs: (onLength - cpuLength) / 1e6,
    suspendedMs: (end - start - onLength) / 1e6,
    hasAsync: rec.hasAsync,
  };
}

/** The commonest `[awaiting …]` leaf of the suspended operations' samples in [from, to] (mono ns), by time. */
function awaitedIn(rec: Recording, from: number, to: number): string | null {
  const ops = new Set(rec.threads().filter((t) => t.osTid === 0 && t.name === ASYNC_OPERATIONS_THREAD).map((t) => t.id));
  if (ops.size === 0) return null;
  const { mono, threadId, stackId, wallNs } = rec.sampleColumns();
  const byLeaf = new Map<string, number>();
  for (let i = 0; i < mono.length; i++) {
    if (mono[i] < from || mono[i] > to || !ops.has(threadId[i])) continue;
    const leaf = rec.stackFrames(stackId[i])[0];
    const name = leaf === undefined ? '' : rec.functionInfo(leaf)?.name ?? '';
    if (name.startsWith('[awaiting')) byLeaf.set(name, (byLeaf.get(name) ?? 0) + wallNs[i]);
  }
  let best: string | null = null;
  let most = 0;
  for (const [name, ns] of byLeaf) if (ns > most) [best, most] = [name, ns];
  return best;
}
