// speedscope has no field for a profile's thread or metric, so clrscope's exports say both in
// the profile name, in a form the importer reads back: `NAME (tid N) · cpu`.

import type { SampleMetric } from '../../profile/recording.js';

export type TimeMetric = Exclude<SampleMetric, 'samples'>;

export interface ProfileIdentity {
  thread: string;
  osTid: number;
  metric: TimeMetric;
}

/** clrscope's event profiles are named `events · <metric>` (alloc-space, delay, exceptions, ...). */
export const EVENT_PROFILE_PREFIX = 'events · ';

/** clrscope's async call stacks are profiles of their own, `async stacks · cpu|wall` (all threads, summed per logical stack). */
export const ASYNC_PROFILE_PREFIX = 'async stacks · ';

/** clrscope's HTTP endpoints are profiles of their own, `endpoint · GET /cpu/{ms} · cpu|wall` (all threads, summed per stack, only the samples the endpoint's requests hold). */
export const ENDPOINT_PROFILE_PREFIX = 'endpoint · ';

export function endpointProfileName(endpoint: string, metric: TimeMetric): string {
  return `${ENDPOINT_PROFILE_PREFIX}${endpoint} · ${metric}`;
}

const PATTERN = /^(.*) \(tid (\d+)\) · (cpu|wall)$/s;

export function profileName(thread: string, osTid: number, metric: TimeMetric): string {
  return `${thread} (tid ${osTid}) · ${metric}`;
}

/** The thread and metric of a profile clrscope named; undefined for other names. */
export function parseProfileName(name: string): ProfileIdentity | undefined {
  const m = PATTERN.exec(name);
  if (m === null) return undefined;
  return { thread: m[1], osTid: Number(m[2]), metric: m[3] as TimeMetric };
}
