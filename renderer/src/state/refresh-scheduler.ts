// Decides when the views re-query the worker. New stream bytes ask for a refresh, at most one
// per period (so a live recording refreshes a few times a second and a stopped one not at
// all); a change of the user's options asks for one now. A query still running is never
// doubled: the next run waits for it and covers everything asked for meanwhile.

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const browserTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class RefreshScheduler {
  private timer: unknown = null;
  private lastRun = Number.NEGATIVE_INFINITY;
  private running = false;
  private again = false;
  private urgent = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly periodMs: number,
    private readonly timers: Timers = browserTimers,
  ) {}

  /** New data: refresh within one period. */
  dataChanged(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.lastRun + this.periodMs - this.timers.now());
    this.timer = this.timers.setTimeout(() => this.fire(), wait);
  }

  /** The user changed what is shown: refresh as soon as the worker is free. */
  now(): void {
    this.urgent = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.fire(), 0);
  }

  cancel(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.again = false;
    this.urgent = false;
  }

  private fire(): void {
    this.timer = null;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.urgent = false;
    this.lastRun = this.timers.now();
    const done = (): void => {
      this.running = false;
      if (this.again) {
        this.again = false;
        if (this.urgent) this.now();
        else this.dataChanged();
      }
    };
    // run() reports its own errors; a rejection here must not stop later refreshes.
    this.run().then(done, done);
  }
}
