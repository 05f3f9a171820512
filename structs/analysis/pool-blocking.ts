// The call sites that block thread-pool threads (`report --blocking`, the Thread pool tab), from
// wall samples: a thread-pool worker that waits holds a pool thread that could run other work,
// and a pool whose threads all wait starves (pool-story.ts says when it did).
//
// A sample counts when it was taken on a pool worker (the runtime names them ".NET TP Worker";
// without the name, a stack whose root is the portable pool's WorkerThread.WorkerThreadStart) and
// its stack holds one of the waits below. The outermost such frame says how it waited (Task.Wait
// reaches Monitor.Wait through ManualResetEventSlim.Wait; the caller asked for Task.Wait), and the
// site is the program's own method that called it (code-origin.ts), or the framework's when the
// program had none there. A worker waiting for work (LowLevelLifoSemaphore) matches nothing and
// is idle, not blocked.
//
// Where the recording has the runtime's own waits (WaitHandleWait, .NET 9+; pool-waits.ts), a
// site's blocked time is theirs: each wait of a pool thread goes to the site its thread's samples
// inside the wait name, and a site with such waits reports their summed duration instead of its
// samples' estimate (`from` says which). Waits no sample fell in (shorter than the sampling
// interval) are counted apart; the sites the runtime raises no wait for (Thread.Sleep, a lock,
// synchronous I/O) keep the estimate.

import { isOwnCode } from './code-origin.js';
import type { SampleSource } from './stack-source.js';
import type { RuntimeWait } from './pool-waits.js';

/** How a site blocks, outermost frame first: the first pattern a frame's name matches. */
const WAITS: readonly { re: RegExp; what: string }[] = [
  { re: /\.Task`1(<[^>]*>)?\.(get_Result|GetResultCore)$/, what: "a Task's Result" },
  { re: /\.(Configured)?(Value)?TaskAwaiter(`1)?(<[^>]*>)?\.GetResult$/, what: 'GetAwaiter().GetResult()' },
  { re: /\.Task\.(Wait|WaitAll|WaitAny|InternalWait|InternalWaitCore|SpinThenBlockingWait)$/, what: 'Task.Wait' },
  { re: /\.Monitor\.Wait$/, what: 'Monitor.Wait' },
  { re: /\.Monitor\.(Enter|ReliableEnter|TryEnter|Enter_Slowpath)$|\.Threading\.Lock\.(Enter|EnterScope|TryEnter)/, what: 'a lock' },
  { re: /\.WaitHandle\.(WaitOne|WaitAny|WaitAll|WaitOneNoCheck|WaitMultiple|SignalAndWait)/, what: 'a WaitHandle' },
  { re: /\.(SemaphoreSlim|ManualResetEventSlim|CountdownEvent|Barrier)\.Wait$/, what: '$1.Wait' },
  { re: /\.Thread\.Sleep$/, what: 'Thread.Sleep' },
  // The synchronous calls only: ReadAsync, SendAsync and their helpers (SendAsyncForNetworkStream,
  // ReadAsyncInternal, ...) issue a non-blocking call and return; a wall sample inside one is its
  // thread running or waiting for a CPU, not for the I/O (Kestrel's SocketSender.SendAsync once
  // ranked first in an MVC app's report as "synchronous I/O").
  {
    re: /\.Sockets\.Socket\.(Receive|Send|Accept|Connect)(?!\w*Async)\w*$|\.IO\.(FileStream|RandomAccess|Stream|StreamReader|StreamWriter|Net\.Sockets\.NetworkStream)\.(Read|Write|ReadToEnd|ReadLine|Flush)(?!\w*Async)\w*$|\.NetworkStream\.(Read|Write)$/,
    what: 'synchronous I/O',
  },
];

/** A frame of code the runtime generates (IL stubs, instantiating stubs), named by its signature alone. */
function isStub(name: string): boolean {
  return name.startsWith('[stub]');
}

