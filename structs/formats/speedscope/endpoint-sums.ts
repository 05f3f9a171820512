// The samples of each HTTP endpoint's requests summed per stack, for speedscope's endpoint
// profiles. Which samples a request holds is structs/analysis/requests.ts's rule alone, the one
// pprof's `endpoint` labels and `report --requests`'s CPU take, so the three agree on every
// endpoint's total; the stacks are whichever the writer passes (the logical ones with async
// stacks, as pprof's labelled samples have them).

import { requestsOf, sampleRequests } from '../../analysis/requests.js';
import type { Recording, SampleColumnViews } from '../../profile/recording.js';

export interface EndpointStackSums {
  /** "GET /cpu/{ms}", as the endpoint table and pprof's label name it. */
  endpoint: string;
  /** Stack id (of the columns passed) -> nanoseconds, in the order the stacks first appear. */
  cpu: Map<number, number>;
  wall: Map<number, number>;
}

/**
 * One entry per endpoint, those with the most requests first (then by name, as the report
 * orders them); none without requests. `columns` are `rec`'s samples, one for one, with the
 * stack ids the profiles will name.
 */
export function endpointStackSums(rec: Recording, columns: Pick<SampleColumnViews, 'stackId' | 'cpuNs' | 'wallNs'>): EndpointStackSums[] {
  const requests = requestsOf(rec);
  if (requests.length === 0) return [];
  const tags = sampleRequests(rec, requests);
  // A source whose samples are not the recording's cannot be told apart by request.
  if (tags.length !== columns.stackId.length) return [];
  const byName = new Map<string, EndpointStackSums & { count: number }>();
  const ofRequest = requests.map((r) => {
    let e = byName.get(r.endpoint);
    if (e === undefined) byName.set(r.endpoint, (e = { endpoint: r.endpoint, cpu: new Map(), wall: new Map(), count: 0 }));
    e.count++;
    return e;
  });
  for (let i = 0; i < tags.length; i++) {
    if (tags[i] < 0) continue;
    const e = ofRequest[tags[i]];
    const s = columns.stackId[i];
    if (columns.cpuNs[i] > 0) e.cpu.set(s, (e.cpu.get(s) ?? 0) + columns.cpuNs[i]);
    if (columns.wallNs[i] > 0) e.wall.set(s, (e.wall.get(s) ?? 0) + columns.wallNs[i]);
  }
  return [...byName.values()]
    .sort((a, b) => b.count - a.count || a.endpoint.localeCompare(b.endpoint))
    .map(({ endpoint, cpu, wall }) => ({ endpoint, cpu, wall }));
}
