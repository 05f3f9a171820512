// HTTP requests (REQUEST records, structs/wire/timeline/requests.ts): each request with its names
// resolved, the table per endpoint that `clrscope report --requests` prints, and which request
// each sample was taken in, for the pprof labels and the per-endpoint CPU.
//
// Which samples a request holds. With async stacks on (record --requests --async, or
// --async-source heap), the profiler follows each request through its awaits and marks every
// sample taken in it, on whatever thread its continuations ran (REQUEST_SAMPLES, by the REQUEST's
// seq): a marked sample is its request's, and a request with marks holds those, and of the
// samples the thread that began it took before its first marked sample, those that ran on no
// async chain and used CPU: a request begun outside any chain, whose marks the profiler sent when
// it ended (REQUEST_BACKFILL), ran its synchronous part there (a part that blocked, using no
// CPU, is not told from the pool's idle waits, and is not its); one begun in a chain has its
// synchronous part marked, and that thread back in the pool runs others' chains or idles. Samples
// without a mark that names a request of the recording (async stacks off, a request whose
// connection's box a GC moved, one begun outside any async chain, older profilers) fall back to
// what ASP.NET Core's own events say, where a request began and ended (thread and time): such a
// sample is the request's when it was taken on the thread that began the request, after it
// began, before it ended, and before that thread began another request: the synchronous part of
// the request (its middleware, a handler that computes or blocks, everything up to its first
// await that suspends). A thread that began a request and then returned to the pool at an await
// is not charged with what it does next only when it next begins a request; work it runs in
// between on other requests' continuations would be charged to the first (README, "Requests").

import type { Recording } from '../profile/recording.js';
import type { RequestRecord } from '../wire/records.js';
import { REQUESTS } from '../wire/timeline/requests.js';

export interface RequestInfo {
  /** "GET /cpu/{ms}": the method and the route pattern. */
  readonly endpoint: string;
  readonly status: number;
  /** Target mono ns; endNs undefined while in flight. */
  readonly startNs: number;
  readonly endNs: number | undefined;
  readonly startTid: number;
  readonly endTid: number;
  readonly traceId: string;
  readonly spanId: string;
  /** Its number in its stream, which samples taken in it are marked with (Recording.requestSeqOf); 0 for none. */
  readonly seq: number;
}

export interface EndpointRow {
  endpoint: string;
  /** Requests that ended (latencies are theirs); those in flight at the end are `inFlight`. */
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU of the samples the endpoint's requests hold (see above), summed. */
  cpuMs: number;
  /** Responses with a status of 500 or more. */
  errors: number;
  inFlight: number;
}

/** The recording's requests in the order they were recorded, names resolved. */
export function requestsOf(rec: Recording): RequestInfo[] {
  const strings = rec.strings();
  const text = (id: number): string => (id === 0 ? '' : strings.get(id) ?? '');
  return rec.timeline(REQUESTS).map((r: RequestRecord) => ({
    endpoint: `${text(r.method)} ${text(r.endpoint)}`.trim(),
    status: r.status,
    startNs: r.mono,
    endNs: r.endMono === 0 ? undefined : r.endMono,
    startTid: r.startTid,
    endTid: r.endTid,
    traceId: text(r.traceId),
    spanId: text(r.spanId),
    seq: r.seq,
  }));
}

/**
 * For each sample of `rec`, the index in `requests` of the request it was taken in, -1 for none
 * (the rule at the top of this file). Linear in samples plus requests log requests.
 */
