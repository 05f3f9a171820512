// How much of the time the profiler listened for HTTP requests (REQUEST_WINDOW records,
// structs/wire/timeline/request-windows.ts). Past a rate budget it listens only part of each second,
// since ASP.NET Core pays for every request heard; the requests begun while it did not listen are
// not in the recording, so the request table's counts are a sample, and the report and the
// Requests tab say so in the sentence made here. A recording without windows (older profilers, or
// made without --requests) recorded every request: it has no tracking to tell.

import type { Recording } from '../profile/recording.js';
import type { RequestWindowRecord } from '../wire/records.js';
import { REQUEST_WINDOWS } from '../wire/timeline/request-windows.js';
import { count, counted } from '../text/count.js';

export interface RequestTracking {
  /** REQUEST_WINDOW records, every process's. */
  windows: number;
  /** Time listened, summed over the windows (target ns). */
  trackedNs: number;
  /** Per process, from its first window's start to its last window's end; summed over processes. */
  spanNs: number;
  /** trackedNs / spanNs (1 for an empty span). */
  fraction: number;
  /** Requests begun while listening, the cut ones included. */
  begun: number;
  /** Of those, the ones still running when their window closed: never sent, not in the table. */
  cut: number;
  /** The rate budget (requests a second), summed over processes; 0 when any process had none. */
  maxPerS: number;
  /** Whether the counts are a sample: some process listened in several windows, or for under 99% of its span. */
  sampled: boolean;
}

/** Below this share of the time a single window's recording counts as sampled. */
const WHOLE = 0.99;

/**
 * The tracking of `rec`'s requests, null when it has no REQUEST_WINDOW. A merged recording's
 * processes listened each on its own schedule, so each is measured over its own windows (a
 * window's pid, 0 being the recording's own process) and the figures are summed.
 */
export function requestTracking(rec: Recording): RequestTracking | null {
  const all = rec.timeline(REQUEST_WINDOWS);
  if (all.length === 0) return null;
  const own = rec.meta?.pid ?? 0;
  const byPid = new Map<number, RequestWindowRecord[]>();
  for (const w of all) {
    const pid = w.pid === 0 ? own : w.pid;
    let list = byPid.get(pid);
    if (list === undefined) byPid.set(pid, (list = []));
    list.push(w);
  }
  let trackedNs = 0;
  let spanNs = 0;
  let begun = 0;
  let cut = 0;
  let maxPerS = 0;
  let unbudgeted = false;
  let several = false;
  for (const list of byPid.values()) {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    let budget = 0;
    for (const w of list) {
      trackedNs += Math.max(0, w.endMono - w.startMono);
      first = Math.min(first, w.startMono);
      last = Math.max(last, w.endMono);
      begun += w.begun;
      cut += w.cut;
      budget = Math.max(budget, w.maxPerS);
    }
    spanNs += Math.max(0, last - first);
    if (budget === 0) unbudgeted = true;
    maxPerS += budget;
    if (list.length > 1) several = true;
  }
  const fraction = spanNs > 0 ? Math.min(1, trackedNs / spanNs) : 1;
  return { windows: all.length, trackedNs, spanNs, fraction, begun, cut, maxPerS: unbudgeted ? 0 : maxPerS, sampled: several || fraction < WHOLE };
}

/** "1.7%", "0.25%", "42%": enough digits that a small share does not read as none. */
function percent(fraction: number): string {
  const p = fraction * 100;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toFixed(2)}%`;
}

/**
 * The sentence the report prints after the request table and the Requests tab shows above it,
 * null when every request was recorded (not sampled, or no windows at all).
 */
export function requestTrackingSentence(t: RequestTracking | null): string | null {
  if (t === null || !t.sampled) return null;
  const budget = t.maxPerS > 0 ? `budget ${count(t.maxPerS)} requests/s; ` : '';
  const cut = t.cut === 0 ? '' : `, ${count(t.cut)} of which ${t.cut === 1 ? 'was' : 'were'} still running when it stopped and ${t.cut === 1 ? 'is' : 'are'} not counted`;
  return `Sampled: the profiler listened for requests ${percent(t.fraction)} of the time (${budget}record --requests-rate all records every request); `
    + `the counts are of the ${counted(t.begun, 'request')} begun while it listened${cut}.`;
}

/** `report --requests --format json`'s "tracking", its times in ms like the table's. */
export function requestTrackingJson(t: RequestTracking): { fraction: number; trackedMs: number; spanMs: number; windows: number; begun: number; cut: number; maxPerS: number; sampled: boolean } {
  const ms = (ns: number): number => Math.round(ns / 1e3) / 1e3;
  return { fraction: Math.round(t.fraction * 1e6) / 1e6, trackedMs: ms(t.trackedNs), spanMs: ms(t.spanNs), windows: t.windows, begun: t.begun, cut: t.cut, maxPerS: t.maxPerS, sampled: t.sampled };
}
