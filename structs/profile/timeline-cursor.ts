// Walks a recording's timeline records in the order a stream carries them, for a writer that
// interleaves them with samples by time (the .clrscope save path): a record goes out once its end
// is reached, because the profiler sends it when the span ends.

import type { TimelineKind, TimelineRecord } from '../wire/timeline/timeline-kind.js';
import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import type { Recording } from './recording.js';

export class TimelineCursor {
  private readonly kinds: readonly TimelineKind[];
  private readonly records: (readonly TimelineRecord[])[];
  private readonly next: number[];

  constructor(rec: Recording, kinds: readonly TimelineKind[] = TIMELINE_KINDS) {
    this.kinds = kinds;
    this.records = kinds.map((kind) => rec.timeline(kind));
    this.next = kinds.map(() => 0);
  }

  /**
   * Hands `write` every record not yet written whose end is at or before `mono` (Infinity: all
   * that are left), in order of their end; records of different kinds ending together go in the
   * registry's order.
   */
  flushUntil(mono: number, write: (kind: TimelineKind, record: TimelineRecord) => void): void {
    for (;;) {
      let best = -1;
      let bestEnd = Infinity;
      for (let k = 0; k < this.kinds.length; k++) {
        const r = this.records[k][this.next[k]];
        if (r === undefined) continue;
        const end = this.kinds[k].end(r);
        if (end <= mono && (best < 0 || end < bestEnd)) {
          best = k;
          bestEnd = end;
        }
      }
      if (best < 0) return;
      write(this.kinds[best], this.records[best][this.next[best]++]);
    }
  }
}
