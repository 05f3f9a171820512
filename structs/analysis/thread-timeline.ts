// One lane per thread over the recording's time: in each time bucket, how much of the bucket
// the thread spent on a CPU and how much of it samples cover at all (what is covered but not
// on a CPU is waiting). A CPU sample's value is CPU time used just before it, so it is spread
// over the value's length before the sample; a wall sample's value is the wall time since
// the thread's previous wall sample, spread the same way. A recording without wall samples
// covers each thread from its first to its last sight instead.

import type { SampleSource } from './stack-source.js';
import { threadLabel } from '../profile/thread-label.js';

const NS_PER_MS = 1e6;
export const MAX_TIMELINE_BUCKETS = 4096;

export interface TimelineQuery {
  /** Milliseconds after the recording's start; absent = its first sample. */
  fromMs?: number;
  /** Absent = its last sample. */
  toMs?: number;
  /** Columns, 1..MAX_TIMELINE_BUCKETS. */
  buckets: number;
}

export interface TimelineThread {
  id: number;
  osTid: number;
  name: string;
  /** CPU and wall ns of its samples in the range. */
  cpuNs: number;
  wallNs: number;
}

export interface ThreadTimeline {
  fromMs: number;
  toMs: number;
  buckets: number;
  /** Lanes, busiest (CPU) first, then by name. */
  threads: TimelineThread[];
  /** Per lane × bucket (lane-major): the fraction of the bucket the thread was on a CPU, 0..1. */
  cpu: Float32Array;
  /** Per lane × bucket: the fraction of the bucket samples cover (alive and seen), 0..1. */
  seen: Float32Array;
}

/** Adds `amount` spread evenly over [a, b) (ns from `origin`) into `row`'s buckets of `width` ns. */
function spread(row: Float64Array, base: number, buckets: number, origin: number, width: number, a: number, b: number, amount: number): void {
  if (b <= a) return;
  const lo = Math.max(0, Math.floor((a - origin) / width));
  const hi = Math.min(buckets - 1, Math.floor((b - origin) / width));
  const density = amount / (b - a);
  for (let k = lo; k <= hi; k++) {
    const s = Math.max(a, origin + k * width);
    const e = Math.min(b, origin + (k + 1) * width);
    if (e > s) row[base + k] += (e - s) * density;
  }
}

