// The GC timeline's numbers: pause statistics per generation (the same nearest-rank
// percentiles `clrscope record --pauses` prints) and a histogram of durations.

import type { GcRow } from '../../../structs/analysis/gc-stats.js';
import { pauseStats, type PauseEntry, type PauseStats } from '../../../structs/profile/pause-summary.js';

/** 0, 1, 2: GC pauses of that generation; 'other': suspensions without a GC. */
export type PauseGroup = 0 | 1 | 2 | 'other';

export const PAUSE_GROUPS: readonly PauseGroup[] = [0, 1, 2, 'other'];

export function pauseGroup(p: PauseEntry): PauseGroup {
  return p.generation === 0 || p.generation === 1 || p.generation === 2 ? p.generation : 'other';
}

export function groupName(g: PauseGroup): string {
  return g === 'other' ? 'not GC' : `gen${g}`;
}

export interface PauseRow {
  key: string;
  label: string;
  stats: PauseStats;
}

export function pauseRows(pauses: readonly PauseEntry[]): PauseRow[] {
  const by = new Map<PauseGroup, number[]>(PAUSE_GROUPS.map((g) => [g, []]));
  for (const p of pauses) by.get(pauseGroup(p))?.push(p.durationNs);
  const gc = pauses.filter((p) => pauseGroup(p) !== 'other').map((p) => p.durationNs);
  return [
    ...([0, 1, 2] as const).map((g) => ({ key: `gen${g}`, label: groupName(g), stats: pauseStats(by.get(g) ?? []) })),
    { key: 'gc', label: 'all GCs', stats: pauseStats(gc) },
    { key: 'other', label: groupName('other'), stats: pauseStats(by.get('other') ?? []) },
  ];
}

export interface HistogramBucket {
  /** Inclusive lower edge, ns. */
  fromNs: number;
  /** Exclusive upper edge, ns. */
  toNs: number;
  /** Per group, in PAUSE_GROUPS order. */
  counts: number[];
}

/** Buckets doubling in width from a power of two below the shortest pause to one above the longest. */
export function pauseHistogram(pauses: readonly PauseEntry[]): HistogramBucket[] {
  if (pauses.length === 0) return [];
  let min = Infinity;
  let max = 0;
  for (const p of pauses) {
    const d = Math.max(1, p.durationNs);
    if (d < min) min = d;
    if (d > max) max = d;
  }
  const lo = Math.floor(Math.log2(min));
  const hi = Math.max(lo + 1, Math.floor(Math.log2(max)) + 1);
  const buckets: HistogramBucket[] = [];
  for (let e = lo; e < hi; e++) buckets.push({ fromNs: 2 ** e, toNs: 2 ** (e + 1), counts: PAUSE_GROUPS.map(() => 0) });
  for (const p of pauses) {
    const e = Math.floor(Math.log2(Math.max(1, p.durationNs)));
    const b = buckets[Math.min(buckets.length - 1, Math.max(0, e - lo))];
    b.counts[PAUSE_GROUPS.indexOf(pauseGroup(p))]++;
  }
  return buckets;
}

/**
 * The time whose allocations led to a GC pause: from the end of the GC pause before it (the
 * recording's start when there is none) to this pause's start, in ms from the recording's start.
 * Suspensions without a GC in them neither end nor start such a span. Null for those.
 */
export function allocationSpanBefore(pauses: readonly PauseEntry[], pause: PauseEntry): { fromMs: number; toMs: number } | null {
  if (pauseGroup(pause) === 'other') return null;
  let fromNs = 0;
  for (const p of pauses) {
    if (p === pause || pauseGroup(p) === 'other') continue;
    const end = p.startNs + p.durationNs;
    if (end <= pause.startNs && end > fromNs) fromNs = end;
  }
  return { fromMs: fromNs / 1e6, toMs: pause.startNs / 1e6 };
}

// A collection's GCStart comes inside the suspension that stops the program for it; the
// runtime's events and the profiler's suspension callbacks read one clock, but leave a little
// slack for the order in which they are taken.
const MATCH_SLACK_NS = 1e6;

/** The collection (a row of the GC table) a pause was taken for: the one whose start falls in the pause, nearest its start; null for none. */
export function collectionOf(pause: PauseEntry, gcs: readonly GcRow[]): GcRow | null {
  if (pause.generation === null) return null;
  let best: GcRow | null = null;
  for (const row of gcs) {
    if (row.startNs < pause.startNs - MATCH_SLACK_NS || row.startNs > pause.startNs + pause.durationNs + MATCH_SLACK_NS) continue;
    if (best === null || Math.abs(row.startNs - pause.startNs) < Math.abs(best.startNs - pause.startNs)) best = row;
  }
  return best;
}

/** The pause a collection stopped the program in: the inverse of collectionOf. */
export function pauseOf(row: GcRow, pauses: readonly PauseEntry[]): PauseEntry | null {
  for (const p of pauses) if (collectionOf(p, [row]) === row) return p;
  return null;
}
