import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import type { Recording } from './recording.js';

/**
 * The latest time a recording knows of on the target's clock: its last sample, thread event,
 * STATS or the end of its last timeline record (a suspension, ...; or its start). Where a recording stopped by the
 * reader ends.
 */
export function latestMono(rec: Recording): number {
  let latest = rec.meta?.startMono ?? 0;
  for (const t of rec.threads()) if (t.lastSeenMono > latest) latest = t.lastSeenMono;
  const stats = rec.stats;
  if (stats !== undefined && stats.mono > latest) latest = stats.mono;
  for (const kind of TIMELINE_KINDS) {
    for (const r of rec.timeline(kind)) if (kind.end(r) > latest) latest = kind.end(r);
  }
  return latest;
}
