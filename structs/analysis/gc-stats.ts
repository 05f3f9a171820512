// One row per garbage collection, from the runtime's own GC events (GC_EVENT records, whether a
// clrscope profiler sent them or a .nettrace import decoded them): PerfView's GCStats table.
//
// Rows and pauses are put together as TraceEvent's TraceLoadedDotNetRuntime does
// (src/TraceEvent/Computers/TraceManagedProcess.cs in microsoft/perfview), so the two agree row by
// row: a GCStart makes a row when it comes inside a suspension and its Count is new. The
// blocking GC the runtime runs just before a background GC starts (two GCStarts in one
// suspension: the BGC, then a gen 0/1 of type 0) gets a row of its own whose pause runs from its
// GCStart to the restart; the BGC keeps the suspension up to its GCStart. A BGC's later
// suspensions for GC preparation (ETW reason 6) are added to its pause, the last one also being
// its final pause. A blocking GC ends at the restart after its GCHeapStats, a BGC at its own
// GCHeapStats. The heap before is the GCPerHeapHistory SizeBefore summed over heaps, when the
// events came; there is no estimate without them.

import type { Recording } from '../profile/recording.js';
import type { GcEventRecord } from '../wire/records.js';
import { GC_EVENTS, GcEventId } from '../wire/timeline/gc-events.js';

/** GCStart's Type. */
export const GcType = { Blocking: 0, Background: 1, Foreground: 2 } as const;
const TYPE_NAMES = ['blocking', 'background', 'foreground'];

/** GCStart's Reason as TraceEvent's GCReason names it. */
const REASON_NAMES = [
  'AllocSmall', 'Induced', 'LowMemory', 'Empty', 'AllocLarge', 'OutOfSpaceSOH', 'OutOfSpaceLOH', 'InducedNotForced',
  'Internal', 'InducedLowMemory', 'InducedCompacting', 'LowMemoryHost', 'PMFullGC', 'LowMemoryHostBlocking',
];
const REASON_PM_FULL_GC = 12;

/** GCSuspendEEBegin's Reason (ETW's, not the profiling API's). */
const ETW_SUSPEND_FOR_GC = 1;
const ETW_SUSPEND_FOR_GC_PREP = 6;
/** GCGlobalHeapHistory GlobalMechanisms bit: the GC compacted. */
const GLOBAL_MECHANISM_COMPACTION = 0x2;

export interface GcRow {
  /** The runtime's GC number (GCStart Count): GC.CollectionCount(0) after it. */
  number: number;
  generation: number;
  type: string;
  reason: string;
  /** The time the program was stopped for it, ms. */
  pauseMs: number;
  /** All generations before it, summed over heaps (GCPerHeapHistory); null without those events. */
  heapBeforeBytes: number | null;
  /** All generations after it (GCHeapStats); null when its GCHeapStats did not come. */
  heapAfterBytes: number | null;
  promotedBytes: number | null;
  /** When it started (GCStart), target mono ns. */
  startNs: number;
  /** From the suspension's start until every thread stopped, ms. */
  suspendMs: number;
  /** From GCStart to GCEnd, ms; null without a GCEnd. */
  durationMs: number | null;
  /** A background GC's last suspension (its final marking), ms; null for others. */
  finalPauseMs: number | null;
  /** Free list and free objects left in every generation (GCPerHeapHistory); null without them. */
  fragmentationBytes: number | null;
  /** Whether it compacted (GCGlobalHeapHistory); null without it. */
  compacting: boolean | null;
  /** GC handles after it (GCHeapStats' count, read as the signed value the runtime keeps). */
  gcHandles: number | null;
  pinnedObjects: number | null;
  /** Whether the table saw its end (a BGC's GCHeapStats, a blocking GC's restart). */
  complete: boolean;
  /** The process it ran in, in a recording of several (`record --children`); absent otherwise. */
  pid?: number;
}

export interface GcStats {
  rows: GcRow[];
  /** Counts the runtime skipped between rows: the last number minus the first plus one, minus the rows. */
  missing: number;
}

interface Row extends GcRow {
  pauseStartNs: number;
  hasHeapStats: boolean;
}

const NS_PER_MS = 1e6;