export function sampleRequests(rec: Recording, requests: readonly RequestInfo[]): Int32Array {
  const { mono, threadId, cpuNs } = rec.sampleColumns();
  const out = new Int32Array(mono.length).fill(-1);
  if (requests.length === 0) return out;
  const bySeq = new Map<number, number>();
  // Requests the profiler followed, and their first marked sample's time: before it, on the thread
  // that began it, is its part that ran on no chain; after it, that thread's idle waits in the
  // pool are not charged to it.
  const followed = new Map<number, number>();
  if (rec.hasRequestMarks) {
    requests.forEach((r, index) => { if (r.seq !== 0 && !bySeq.has(r.seq)) bySeq.set(r.seq, index); });
    for (let i = 0; i < mono.length; i++) {
      const seq = rec.requestSeqOf(i);
      if (seq === 0) continue;
      const first = followed.get(seq);
      if (first === undefined || mono[i] < first) followed.set(seq, mono[i]);
    }
  }
  // Per OS thread, its requests' windows by start: each ends at the request's end or at the
  // thread's next request's start, whichever comes first; a followed request's at its first marked
  // sample, when that comes sooner, and it claims only samples on no chain that used CPU.
  const byTid = new Map<number, { start: number; end: number; index: number; followed: boolean }[]>();
  requests.forEach((r, index) => {
    let list = byTid.get(r.startTid);
    if (list === undefined) byTid.set(r.startTid, (list = []));
    const first = followed.get(r.seq);
    list.push({ start: r.startNs, end: Math.min(r.endNs ?? Number.POSITIVE_INFINITY, first ?? Number.POSITIVE_INFINITY), index, followed: first !== undefined });
  });
  for (const list of byTid.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i + 1 < list.length; i++) list[i].end = Math.min(list[i].end, list[i + 1].start);
  }
  const osTidOf = new Map<number, number>();
  for (const t of rec.threads()) osTidOf.set(t.id, t.osTid);
  for (let i = 0; i < mono.length; i++) {
    if (bySeq.size > 0) {
      const marked = bySeq.get(rec.requestSeqOf(i));
      if (marked !== undefined) {
        out[i] = marked;
        continue;
      }
    }
    const tid = osTidOf.get(threadId[i]);
    if (tid === undefined || tid === 0) continue;
    const list = byTid.get(tid);
    if (list === undefined) continue;
    // The last window that began at or before the sample.
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].start <= mono[i]) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0 || !(mono[i] < list[found].end)) continue;
    if (list[found].followed && (cpuNs[i] === 0 || rec.sampleAsyncChain(i) !== 0)) continue;
    out[i] = list[found].index;
  }
  return out;
}

/** Nearest rank: the smallest value with at least q of the values at or below it. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/** One row per endpoint, busiest first. */
export function requestTable(rec: Recording): EndpointRow[] {
  const requests = requestsOf(rec);
  const tags = sampleRequests(rec, requests);
  const cpuNs = rec.sampleColumns().cpuNs;
  const cpuByRequest = new Float64Array(requests.length);
  for (let i = 0; i < tags.length; i++) if (tags[i] >= 0) cpuByRequest[tags[i]] += cpuNs[i];
  const groups = new Map<string, { ms: number[]; cpuNs: number; errors: number; inFlight: number }>();
  requests.forEach((r, i) => {
    let g = groups.get(r.endpoint);
    if (g === undefined) groups.set(r.endpoint, (g = { ms: [], cpuNs: 0, errors: 0, inFlight: 0 }));
    g.cpuNs += cpuByRequest[i];
    if (r.endNs === undefined) {
      g.inFlight++;
      return;
    }
    g.ms.push((r.endNs - r.startNs) / 1e6);
    if (r.status >= 500) g.errors++;
  });
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  const rows: EndpointRow[] = [];
  for (const [endpoint, g] of groups) {
    g.ms.sort((a, b) => a - b);
    rows.push({
      endpoint,
      count: g.ms.length,
      p50Ms: round(quantile(g.ms, 0.5)),
      p90Ms: round(quantile(g.ms, 0.9)),
      p99Ms: round(quantile(g.ms, 0.99)),
      maxMs: round(g.ms.length === 0 ? 0 : g.ms[g.ms.length - 1]),
      cpuMs: round(g.cpuNs / 1e6),
      errors: g.errors,
      inFlight: g.inFlight,
    });
  }
  rows.sort((a, b) => b.count - a.count || a.endpoint.localeCompare(b.endpoint));
  return rows;
}

/** The table as `report --requests` prints it. */
export function requestTableText(rows: readonly EndpointRow[]): string {
  if (rows.length === 0) return 'No HTTP requests in this recording (record an ASP.NET Core program with --requests).\n';
  const header = ['endpoint', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'CPU ms', 'CPU ms/req', 'errors', 'in flight'];
  const body = rows.map((r) => [
    r.endpoint, String(r.count), r.p50Ms.toFixed(2), r.p90Ms.toFixed(2), r.p99Ms.toFixed(2), r.maxMs.toFixed(2),
    r.cpuMs.toFixed(1), (r.count === 0 ? 0 : r.cpuMs / r.count).toFixed(2), String(r.errors), String(r.inFlight),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c].length)));
  const line = (cells: string[]): string => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd();
  return [line(header), ...body.map(line)].join('\n') + '\n';
}
