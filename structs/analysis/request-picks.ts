// Sets of HTTP requests picked in the Requests tab: one request, a latency range of an endpoint
// (a histogram's bars, the slowest 1%), the slow and the typical ones "slow vs typical" compares.
// A set is the requests' indexes in requestsOf's order (the order they were recorded, which a
// growing recording keeps), and the samples it holds are those of requests.ts's rule, so a
// picked set's flame graph, diff and pprof labels agree.

import type { Recording } from '../profile/recording.js';
import { requestsOf, sampleRequests, type RequestInfo } from './requests.js';

/** One ended request of an endpoint, as the Requests tab lists it. */
export interface RequestItem {
  /** Its index in requestsOf(rec). */
  index: number;
  latencyMs: number;
  status: number;
  traceId: string;
  /** Ms from the recording's start. */
  startMs: number;
}

/** Per endpoint, its ended requests, slowest first (ties: the earlier first). */
export function requestItems(rec: Recording, requests: readonly RequestInfo[] = requestsOf(rec)): Record<string, RequestItem[]> {
  const start = rec.meta?.startMono ?? 0;
  const out: Record<string, RequestItem[]> = {};
  requests.forEach((r, index) => {
    if (r.endNs === undefined) return;
    (out[r.endpoint] ??= []).push({ index, latencyMs: (r.endNs - r.startNs) / 1e6, status: r.status, traceId: r.traceId, startMs: (r.startNs - start) / 1e6 });
  });
  for (const list of Object.values(out)) list.sort((a, b) => b.latencyMs - a.latencyMs || a.index - b.index);
  return out;
}

/** The slowest `fraction` of `items` (slowest first), at least one when there are any. */
export function slowest(items: readonly RequestItem[], fraction: number): RequestItem[] {
  if (items.length === 0) return [];
  return items.slice(0, Math.max(1, Math.ceil(fraction * items.length)));
}

/** The requests whose latency is in [fromMs, toMs]. */
export function inLatencyRange(items: readonly RequestItem[], fromMs: number, toMs: number): RequestItem[] {
  return items.filter((r) => r.latencyMs >= fromMs && r.latencyMs <= toMs);
}

/**
 * The typical requests: those between the 25th and the 75th percentile of latency (nearest
 * rank, as the table's quantiles), leaving out `exclude` (the slow side of a comparison).
 */
export function typical(items: readonly RequestItem[], exclude: readonly number[] = []): RequestItem[] {
  const fastestFirst = [...items].reverse();
  const n = fastestFirst.length;
  if (n === 0) return [];
  const lo = Math.max(0, Math.ceil(0.25 * n) - 1);
  const hi = Math.max(lo, Math.ceil(0.75 * n) - 1);
  const skip = new Set(exclude);
  return fastestFirst.slice(lo, hi + 1).filter((r) => !skip.has(r.index));
}

/** Per sample, 1 when it was taken in one of the requests `indexes` names (requests.ts's rule). */
export function requestSampleMask(rec: Recording, indexes: readonly number[]): Uint8Array {
  const requests = requestsOf(rec);
  const picked = new Uint8Array(requests.length);
  for (const i of indexes) if (Number.isInteger(i) && i >= 0 && i < picked.length) picked[i] = 1;
  const tags = sampleRequests(rec, requests);
  const mask = new Uint8Array(tags.length);
  for (let i = 0; i < tags.length; i++) if (tags[i] >= 0 && picked[tags[i]] === 1) mask[i] = 1;
  return mask;
}

/** A short key naming a set of request indexes (for caches keyed by query). */
export function requestSetKey(indexes: readonly number[]): string {
  let h = 0x811c9dc5;
  for (const i of indexes) {
    h ^= i;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${indexes.length}:${h.toString(16)}`;
}
