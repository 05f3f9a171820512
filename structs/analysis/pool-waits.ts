// A thread's blocking waits as the runtime itself reports them: WaitHandleWaitStart/Stop (.NET 9
// and later, RUNTIME_EVENT records; structs/wire/timeline/runtime-events.ts), paired on each OS
// thread. They measure a wait from the moment it blocked to the moment it woke, where wall samples
// only estimate it (a sample's weight is the time since the thread's previous sample), so
// `report --blocking` takes a site's blocked time from them when the recording has them
// (pool-blocking.ts says which site each wait belongs to, from the samples taken inside it).

import type { RuntimeEventRecord } from '../wire/records.js';
import { RuntimeEventId, WAIT_SOURCES } from '../wire/timeline/runtime-events.js';

export interface RuntimeWait {
  /** The waiting OS thread. */
  tid: number;
  /** Target mono ns: when it blocked, and when it woke (the recording's end for one still waiting then). */
  startMono: number;
  endMono: number;
  /** WaitHandleWaitStart's WaitSource: "MonitorWait" (Monitor.Wait, and Task.Wait and .Result through it) or "Unknown" (a WaitHandle's wait). */
  source: string;
}

/** Whether a recording's runtime events hold any wait (a .NET 8 runtime raises none). */
export function hasWaitEvents(events: readonly RuntimeEventRecord[]): boolean {
  return events.some((e) => e.event === RuntimeEventId.WaitHandleWaitStart);
}

/**
 * The waits of a recording's runtime events, in order of their start. A start whose stop never
 * came lasts until `endMono` (still waiting when the recording ended); a stop without a start (a
 * wait that began before the profiler was attached) is left out, its start unknown.
 */
export function runtimeWaits(events: readonly RuntimeEventRecord[], endMono: number): RuntimeWait[] {
  const open = new Map<number, RuntimeEventRecord>();
  const out: RuntimeWait[] = [];
  const sourceOf = (e: RuntimeEventRecord): string => WAIT_SOURCES[e.a] ?? `source ${e.a}`;
  for (const e of [...events].sort((x, y) => x.mono - y.mono)) {
    if (e.event === RuntimeEventId.WaitHandleWaitStart) {
      // A thread waits once at a time; a second start means the stop of the first was lost.
      const before = open.get(e.tid);
      if (before !== undefined) out.push({ tid: e.tid, startMono: before.mono, endMono: e.mono, source: sourceOf(before) });
      open.set(e.tid, e);
    } else if (e.event === RuntimeEventId.WaitHandleWaitStop) {
      const start = open.get(e.tid);
      if (start === undefined) continue;
      open.delete(e.tid);
      out.push({ tid: e.tid, startMono: start.mono, endMono: e.mono, source: sourceOf(start) });
    }
  }
  for (const start of open.values()) {
    if (endMono > start.mono) out.push({ tid: start.tid, startMono: start.mono, endMono, source: sourceOf(start) });
  }
  return out.sort((x, y) => x.startMono - y.startMono);
}