/** Whether a frame named `name` is one of the waits above (request-timeline.ts reads wall samples by them too). */
export function isBlockingWait(name: string): boolean {
  return WAITS.some((w) => w.re.test(name));
}

const POOL_ROOT = /PortableThreadPool\+WorkerThread\.WorkerThreadStart$|ThreadPoolWorkQueue\.Dispatch$/;
export const POOL_THREAD_NAME = '.NET TP Worker';

export interface BlockingSite {
  /** The method that blocked: the program's own, else the framework's caller of the wait. */
  site: string;
  /** How: "a Task's Result", "Task.Wait", "Monitor.Wait", "Thread.Sleep", "synchronous I/O", ... */
  waitingOn: string;
  /** Pool-thread time it held blocked: the runtime's waits' when it has any, else its samples' estimate. */
  waitMs: number;
  /** Where waitMs comes from. */
  from: 'runtime waits' | 'wall samples';
  /** The wall samples' estimate of the same (ms). */
  sampledMs: number;
  /** The runtime's waits it was given, and their WaitSources ("MonitorWait", "Unknown"). */
  waits: number;
  waitSources: string[];
  /** Its share of all blocked pool-thread time, 0..1. */
  share: number;
  /** Pool threads it was seen blocking. */
  threads: number;
  /** Its heaviest stack, root first, down to the wait. */
  stack: string[];
  /** Its stacks by weight (the tab's list), each root first down to the wait. */
  stacks: { frames: string[]; waitMs: number }[];
}

export interface PoolWaitSummary {
  /** The recording has the runtime's wait events (.NET 9+, record --requests). */
  available: boolean;
  /** Waits of pool threads that blocked them (not idle workers'), and their summed duration (ms). */
  count: number;
  waitMs: number;
  /** Of those, the ones no sample fell in (shorter than the sampling interval): no site. */
  unattributed: number;
  unattributedMs: number;
  bySource: { source: string; count: number; waitMs: number }[];
  /** Where the blocked time comes from, in one sentence (pool-story.ts writes it). */
  note: string;
}

export interface PoolBlocking {
  sites: BlockingSite[];
  /** Wall time of pool threads (ms), and the part blocked: the sites' waitMs summed, and the wall samples' estimate of it. */
  poolWallMs: number;
  blockedMs: number;
  sampledBlockedMs: number;
  /** The runtime's own waits on pool threads. */
  runtimeWaits: PoolWaitSummary;
  /** Pool threads that have wall samples. */
  poolThreads: number;
}

