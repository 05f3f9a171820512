// Counters points per session, kept outside the immutable app state: points arrive several
// times a second and copying a long array on each would cost more than drawing it.

import { COUNTERS_HISTORY_POINTS, type CountersPoint } from '../../../structs/api/contract.js';

/** Older points are dropped first; the main process's countersHistory sends no more than this. */
const MAX_POINTS = COUNTERS_HISTORY_POINTS;

export class CountersHistory {
  private readonly bySession = new Map<string, CountersPoint[]>();
  // Sessions whose views keep only their last minutes (SessionInfo.keepMinutes): ms kept.
  private readonly windows = new Map<string, number>();

  /** Keep only the points of the last `minutes` before the newest (null: up to MAX_POINTS, whatever their age). */
  keepMinutes(sessionId: string, minutes: number | null): void {
    if (minutes === null) this.windows.delete(sessionId);
    else this.windows.set(sessionId, minutes * 60_000);
    const points = this.bySession.get(sessionId);
    if (points !== undefined) this.trim(sessionId, points);
  }

  private trim(sessionId: string, points: CountersPoint[]): void {
    if (points.length > MAX_POINTS) points.splice(0, points.length - MAX_POINTS);
    const span = this.windows.get(sessionId);
    if (span === undefined || points.length === 0) return;
    const from = points[points.length - 1].timeMs - span;
    let old = 0;
    while (old < points.length && points[old].timeMs < from) old++;
    if (old > 0) points.splice(0, old);
  }

  add(sessionId: string, point: CountersPoint): void {
    let points = this.bySession.get(sessionId);
    if (points === undefined) {
      points = [];
      this.bySession.set(sessionId, points);
    }
    // Points can arrive twice (after a reconnect of the main process's reader); keep time order.
    const last = points[points.length - 1];
    if (last !== undefined && point.timeMs <= last.timeMs) return;
    points.push(point);
    this.trim(sessionId, points);
  }

  /**
   * Merges a session's history (asked for when the page shows it) with the points heard live
   * meanwhile: one point per time, in time order, the newest MAX_POINTS kept.
   */
  merge(sessionId: string, history: readonly CountersPoint[]): void {
    const byTime = new Map<number, CountersPoint>();
    for (const p of history) byTime.set(p.timeMs, p);
    for (const p of this.bySession.get(sessionId) ?? []) byTime.set(p.timeMs, p);
    const points = [...byTime.values()].sort((a, b) => a.timeMs - b.timeMs);
    this.trim(sessionId, points);
    this.bySession.set(sessionId, points);
  }

  /** A closed session's points go. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
    this.windows.delete(sessionId);
  }

  points(sessionId: string | null): readonly CountersPoint[] {
    if (sessionId === null) return [];
    return this.bySession.get(sessionId) ?? [];
  }
}
