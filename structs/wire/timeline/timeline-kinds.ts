// The registration point of timeline event kinds (timeline-kind.ts): the decoder finds a record's
// kind here by its type, and the recording, merge, dump and save go through the list. A new kind
// is its descriptor file beside suspensions.ts and one entry below.

import { GC_EVENTS } from './gc-events.js';
import { REQUESTS } from './requests.js';
import { POOL_GAUGES } from './pool-gauges.js';
import { REQUEST_WINDOWS } from './request-windows.js';
import { RUNTIME_EVENTS } from './runtime-events.js';
import { SUSPENSIONS } from './suspensions.js';
import { genericTimelineKind, type TimelineKind } from './timeline-kind.js';

export const TIMELINE_KINDS: readonly TimelineKind[] = Object.freeze([genericTimelineKind(SUSPENSIONS), genericTimelineKind(GC_EVENTS), genericTimelineKind(REQUESTS), genericTimelineKind(RUNTIME_EVENTS), genericTimelineKind(REQUEST_WINDOWS), genericTimelineKind(POOL_GAUGES)]);

// By record type, so the decoder's lookup is an index, not a search.
const BY_TYPE: (TimelineKind | undefined)[] = [];
for (const kind of TIMELINE_KINDS) {
  if (BY_TYPE[kind.recordType] !== undefined) throw new Error(`Two timeline kinds claim record type ${kind.recordType}.`);
  BY_TYPE[kind.recordType] = kind;
}

/** The timeline kind of a record type, undefined for other records. */
export function timelineKindOf(recordType: number): TimelineKind | undefined {
  return BY_TYPE[recordType];
}
