// Reads a session's counters block while its process lives and turns each reading into a
// CountersPoint: every 250 ms by default, once more after the process exited (the profiler
// publishes the final values as the runtime shuts down, and our mapping outlives the process).

import { existsSync } from 'node:fs';
import type { CountersPoint } from '../../../structs/api/contract.js';
import { counterBlockPath } from '../diagnostics/namespaces.js';
import { countersRecord } from './counters-format.js';
import { CountersSource } from './counters-source.js';

export const COUNTERS_INTERVAL_MS = 250;

/** A snapshot as `clrscope counters --format json` prints it, without its timestamp and pid: one object per section. */
export function countersPoint(source: Pick<CountersSource, 'read' | 'pid'>, now = new Date()): CountersPoint {
  const record = countersRecord(source.read(), source.pid, now);
  const values: Record<string, Record<string, number>> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'timestamp' || key === 'pid') continue;
    values[key] = value as Record<string, number>;
  }
  return { timeMs: now.getTime(), values };
}

export interface CountersPollerOptions {
  intervalMs?: number;
  /** False once the process has exited (or the session let go of it). */
  alive: () => boolean;
  emit: (point: CountersPoint) => void;
  /** Opens the block (tests); CountersSource.forPid by default. */
  open?: (pid: number) => CountersSource | undefined;
}

function openBlock(pid: number): CountersSource | undefined {
  if (process.platform !== 'win32' && !existsSync(counterBlockPath(pid))) return undefined;
  try {
    const source = CountersSource.forPid(pid);
    if (source.written()) return source;
    source.close();
  } catch {
    // Not there yet: the runtime has not loaded the profiler, or it is not .NET.
  }
  return undefined;
}

export class CountersPoller {
  private source: CountersSource | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private pid: number, private readonly options: CountersPollerOptions) {}

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setInterval(() => this.tick(), this.options.intervalMs ?? COUNTERS_INTERVAL_MS);
    this.timer.unref();
  }

  /** The profiled process turned out to be another one (a launched host started .NET elsewhere). */
  follow(pid: number): void {
    if (pid === this.pid) return;
    this.pid = pid;
    this.source?.close();
    this.source = undefined;
  }

  /** Called when the process is known to have exited: one final point, then no more. */
  finish(): void {
    if (this.stopped) return;
    this.read();
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.source?.close();
    this.source = undefined;
  }

  private tick(): void {
    if (!this.options.alive()) {
      this.finish();
      return;
    }
    this.read();
  }

  private read(): void {
    this.source ??= (this.options.open ?? openBlock)(this.pid);
    if (this.source === undefined) return;
    let point: CountersPoint;
    try {
      point = countersPoint(this.source);
    } catch {
      // A block not in use (yet, or any more) or a torn read that never settled: skip this tick.
      return;
    }
    this.options.emit(point);
  }
}
