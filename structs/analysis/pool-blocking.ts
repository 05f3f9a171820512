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

import { isOwnCode } from './code-origin.js';
import type { SampleSource } from './stack-source.js';

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
  {
    re: /\.Sockets\.Socket\.(Receive|Send|Accept|Connect)\w*$|\.IO\.(FileStream|RandomAccess|Stream|StreamReader|StreamWriter|Net\.Sockets\.NetworkStream)\.(Read|Write|ReadToEnd|ReadLine|Flush)\w*$|\.NetworkStream\.(Read|Write)$/,
    what: 'synchronous I/O',
  },
];

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
  /** Pool-thread wall time its samples hold. */
  waitMs: number;
  /** Its share of all blocked pool-thread time, 0..1. */
  share: number;
  /** Pool threads it was seen blocking. */
  threads: number;
  /** Its heaviest stack, root first, down to the wait. */
  stack: string[];
  /** Its stacks by weight (the tab's list), each root first down to the wait. */
  stacks: { frames: string[]; waitMs: number }[];
}

export interface PoolBlocking {
  sites: BlockingSite[];
  /** Wall time of pool threads, all of it and the part blocked (ms). */
  poolWallMs: number;
  blockedMs: number;
  /** Pool threads that have wall samples. */
  poolThreads: number;
}

/** The ranked sites of a recording (or any sample source with wall samples). */
export function poolBlocking(rec: SampleSource): PoolBlocking {
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
          if (caller !== undefined && isOwnCode(caller)) site = caller.name;
        }
        if (site === '') site = i + 1 < ids.length ? nameOf(ids[i + 1]) : fn.name;
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
  const sites: BlockingSite[] = [...bySite.values()].map((s) => {
    const stacks = [...s.stacks.values()].sort((a, b) => b.ns - a.ns).map((st) => ({ frames: st.frames, waitMs: ms(st.ns) }));
    return { site: s.site, waitingOn: s.what, waitMs: ms(s.ns), share: blockedNs === 0 ? 0 : s.ns / blockedNs, threads: s.threads.size, stack: stacks[0].frames, stacks };
  });
  sites.sort((a, b) => b.waitMs - a.waitMs || a.site.localeCompare(b.site));
  return { sites, poolWallMs: ms(poolWallNs), blockedMs: ms(blockedNs), poolThreads: poolThreads.size };
}

/** "Ns.Type.Method" as "Type.Method", the way a diagnosis names it. */
export function shortMethod(name: string): string {
  const plain = name.replace(/\(.*$/, '').replace(/<[^<>]*>/g, '');
  const parts = plain.split('.').filter((p) => p !== '');
  return parts.length <= 2 ? plain : parts.slice(-2).join('.');
}