/** The ranked sites of a recording (or any sample source with wall samples), with its runtime waits when it has them. */
export function poolBlocking(rec: SampleSource, waits: readonly RuntimeWait[] = [], waitEvents = waits.length > 0): PoolBlocking {
  const named = new Set(rec.threads().filter((t) => t.name === POOL_THREAD_NAME || t.name.endsWith(` ${POOL_THREAD_NAME}`)).map((t) => t.id));
  const { threadId, stackId, wallNs } = rec.sampleColumns();
  // Per stack: undefined not yet seen, null not a pool stack or no wait; else its site.
  const perStack = new Map<number, { key: string; site: string; what: string; frames: string[]; pool: boolean } | null>();
  const nameOf = (id: number): string => rec.functionInfo(id)?.name ?? '';
  const classify = (sid: number): { key: string; site: string; what: string; frames: string[]; pool: boolean } | null => {
    const ids = rec.stackFrames(sid);
    let pool = false;
    for (let i = ids.length - 1; i >= 0; i--) {
      const fn = rec.functionInfo(ids[i]);
      if (fn === undefined) continue;
      if (POOL_ROOT.test(fn.name)) pool = true;
      for (const w of WAITS) {
        const m = w.re.exec(fn.name);
        if (m === null) continue;
        // The caller: the nearest own method rootward of the wait, else the frame just above it.
        let site = '';
        for (let j = i + 1; j < ids.length && site === ''; j++) {
          const caller = rec.functionInfo(ids[j]);
          if (caller !== undefined && isOwnCode(caller) && !isStub(caller.name)) site = caller.name;
        }
        // Else the framework's caller; never a runtime stub, which says only its signature (an MVC
        // app's console-logger lock once ranked as "[stub] IL_STUB_InstantiatingStub: LogLevel,...").
        for (let j = i + 1; j < ids.length && site === ''; j++) {
          const n = nameOf(ids[j]);
          if (n !== '' && !isStub(n)) site = n;
        }
        if (site === '') site = fn.name;
        const what = w.what.startsWith('$1') ? `${m[1]}${w.what.slice(2)}` : w.what;
        const frames: string[] = [];
        for (let j = ids.length - 1; j >= i; j--) {
          const n = nameOf(ids[j]);
          if (n !== '') frames.push(n);
        }
        return { key: `${site}\u0000${what}`, site, what, frames, pool };
      }
    }
    return pool ? { key: '', site: '', what: '', frames: [], pool } : null;
  };
  const bySite = new Map<string, { site: string; what: string; ns: number; threads: Set<number>; stacks: Map<string, { frames: string[]; ns: number }> }>();
  const poolThreads = new Set<number>();
  // Each pool thread's wall samples in order of time, with their site ('' not blocked), for the waits.
  const timeline = new Map<number, { mono: number; key: string }[]>();
  const { mono } = rec.sampleColumns();
  let poolWallNs = 0;
  let blockedNs = 0;
  for (let i = 0; i < threadId.length; i++) {
    if (wallNs[i] === 0) continue;
    let c = perStack.get(stackId[i]);
    if (c === undefined) perStack.set(stackId[i], (c = classify(stackId[i])));
    const onPool = named.has(threadId[i]) || (c !== null && c.pool);
    if (!onPool) continue;
    poolThreads.add(threadId[i]);
    poolWallNs += wallNs[i];
    if (waits.length > 0) {
      let t = timeline.get(threadId[i]);
      if (t === undefined) timeline.set(threadId[i], (t = []));
      t.push({ mono: mono[i], key: c === null ? '' : c.key });
    }
    if (c === null || c.key === '') continue;
    blockedNs += wallNs[i];
    let s = bySite.get(c.key);
    if (s === undefined) bySite.set(c.key, (s = { site: c.site, what: c.what, ns: 0, threads: new Set(), stacks: new Map() }));
    s.ns += wallNs[i];
    s.threads.add(threadId[i]);
    const stackKey = c.frames.join('\n');
    const st = s.stacks.get(stackKey);
    if (st === undefined) s.stacks.set(stackKey, { frames: c.frames, ns: wallNs[i] });
    else st.ns += wallNs[i];
  }
  const ms = (ns: number): number => Math.round(ns / 1e3) / 1e3;
  const attributed = attributeWaits(rec, waits, poolThreads, timeline);
  let combinedNs = 0;
  const sites: BlockingSite[] = [...bySite.entries()].map(([key, s]) => {
    const stacks = [...s.stacks.values()].sort((a, b) => b.ns - a.ns).map((st) => ({ frames: st.frames, waitMs: ms(st.ns) }));
    const w = attributed.bySite.get(key);
    const ns = w === undefined ? s.ns : w.ns;
    combinedNs += ns;
    return {
      site: s.site, waitingOn: s.what, waitMs: ms(ns), from: w === undefined ? 'wall samples' as const : 'runtime waits' as const, sampledMs: ms(s.ns),
      waits: w?.count ?? 0, waitSources: w === undefined ? [] : [...w.sources].sort(), share: 0, threads: s.threads.size, stack: stacks[0].frames, stacks,
    };
  });
  for (const site of sites) site.share = combinedNs === 0 ? 0 : (site.waitMs * 1e6) / combinedNs;
  sites.sort((a, b) => b.waitMs - a.waitMs || a.site.localeCompare(b.site));
  const summary: PoolWaitSummary = {
    available: waitEvents,
    count: attributed.count,
    waitMs: ms(attributed.ns),
    unattributed: attributed.unattributed,
    unattributedMs: ms(attributed.unattributedNs),
    bySource: [...attributed.bySource.entries()].map(([source, v]) => ({ source, count: v.count, waitMs: ms(v.ns) })).sort((a, b) => b.waitMs - a.waitMs),
    note: '',
  };
  return { sites, poolWallMs: ms(poolWallNs), blockedMs: ms(combinedNs), sampledBlockedMs: ms(blockedNs), runtimeWaits: summary, poolThreads: poolThreads.size };
}