function reasonName(reason: number): string {
  return REASON_NAMES[reason] ?? `Reason${reason}`;
}

function typeName(type: number): string {
  return TYPE_NAMES[type] ?? `type-${type}`;
}

class GcStatsBuilder {
  readonly rows: Row[] = [];
  private currentBgc: Row | undefined;
  // The threads that began the open suspensions, by kind (-1: none open). Suspensions are not
  // serialized in the event stream: a GC's GCSuspendEEBegin may come while another thread's
  // suspension (the sample profiler's) is still being undone, so a suspension's end counts only
  // on the thread that began it, as TraceEvent has it.
  private tidGc = -1;
  private tidPrep = -1;
  private tidOther = -1;
  private suspendStartNs = -1;
  /** Kept from one suspension to the next, as TraceEvent keeps it. */
  private suspendEndNs = -1;
  private lastSuspendReason = -1;

  apply(e: GcEventRecord): void {
    switch (e.event) {
      case GcEventId.GCSuspendEEBegin: return this.suspendBegin(e);
      case GcEventId.GCSuspendEEEnd: return this.suspendEnd(e);
      case GcEventId.GCStart: return this.gcStart(e);
      case GcEventId.GCEnd: {
        const gc = this.current();
        if (gc !== undefined) gc.durationMs = (e.mono - gc.startNs) / NS_PER_MS;
        return;
      }
      case GcEventId.GCHeapStats: return this.heapStats(e);
      case GcEventId.GCRestartEEEnd: return this.restartEnd(e);
      case GcEventId.GCPerHeapHistory: {
        const gc = this.current();
        if (gc === undefined) return;
        gc.heapBeforeBytes = (gc.heapBeforeBytes ?? 0) + e.a;
        gc.fragmentationBytes = (gc.fragmentationBytes ?? 0) + e.b;
        return;
      }
      case GcEventId.GCGlobalHeapHistory: {
        const gc = this.current();
        if (gc !== undefined) gc.compacting = (e.b & GLOBAL_MECHANISM_COMPACTION) !== 0;
        return;
      }
    }
  }

  /** The GC the next event belongs to: the last row while it is open, else the background GC still running. */
  private current(): Row | undefined {
    const last = this.rows[this.rows.length - 1];
    if (last === undefined) return undefined;
    return !last.complete ? last : this.currentBgc;
  }

  private suspendBegin(e: GcEventRecord): void {
    if (e.a === ETW_SUSPEND_FOR_GC) this.tidGc = e.tid;
    else if (e.a === ETW_SUSPEND_FOR_GC_PREP) this.tidPrep = e.tid;
    else {
      this.tidOther = e.tid;
      return;
    }
    this.lastSuspendReason = e.a;
    this.suspendStartNs = e.mono;
  }

  private tracked(tid: number): boolean {
    return tid === this.tidGc || tid === this.tidPrep;
  }

  private suspendEnd(e: GcEventRecord): void {
    if (!this.tracked(e.tid)) return;
    if (this.tidPrep >= 0 && this.currentBgc !== undefined) this.currentBgc.suspendMs += (e.mono - this.suspendStartNs) / NS_PER_MS;
    this.suspendEndNs = e.mono;
  }

  private gcStart(e: GcEventRecord): void {
    const last = this.rows[this.rows.length - 1];
    if (!(this.tidGc >= 0 || this.tidOther >= 0) || (last !== undefined && last.number === e.a)) return;
    const type = e.d;
    const row: Row = {
      number: e.a, generation: e.b, type: typeName(type), reason: reasonName(e.c), pauseMs: 0,
      heapBeforeBytes: null, heapAfterBytes: null, promotedBytes: null, startNs: e.mono, suspendMs: 0, durationMs: null,
      finalPauseMs: null, fragmentationBytes: null, compacting: null, gcHandles: null, pinnedObjects: null, complete: false,
      pauseStartNs: e.mono, hasHeapStats: false,
    };
    const ephemeralBeforeBgc = last !== undefined && last.type === TYPE_NAMES[GcType.Background] && !last.complete && type === GcType.Blocking;
    if (ephemeralBeforeBgc || e.c === REASON_PM_FULL_GC) {
      if (e.c === REASON_PM_FULL_GC) {
        const open = this.current();
        if (open !== undefined) open.complete = true;
      }
    } else {
      row.pauseStartNs = this.suspendStartNs >= 0 ? this.suspendStartNs : e.mono;
      if (this.suspendEndNs < 0) this.suspendEndNs = e.mono;
      row.suspendMs = (this.suspendEndNs - row.pauseStartNs) / NS_PER_MS;
    }
    this.rows.push(row);
    if (type === GcType.Background) {
      this.currentBgc = row;
      row.pauseMs = row.suspendMs;
    }
  }