export function threadTimeline(src: SampleSource, query: TimelineQuery): ThreadTimeline {
  const buckets = Math.max(1, Math.min(MAX_TIMELINE_BUCKETS, Math.floor(query.buckets)));
  const meta = src.meta;
  const { mono, threadId, cpuNs, wallNs } = src.sampleColumns();
  if (meta === undefined || mono.length === 0) {
    return { fromMs: query.fromMs ?? 0, toMs: query.toMs ?? 0, buckets, threads: [], cpu: new Float32Array(0), seen: new Float32Array(0) };
  }
  let first = Infinity;
  let last = -Infinity;
  let anyWall = false;
  for (let i = 0; i < mono.length; i++) {
    const m = mono[i];
    if (m < first) first = m;
    if (m > last) last = m;
    if (wallNs[i] !== 0) anyWall = true;
  }
  const fromMs = query.fromMs ?? Math.max(0, (first - meta.startMono) / NS_PER_MS);
  let toMs = query.toMs ?? (last - meta.startMono) / NS_PER_MS;
  if (toMs <= fromMs) toMs = fromMs + 1;
  const origin = meta.startMono + fromMs * NS_PER_MS;
  const end = meta.startMono + toMs * NS_PER_MS;
  const width = (end - origin) / buckets;
  const lanes = new Map<number, number>();
  const laneIds: number[] = [];
  const laneOf = (t: number): number => {
    let l = lanes.get(t);
    if (l === undefined) {
      l = laneIds.length;
      lanes.set(t, l);
      laneIds.push(t);
    }
    return l;
  };
  // Lanes are allocated as threads turn up, so grow the per-lane rows in blocks.
  let cpuRows = new Float64Array(16 * buckets);
  let seenRows = new Float64Array(16 * buckets);
  let cpuSum = new Float64Array(16);
  let wallSum = new Float64Array(16);
  const ensure = (lane: number): void => {
    if ((lane + 1) * buckets <= cpuRows.length) return;
    const size = Math.max(cpuRows.length * 2, (lane + 1) * buckets);
    const c = new Float64Array(size); c.set(cpuRows); cpuRows = c;
    const s = new Float64Array(size); s.set(seenRows); seenRows = s;
    const cs = new Float64Array(size / buckets); cs.set(cpuSum); cpuSum = cs;
    const ws = new Float64Array(size / buckets); ws.set(wallSum); wallSum = ws;
  };
  for (let i = 0; i < mono.length; i++) {
    const m = mono[i];
    const c = cpuNs[i];
    const w = wallNs[i];
    // Spans reach back from the sample: skip samples whose span cannot touch the range.
    if (m < origin || m - Math.max(c, w) >= end) continue;
    const lane = laneOf(threadId[i]);
    ensure(lane);
    const base = lane * buckets;
    if (c > 0) {
      spread(cpuRows, base, buckets, origin, width, m - c, m, c);
      if (m < end) cpuSum[lane] += c;
    }
    if (w > 0) {
      spread(seenRows, base, buckets, origin, width, m - w, m, w);
      if (m < end) wallSum[lane] += w;
    }
  }
  if (!anyWall) {
    for (const t of src.threads()) {
      const lane = lanes.get(t.id);
      if (lane === undefined) continue;
      spread(seenRows, lane * buckets, buckets, origin, width, t.firstSeenMono, t.lastSeenMono, t.lastSeenMono - t.firstSeenMono);
    }
  }
  const threads: TimelineThread[] = laneIds.map((id, lane) => {
    const info = src.thread(id);
    return { id, osTid: info?.osTid ?? 0, name: threadLabel(info, id), cpuNs: cpuSum[lane], wallNs: wallSum[lane] };
  });
  const order = threads.map((_, lane) => lane).sort((a, b) => threads[b].cpuNs - threads[a].cpuNs || (threads[a].name < threads[b].name ? -1 : threads[a].name > threads[b].name ? 1 : threads[a].id - threads[b].id));
  const cpu = new Float32Array(order.length * buckets);
  const seen = new Float32Array(order.length * buckets);
  order.forEach((lane, row) => {
    for (let k = 0; k < buckets; k++) {
      // CPU cannot exceed the bucket (a sample's CPU may come from a slightly longer run than its span assumes).
      const busy = Math.min(1, cpuRows[lane * buckets + k] / width);
      cpu[row * buckets + k] = busy;
      seen[row * buckets + k] = Math.max(busy, Math.min(1, seenRows[lane * buckets + k] / width));
    }
  });
  return { fromMs, toMs, buckets, threads: order.map((lane) => threads[lane]), cpu, seen };
}

export interface StackAtPoint {
  threadId: number;
  /** When the sample was taken, ms after the recording's start. */
  atMs: number;
  cpuNs: number;
  wallNs: number;
  /** The recorded stack id; fold it to show it folded. */
  stackId: number;
}

/**
 * The thread's sample nearest to `atMs`: the latest one at or before it, unless the next one
 * is closer; null when the thread has no sample.
 */
export function sampleNear(src: SampleSource, threadIdWanted: number, atMs: number): StackAtPoint | null {
  const meta = src.meta;
  if (meta === undefined) return null;
  const { mono, threadId, stackId, cpuNs, wallNs } = src.sampleColumns();
  const at = meta.startMono + atMs * NS_PER_MS;
  let best = -1;
  let bestDistance = Infinity;
  for (let i = 0; i < mono.length; i++) {
    if (threadId[i] !== threadIdWanted) continue;
    const d = Math.abs(mono[i] - at);
    // Ties go to the earlier sample: it shows what the thread was doing up to that moment.
    if (d < bestDistance || (d === bestDistance && mono[i] <= at)) {
      best = i;
      bestDistance = d;
    }
  }
  if (best < 0) return null;
  return { threadId: threadIdWanted, atMs: (mono[best] - meta.startMono) / NS_PER_MS, cpuNs: cpuNs[best], wallNs: wallNs[best], stackId: stackId[best] };
}