interface Attributed {
  bySite: Map<string, { ns: number; count: number; sources: Set<string> }>;
  bySource: Map<string, { ns: number; count: number }>;
  count: number;
  ns: number;
  unattributed: number;
  unattributedNs: number;
}

/**
 * Each wait of a pool thread to the site most of its thread's samples inside it name. A wait whose
 * samples are all of an unblocked pool thread (a worker idle in the pool's own wait, which some
 * runtimes report) blocked no work and is left out; one no sample fell in has no site.
 */
function attributeWaits(rec: SampleSource, waits: readonly RuntimeWait[], poolThreads: ReadonlySet<number>, timeline: Map<number, { mono: number; key: string }[]>): Attributed {
  const out: Attributed = { bySite: new Map(), bySource: new Map(), count: 0, ns: 0, unattributed: 0, unattributedNs: 0 };
  if (waits.length === 0) return out;
  // OS thread ids are reused: a wait belongs to the thread of that id alive when it began.
  const byTid = new Map<number, { id: number; first: number; last: number }[]>();
  for (const t of rec.threads()) {
    if (!poolThreads.has(t.id)) continue;
    let list = byTid.get(t.osTid);
    if (list === undefined) byTid.set(t.osTid, (list = []));
    list.push({ id: t.id, first: t.firstSeenMono, last: t.lastSeenMono });
  }
  for (const samples of timeline.values()) samples.sort((a, b) => a.mono - b.mono);
  for (const w of waits) {
    const candidates = byTid.get(w.tid);
    if (candidates === undefined) continue;
    const thread = candidates.find((c) => c.first <= w.startMono && w.startMono <= c.last) ?? candidates[candidates.length - 1];
    const samples = timeline.get(thread.id) ?? [];
    const votes = new Map<string, number>();
    let inside = 0;
    for (let i = firstAtOrAfter(samples, w.startMono); i < samples.length && samples[i].mono <= w.endMono; i++) {
      inside++;
      if (samples[i].key !== '') votes.set(samples[i].key, (votes.get(samples[i].key) ?? 0) + 1);
    }
    if (inside > 0 && votes.size === 0) continue;
    const ns = w.endMono - w.startMono;
    out.count++;
    out.ns += ns;
    const src = out.bySource.get(w.source) ?? { ns: 0, count: 0 };
    src.ns += ns;
    src.count++;
    out.bySource.set(w.source, src);
    if (inside === 0) {
      out.unattributed++;
      out.unattributedNs += ns;
      continue;
    }
    let key = '';
    let most = 0;
    for (const [k, n] of votes) if (n > most) [key, most] = [k, n];
    let site = out.bySite.get(key);
    if (site === undefined) out.bySite.set(key, (site = { ns: 0, count: 0, sources: new Set() }));
    site.ns += ns;
    site.count++;
    site.sources.add(w.source);
  }
  return out;
}

function firstAtOrAfter(samples: readonly { mono: number }[], mono: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid].mono < mono) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** "Ns.Type.Method" as "Type.Method", the way a diagnosis names it. */
export function shortMethod(name: string): string {
  const plain = name.replace(/\(.*$/, '').replace(/<[^<>]*>/g, '');
  const parts = plain.split('.').filter((p) => p !== '');
  return parts.length <= 2 ? plain : parts.slice(-2).join('.');
}
