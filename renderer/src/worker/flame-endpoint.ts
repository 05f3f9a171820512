// The flame graph of one HTTP endpoint (a row picked in the Requests tab), or of some of its
// requests (one request, a latency range: structs/analysis/request-picks.ts): only the samples
// those requests hold, by the rule of structs/analysis/requests.ts, the same samples whose pprof
// label is that endpoint. Within the flame graph's window and threads.

import type { Recording } from '../../../structs/profile/recording.js';
import { requestsOf, sampleRequests } from '../../../structs/analysis/requests.js';
import type { MergeKeys } from '../../../structs/analysis/tree-merge.js';
import type { MonoBounds } from './sample-filter.js';
import type { FlameQuery } from './protocol.js';
import type { Sums } from './stack-sums.js';

export function sumEndpointSamples(rec: Recording, query: FlameQuery, { from, to }: MonoBounds, keys: MergeKeys): Sums {
  const requests = requestsOf(rec);
  const mine = new Uint8Array(requests.length);
  if (query.requestIds !== undefined) {
    for (const i of query.requestIds) if (i >= 0 && i < mine.length) mine[i] = 1;
  }
  // Both given: the picked requests of that endpoint.
  if (query.endpoint !== undefined) requests.forEach((r, i) => { if (r.endpoint !== query.endpoint) mine[i] = 0; else if (query.requestIds === undefined) mine[i] = 1; });
  const tags = sampleRequests(rec, requests);
  const cols = rec.sampleColumns();
  const values = query.metric === 'cpu' ? cols.cpuNs : cols.wallNs;
  const allowed = query.threadIds === null ? null : new Set(query.threadIds);
  const sums = new Float64Array(rec.stackCount);
  let count = 0;
  let newest = -Infinity;
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i];
    if (t < 0 || mine[t] === 0 || values[i] === 0) continue;
    const m = cols.mono[i];
    if (m < from || m >= to || (allowed !== null && !allowed.has(cols.threadId[i]))) continue;
    sums[cols.stackId[i]] += values[i];
    count++;
    if (m > newest) newest = m;
  }
  for (let s = 0; s < sums.length; s++) if (sums[s] !== 0) keys.add(s, -1, sums[s]);
  return { count, newestMono: newest };
}
