// The per-sample tests every query shares: is the sample inside the time window, and which of
// the recording's threads is it (as a small dense index, so per-thread state lives in arrays).

import type { Recording } from '../../../structs/profile/recording.js';
import type { TimeWindow } from './protocol.js';

const NS_PER_MS = 1e6;
// Thread ids below this are looked up in a dense array; writers number threads from 1.
const DENSE_LIMIT = 1 << 20;

export interface MonoBounds {
  /** Inclusive, target CLOCK_MONOTONIC ns. */
  from: number;
  /** Exclusive. */
  to: number;
}

/** The window as absolute mono times; an absent bound is open. */
export function monoBounds(startMono: number, window: TimeWindow): MonoBounds {
  return {
    from: window.fromMs === undefined ? -Infinity : startMono + window.fromMs * NS_PER_MS,
    to: window.toMs === undefined ? Infinity : startMono + window.toMs * NS_PER_MS,
  };
}

/** Dense slots 0..n-1 for the recording's threads, in the order the recording lists them. */
export class ThreadSlots {
  /** slot -> wire thread id. */
  readonly ids: number[];
  /** thread id -> slot, -1 for none (ids below DENSE_LIMIT). */
  readonly dense: Int32Array;
  private readonly sparse = new Map<number, number>();

  constructor(rec: Pick<Recording, 'threads'>) {
    this.ids = rec.threads().map((t) => t.id);
    let max = 0;
    for (const id of this.ids) if (id < DENSE_LIMIT && id > max) max = id;
    this.dense = new Int32Array(max + 1).fill(-1);
    this.ids.forEach((id, slot) => {
      if (id < DENSE_LIMIT) this.dense[id] = slot;
      else this.sparse.set(id, slot);
    });
  }

  get count(): number {
    return this.ids.length;
  }

  slot(threadId: number): number {
    if (threadId < this.dense.length) return this.dense[threadId];
    return this.sparse.get(threadId) ?? -1;
  }

  /** Per slot, 1 when the thread is in `threadIds` (null = every thread). */
  mask(threadIds: readonly number[] | null): Uint8Array {
    const mask = new Uint8Array(this.ids.length);
    if (threadIds === null) return mask.fill(1);
    for (const id of threadIds) {
      const s = this.slot(id);
      if (s >= 0) mask[s] = 1;
    }
    return mask;
  }
}
