// The timeline records of several processes' recordings in one merged recording
// (merge-processes.ts): every kind's records of every part, their thread and string ids in the
// merged recording's numbering, in order of their end, which is where a writer sends each one and
// so where one stream of all the processes would have had it.

import type { TimelineKind, TimelineRecord } from '../wire/timeline/timeline-kind.js';
import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import type { Recording } from './recording.js';
import type { RecordingSink } from './recording-sink.js';

export interface TimelinePart {
  readonly recording: Recording;
  /** The merged recording's id of a thread or string of this part's. */
  thread(id: number): number;
  string(id: number): number;
}

/** One kind's records of every part, renumbered, in order of their end (ties keep the parts' order). */
export function mergedTimeline(kind: TimelineKind, parts: readonly TimelinePart[]): TimelineRecord[] {
  const out: TimelineRecord[] = [];
  const refs = kind.fields.filter((f) => f.ref !== undefined);
  for (const part of parts) {
    for (const r of part.recording.timeline(kind)) {
      if (refs.length === 0) {
        out.push(r);
        continue;
      }
      const renumbered: Record<string, number> = { ...r };
      for (const f of refs) if (r[f.key] !== 0) renumbered[f.key] = f.ref === 'thread' ? part.thread(r[f.key]) : part.string(r[f.key]);
      out.push(renumbered);
    }
  }
  return out.sort((a, b) => kind.end(a) - kind.end(b));
}

/** Adds every timeline kind's merged records to the merged recording's sink. */
export function mergeTimelines(parts: readonly TimelinePart[], out: RecordingSink): void {
  for (const kind of TIMELINE_KINDS) for (const r of mergedTimeline(kind, parts)) out.onTimeline(kind, r);
}
