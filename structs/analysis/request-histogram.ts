// Each endpoint's latency histogram (the Requests tab): the requests that ended, counted in
// buckets whose bounds grow by a factor of 2^(1/2) from 0.25 ms, so a 1 ms and a 1 s endpoint both
// spread over a dozen bars; the table's figures beside it come from requests.ts.

import type { Recording } from '../profile/recording.js';
import { requestItems, type RequestItem } from './request-picks.js';
import { requestTracking, type RequestTracking } from './request-tracking.js';
import { requestTable, requestsOf, type EndpointRow } from './requests.js';

export interface LatencyHistogram {
  /** Bucket i counts latencies in [bounds[i], bounds[i + 1]) ms; the last bound closes the last bucket. */
  bounds: number[];
  counts: number[];
}

export interface RequestsTab {
  rows: EndpointRow[];
  histograms: Record<string, LatencyHistogram>;
  /** Per endpoint, its ended requests, slowest first (request-picks.ts). */
  requests: Record<string, RequestItem[]>;
  /** How much of the time the profiler listened (request-tracking.ts); null: it recorded every request. */
  tracking: RequestTracking | null;
}

const FIRST_BOUND_MS = 0.25;
const STEP = Math.SQRT2;

function histogram(ms: readonly number[]): LatencyHistogram {
  if (ms.length === 0) return { bounds: [], counts: [] };
  // Twice log2: a bound itself (1 ms is 0.25 × √2^4) lands in the bucket it opens, exactly.
  const index = (v: number): number => (v <= FIRST_BOUND_MS ? 0 : Math.floor(2 * Math.log2(v / FIRST_BOUND_MS) + 1e-9));
  // Loops, not Math.min(...): a busy server's millions of requests would overflow the call stack.
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const v of ms) {
    const i = index(v);
    if (i < lo) lo = i;
    if (i > hi) hi = i;
  }
  const bounds: number[] = [];
  for (let i = lo; i <= hi + 1; i++) bounds.push(i === 0 ? 0 : FIRST_BOUND_MS * STEP ** i);
  const counts = new Array<number>(hi - lo + 1).fill(0);
  for (const v of ms) counts[index(v) - lo]++;
  return { bounds, counts };
}

export function requestsTab(rec: Recording): RequestsTab {
  const byEndpoint = new Map<string, number[]>();
  const requests = requestsOf(rec);
  for (const r of requests) {
    if (r.endNs === undefined) continue;
    let list = byEndpoint.get(r.endpoint);
    if (list === undefined) byEndpoint.set(r.endpoint, (list = []));
    list.push((r.endNs - r.startNs) / 1e6);
  }
  const histograms: Record<string, LatencyHistogram> = {};
  for (const [endpoint, ms] of byEndpoint) histograms[endpoint] = histogram(ms);
  return { rows: requestTable(rec), histograms, requests: requestItems(rec, requests), tracking: requestTracking(rec) };
}
