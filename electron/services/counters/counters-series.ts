// A session's counters time series, kept in the main process so that a page which shows the
// session later, and a .clrscope export, get every point rather than only those broadcast while
// they listened.
//
// Bounded: up to MAX_SERIES_POINTS points (4 hours at the poller's 250 ms) are kept as read.
// When the series fills, every other point is dropped and from then on only every other reading
// is kept (the spacing doubles: 500 ms up to 8 hours, 1 s up to 16, …), so a long session keeps
// its whole span at an even spacing; the newest reading is always there too, as it holds the
// final values. Each point
// is kept as one Float64Array against a shared list of its names: as plain objects a point costs
// about 1.4 KB of heap, as numbers 67 × 8 bytes, so a full series holds about 31 MB.

import { COUNTERS_HISTORY_POINTS, type CountersPoint } from '../../../structs/api/contract.js';

export const MAX_SERIES_POINTS = 57_600;

/**
 * What the countersHistory operation answers from a session's series: the newest points, as
 * many as a page keeps. An export still takes the whole series.
 */
export function pageHistory(points: CountersPoint[]): CountersPoint[] {
  return points.length > COUNTERS_HISTORY_POINTS ? points.slice(points.length - COUNTERS_HISTORY_POINTS) : points;
}

/** The names of a point's values, in the order its Float64Array holds them. */
interface Layout {
  sections: readonly (readonly [section: string, fields: readonly string[]])[];
}

interface StoredPoint {
  timeMs: number;
  layout: Layout;
  values: Float64Array;
}

export class CountersSeries {
  /** Readings 0, stride, 2 × stride, … counted from the first. */
  private points: StoredPoint[] = [];
  /** The newest reading when it is not one of `points` (it falls between them). */
  private latest: StoredPoint | undefined;
  private stride = 1;
  private readings = 0;
  // Points of one process share one layout; a map keeps that true for any mix.
  private readonly layouts = new Map<string, Layout>();

  constructor(private readonly maxPoints = MAX_SERIES_POINTS) {
    if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`A counters series keeps at least 2 points, not ${maxPoints}.`);
  }

  get length(): number {
    return this.points.length + (this.latest === undefined ? 0 : 1);
  }

  /** Adds a reading; one older than the newest (a clock step back) is dropped, keeping time order. */
  add(point: CountersPoint): void {
    const last = this.latest ?? this.points[this.points.length - 1];
    if (last !== undefined && point.timeMs < last.timeMs) return;
    const layout = this.layoutOf(point);
    const values = new Float64Array(layout.sections.reduce((n, [, fields]) => n + fields.length, 0));
    let at = 0;
    for (const [section, fields] of layout.sections) {
      const src = point.values[section];
      for (const field of fields) values[at++] = src[field];
    }
    const stored = { timeMs: point.timeMs, layout, values };
    if (this.readings++ % this.stride !== 0) {
      this.latest = stored;
      return;
    }
    this.latest = undefined;
    this.points.push(stored);
    if (this.points.length >= this.maxPoints) {
      // The reading just kept may fall between the wider spacing: it stays as the newest.
      if ((this.points.length - 1) % 2 !== 0) this.latest = stored;
      this.points = this.points.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
    }
  }

  /** Every kept point, oldest first, as fresh objects. */
  all(): CountersPoint[] {
    const kept = this.latest === undefined ? this.points : [...this.points, this.latest];
    return kept.map((p) => {
      const values: Record<string, Record<string, number>> = {};
      let at = 0;
      for (const [section, fields] of p.layout.sections) {
        const out: Record<string, number> = {};
        for (const field of fields) out[field] = p.values[at++];
        values[section] = out;
      }
      return { timeMs: p.timeMs, values };
    });
  }

  private layoutOf(point: CountersPoint): Layout {
    const sections = Object.entries(point.values).map(([section, fields]) => [section, Object.keys(fields)] as const);
    const key = sections.map(([section, fields]) => `${section}\u0001${fields.join('\u0001')}`).join('\u0000');
    let layout = this.layouts.get(key);
    if (layout === undefined) {
      layout = { sections };
      this.layouts.set(key, layout);
    }
    return layout;
  }
}
