// `clrscope report FILE --gcs`: one row per garbage collection (structs/analysis/gc-stats.ts), as
// text or as `{"gcs":[...]}` (README, report --gcs), from a clrscope recording's GC events or a
// .nettrace file's (dotnet-trace's with the GC keyword, or clrscope's own export).

import { recordingGcStats, type GcRow } from '../../structs/analysis/gc-stats.js';
import type { Recording } from '../../structs/profile/recording.js';

export interface GcsReport {
  gcs: Record<string, number | string | boolean | null>[];
}

const MB = 1e6;

/** The JSON rows: the eight fields every row has, in this order, then the rest. */
export function gcsReport(rec: Recording): GcsReport {
  const start = rec.meta?.startMono ?? 0;
  return {
    gcs: recordingGcStats(rec).rows.map((r: GcRow) => ({
      number: r.number, generation: r.generation, type: r.type, reason: r.reason, pauseMs: r.pauseMs,
      heapBeforeBytes: r.heapBeforeBytes, heapAfterBytes: r.heapAfterBytes, promotedBytes: r.promotedBytes,
      startMs: (r.startNs - start) / 1e6, suspendMs: r.suspendMs, durationMs: r.durationMs, finalPauseMs: r.finalPauseMs,
      fragmentationBytes: r.fragmentationBytes, compacting: r.compacting, gcHandles: r.gcHandles, pinnedObjects: r.pinnedObjects,
      ...(r.pid === undefined ? {} : { pid: r.pid }),
    })),
  };
}

function mb(bytes: number | null): string {
  return bytes === null ? '-' : (bytes / MB).toFixed(3);
}

function ms(value: number | null): string {
  return value === null ? '-' : value.toFixed(3);
}

/** The table as text: a header, one line per GC, and a line that says what is missing. */
export function gcsText(rec: Recording, file: string): string[] {
  const stats = recordingGcStats(rec);
  if (stats.rows.length === 0) {
    return [`${file} has no GC events of the runtime's own (GCStart and the like): it was recorded without them, or no GC ran.`];
  }
  const start = rec.meta?.startMono ?? 0;
  const pids = [...new Set(stats.rows.map((r) => r.pid))].filter((p): p is number => p !== undefined);
  const lost = stats.missing > 0 ? ` (${stats.missing} numbers in between not seen: their events were lost)` : '';
  const lines = [
    pids.length === 0
      ? `${stats.rows.length} garbage collections, GC numbers ${stats.rows[0].number} to ${stats.rows[stats.rows.length - 1].number}${lost}:`
      : `${stats.rows.length} garbage collections in ${pids.length} processes (${pids.map((p) => `pid ${p}: ${stats.rows.filter((r) => r.pid === p).length}`).join(', ')}), each numbered on its own${lost}:`,
    `${pids.length === 0 ? '' : '     pid '}     GC#  gen  type        reason               start(s)  pause(ms)  suspend(ms)  before(MB)  after(MB)  promoted(MB)  frag(MB)  compact`,
  ];
  for (const r of stats.rows) {
    lines.push([
      ...(pids.length === 0 ? [] : [String(r.pid ?? '-').padStart(8)]),
      String(r.number).padStart(8), String(r.generation).padStart(4), ` ${r.type.padEnd(11)}`, r.reason.padEnd(18),
      ((r.startNs - start) / 1e9).toFixed(3).padStart(9), ms(r.pauseMs).padStart(10), ms(r.suspendMs).padStart(12),
      mb(r.heapBeforeBytes).padStart(11), mb(r.heapAfterBytes).padStart(10), mb(r.promotedBytes).padStart(13),
      mb(r.fragmentationBytes).padStart(9), (r.compacting === null ? '-' : r.compacting ? 'yes' : 'no').padStart(8),
    ].join(' '));
  }
  return lines;
}
