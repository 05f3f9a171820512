// The timeline records of several processes' recordings in one merged recording
// (merge-processes.ts): every kind's records of every part, their thread and string ids in the
// merged recording's numbering (and their requests' seqs, so two processes' seqs stay apart; and
// the part's pid in a record that has no thread to say whose it is), in
// order of their end, which is where a writer sends each one and so where one stream of all the
// processes would have had it. The live merge renumbers each
// record the same way as it arrives (structs/formats/clrscope-file/process-reencoder.ts).

import type { TimelineKind, TimelineRecord } from '../wire/timeline/timeline-kind.js';
import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import type { Recording } from './recording.js';
import type { RecordingSink } from './recording-sink.js';

export interface TimelinePart {
  readonly recording: Recording;
  /** The merged recording's id of a thread or string of this part's, and seq of a request of this part's. */
  thread(id: number): number;
  string(id: number): number;
  request(seq: number): number;
  /** The part's process, which a record with no thread to say whose it is gets (its process field). */
  readonly pid: number;
}

/** A record of `kind` with its thread, string and request ids in the merged numbering, and its process named (the live merge writes each this way too). */
export function renumberedTimelineRecord(kind: TimelineKind, r: TimelineRecord, ids: Pick<TimelinePart, 'thread' | 'string' | 'request' | 'pid'>): TimelineRecord {
  const refs = kind.fields.filter((f) => f.ref !== undefined);
  if (refs.length === 0) return r;
  const renumbered: Record<string, number> = { ...r };
  for (const f of refs) {
    const id = r[f.key];
    if (f.ref === 'process') renumbered[f.key] = id !== 0 ? id : ids.pid;
    else if (id !== 0) renumbered[f.key] = f.ref === 'thread' ? ids.thread(id) : f.ref === 'string' ? ids.string(id) : ids.request(id);
  }
  return renumbered;
}

/** One kind's records of every part, renumbered, in order of their end (ties keep the parts' order). */
export function mergedTimeline(kind: TimelineKind, parts: readonly TimelinePart[]): TimelineRecord[] {
  const out: TimelineRecord[] = [];
  for (const part of parts) for (const r of part.recording.timeline(kind)) out.push(renumberedTimelineRecord(kind, r, part));
  return out.sort((a, b) => kind.end(a) - kind.end(b));
}

/** Adds every timeline kind's merged records to the merged recording's sink. */
export function mergeTimelines(parts: readonly TimelinePart[], out: RecordingSink): void {
  for (const kind of TIMELINE_KINDS) for (const r of mergedTimeline(kind, parts)) out.onTimeline(kind, r);
}
