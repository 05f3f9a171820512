// Runtime suspensions from the runtime's GC events: GCSuspendEEBegin opens one (with ETW's
// reason), GCSuspendEEEnd marks every thread stopped, a GCStart inside gives the generation (the
// highest, if several) and whether it was induced, GCRestartEEEnd closes it. Events are sorted by
// time first: a file's blocks need not be in time order across threads.
//
// A background GC starts inside one suspension, runs beside the program, and stops it again to
// finish (and a foreground GC may run meanwhile): a GC suspension with no GCStart of its own while
// a background GC is between its GCStart and its GCEnd belongs to that background GC.

import { SuspensionFlags, type SuspensionRecord } from '../../wire/records.js';
import { INDUCED_GC_REASONS, RuntimeEvent } from './constants.js';
import { corPrfSuspendReason } from './gc-events.js';
import { GC_TYPE_BACKGROUND } from './runtime-event-readers.js';

/** COR_PRF_SUSPEND_FOR_GC. */
const SUSPEND_FOR_GC = 1;

interface GcEventRecord {
  ns: number;
  id: number;
  a: number;
  b: number;
  c: number;
  seq: number;
}

export class SuspensionBuilder {
  private readonly events: GcEventRecord[] = [];

  /** `a`/`b`/`c`: the ETW reason for SuspendEEBegin; depth, GC reason and GC type for GCStart; depth for GCEnd. */
  add(ns: number, id: number, a = 0, b = 0, c = 0): void {
    this.events.push({ ns, id, a, b, c, seq: this.events.length });
  }

  get eventCount(): number {
    return this.events.length;
  }

  /** Completed suspensions in order of their end (as clrscope's profiler reports them). */
  build(): SuspensionRecord[] {
    const sorted = [...this.events].sort((x, y) => x.ns - y.ns || x.seq - y.seq);
    const out: SuspensionRecord[] = [];
    let open: { start: number; stopped: number; reason: number; generation: number; induced: boolean } | undefined;
    let background: { generation: number; induced: boolean } | undefined;
    for (const e of sorted) {
      switch (e.id) {
        case RuntimeEvent.GCSuspendEEBegin:
          // A begin without a restart before it lost its end; start over.
          open = { start: e.ns, stopped: -1, reason: corPrfSuspendReason(e.a), generation: -1, induced: false };
          break;
        case RuntimeEvent.GCSuspendEEEnd:
          if (open !== undefined && open.stopped < 0) open.stopped = e.ns;
          break;
        case RuntimeEvent.GCStart:
          if (e.c === GC_TYPE_BACKGROUND) background = { generation: e.a, induced: INDUCED_GC_REASONS.includes(e.b) };
          if (open !== undefined) {
            open.generation = Math.max(open.generation, e.a);
            open.induced ||= INDUCED_GC_REASONS.includes(e.b);
          }
          break;
        case RuntimeEvent.GCEnd:
          // Only a background GC ends at its own depth while it runs: the GCs beside it are ephemeral.
          if (background !== undefined && e.a === background.generation) background = undefined;
          break;
        case RuntimeEvent.GCRestartEEEnd:
          if (open !== undefined) {
            if (open.generation < 0 && open.reason === SUSPEND_FOR_GC && background !== undefined) {
              open.generation = background.generation;
              open.induced = background.induced;
            }
            const durationNs = Math.max(0, e.ns - open.start);
            out.push({
              mono: open.start,
              durationNs,
              suspendNs: open.stopped < 0 ? durationNs : Math.min(durationNs, open.stopped - open.start),
              reason: open.reason,
              generation: open.generation,
              flags: open.induced ? SuspensionFlags.Induced : 0,
            });
            open = undefined;
          }
          break;
      }
    }
    return out;
  }
}
