// GC pause statistics over a recording's suspensions: the numbers `clrscope record` prints and
// the GC timeline shows. Percentiles use the nearest-rank method on exact durations.

import type { SuspensionRecord } from '../wire/records.js';
import { SuspensionFlags } from '../wire/records.js';

export interface PauseStats {
  count: number;
  totalNs: number;
  p50Ns: number;
  p90Ns: number;
  p99Ns: number;
  maxNs: number;
}

export interface PauseSummary {
  /** GC pauses per generation collected (0, 1, 2). */
  byGeneration: PauseStats[];
  /** Every GC pause together. */
  gc: PauseStats;
  /** Suspensions without a GC in them (aborted ones included). */
  other: PauseStats;
  induced: number;
}

/** The pause list as `clrscope record --pauses` writes it. */
export interface PauseEntry {
  startNs: number;
  durationNs: number;
  suspendNs: number;
  reason: string;
  generation: number | null;
  induced: boolean;
  aborted: boolean;
}

const REASONS: Record<number, string> = {
  0: 'other', 1: 'gc', 2: 'appdomain-shutdown', 3: 'code-pitching', 4: 'shutdown', 6: 'in-process-debugger',
  7: 'gc-prep', 8: 'rejit', 9: 'profiler',
};

export function suspendReasonName(reason: number): string {
  return REASONS[reason] ?? `reason-${reason}`;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function pauseStats(durations: readonly number[]): PauseStats {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    count: sorted.length,
    totalNs: sorted.reduce((a, b) => a + b, 0),
    p50Ns: percentile(sorted, 50),
    p90Ns: percentile(sorted, 90),
    p99Ns: percentile(sorted, 99),
    maxNs: sorted.length === 0 ? 0 : sorted[sorted.length - 1],
  };
}

export function summarizePauses(suspensions: readonly SuspensionRecord[]): PauseSummary {
  const byGen: number[][] = [[], [], []];
  const gc: number[] = [];
  const other: number[] = [];
  let induced = 0;
  for (const s of suspensions) {
    if (s.generation >= 0 && s.generation <= 2) {
      byGen[s.generation].push(s.durationNs);
      gc.push(s.durationNs);
      if (s.flags & SuspensionFlags.Induced) induced++;
    } else {
      other.push(s.durationNs);
    }
  }
  return { byGeneration: byGen.map(pauseStats), gc: pauseStats(gc), other: pauseStats(other), induced };
}

/** Suspensions with start times relative to the recording's start (HELLO). */
export function pauseEntries(suspensions: readonly SuspensionRecord[], startMono: number): PauseEntry[] {
  return suspensions.map((s) => ({
    startNs: s.mono - startMono,
    durationNs: s.durationNs,
    suspendNs: s.suspendNs,
    reason: suspendReasonName(s.reason),
    generation: s.generation >= 0 ? s.generation : null,
    induced: (s.flags & SuspensionFlags.Induced) !== 0,
    aborted: (s.flags & SuspensionFlags.Aborted) !== 0,
  }));
}
