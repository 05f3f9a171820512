// Timers the unit tests drive by hand (RefreshScheduler, Workstation): time moves only when
// the test says, and each due callback runs with its promises settled before the next.

import type { Timers } from './refresh-scheduler.js';

/** Lets pending promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class FakeTimers implements Timers {
  time = 0;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  now(): number { return this.time; }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.queue.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void { this.queue = this.queue.filter((t) => t.id !== handle); }
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (next === undefined || next.at > end) break;
      this.queue.shift();
      this.time = next.at;
      next.fn();
      await settle();
    }
    this.time = end;
  }
}