  private heapStats(e: GcEventRecord): void {
    const gc = this.current();
    if (gc === undefined) return;
    gc.heapAfterBytes = e.a;
    gc.promotedBytes = e.b;
    gc.gcHandles = e.c | 0;
    gc.pinnedObjects = e.d;
    gc.hasHeapStats = true;
    if (gc.type === TYPE_NAMES[GcType.Background] && this.currentBgc !== undefined) {
      this.currentBgc.complete = true;
      this.currentBgc = undefined;
    }
  }

  private restartEnd(e: GcEventRecord): void {
    if (e.tid === this.tidOther) this.tidOther = -1;
    if (!this.tracked(e.tid)) return;
    const gc = this.current();
    if (gc !== undefined) {
      if (gc.type === TYPE_NAMES[GcType.Background]) {
        if (this.tidPrep >= 0) {
          const pause = (e.mono - this.suspendStartNs) / NS_PER_MS;
          gc.pauseMs += pause;
          if (this.lastSuspendReason === ETW_SUSPEND_FOR_GC_PREP) gc.finalPauseMs = pause;
        } else {
          gc.pauseMs = (e.mono - gc.pauseStartNs) / NS_PER_MS;
        }
      } else {
        gc.pauseMs = (e.mono - gc.pauseStartNs) / NS_PER_MS;
        if (gc.hasHeapStats) gc.complete = true;
      }
    }
    this.suspendStartNs = -1;
    this.tidGc = -1;
    this.tidPrep = -1;
  }
}

/** The GC table of a process's GC events (in any order: they are sorted by time, ties kept in arrival order). */
export function buildGcStats(events: readonly GcEventRecord[]): GcStats {
  const order = events.map((_, i) => i);
  order.sort((x, y) => events[x].mono - events[y].mono || x - y);
  const b = new GcStatsBuilder();
  for (const i of order) b.apply(events[i]);
  const rows: GcRow[] = b.rows.map(({ pauseStartNs: _p, hasHeapStats: _h, ...row }) => row);
  const missing = rows.length === 0 ? 0 : rows[rows.length - 1].number - rows[0].number + 1 - rows.length;
  return { rows, missing };
}

/**
 * The GC table of a recording: from its GC_EVENT records (none in recordings made without them).
 * A recording of several processes gets each process's table (GC numbers are per process), its
 * rows marked with their pid and put in order of their start: an event goes to the process of
 * the OS thread that raised it (every GC event's thread is one the recording knows, GC threads
 * included; one it does not know counts for no process).
 */
export function recordingGcStats(rec: Recording): GcStats {
  const events = rec.timeline(GC_EVENTS);
  if (rec.processes().length < 2) return buildGcStats(events);
  const pidOfTid = new Map<number, number>();
  for (const t of rec.threads()) {
    const pid = rec.processOf(t.id)?.pid;
    if (pid !== undefined) pidOfTid.set(t.osTid, pid);
  }
  const byPid = new Map<number, GcEventRecord[]>();
  for (const e of events) {
    const pid = pidOfTid.get(e.tid);
    if (pid === undefined) continue;
    let list = byPid.get(pid);
    if (list === undefined) byPid.set(pid, (list = []));
    list.push(e);
  }
  const rows: GcRow[] = [];
  let missing = 0;
  for (const [pid, list] of byPid) {
    const one = buildGcStats(list);
    missing += one.missing;
    for (const r of one.rows) rows.push({ ...r, pid });
  }
  rows.sort((a, b) => a.startNs - b.startNs);
  return { rows, missing };
}

/** Whether a row's collection was induced (GC.Collect and the like). */
export function isInducedRow(row: GcRow): boolean {
  return row.reason.startsWith('Induced');
}
