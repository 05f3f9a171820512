// Counters points per session, kept outside the immutable app state: points arrive several
// times a second and copying a long array on each would cost more than drawing it.

import { COUNTERS_HISTORY_POINTS, type CountersPoint } from '../../../structs/api/contract.js';

/** Older points are dropped first; the main process's countersHistory sends no more than this. */
const MAX_POINTS = COUNTERS_HISTORY_POINTS;

export class CountersHistory {
  private readonly bySession = new Map<string, CountersPoint[]>();

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
    if (points.length > MAX_POINTS) points.splice(0, points.length - MAX_POINTS);
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
    if (points.length > MAX_POINTS) points.splice(0, points.length - MAX_POINTS);
    this.bySession.set(sessionId, points);
  }

  /** A closed session's points go. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  points(sessionId: string | null): readonly CountersPoint[] {
    if (sessionId === null) return [];
    return this.bySession.get(sessionId) ?? [];
  }
}
