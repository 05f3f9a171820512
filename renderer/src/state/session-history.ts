// The selected session's counters and program output: their history asked for once when the
// session is shown (events bring only what is new), new points and lines as they arrive,
// and the views told within a moment, however many lines came meanwhile.

import type { CountersPoint, OutputLine, OutputPartial } from '../../../structs/api/contract.js';
import { CountersHistory } from './counters-history.js';
import { ProgramOutput } from './program-output.js';
import type { StationContext } from './station-context.js';

/** How often the Output view takes new lines at most: a program may write thousands a second, a reader needs a few updates. */
export const OUTPUT_REFRESH_MS = 100;

export class SessionHistory {
  readonly counters = new CountersHistory();
  readonly output = new ProgramOutput();
  private outputTimer: unknown = null;

  constructor(private readonly ctx: StationContext) {}

  /** Both histories of a session just shown (or heard again after a reconnection). */
  load(sessionId: string): void {
    void this.loadCounters(sessionId);
    void this.loadOutput(sessionId);
  }

  addPoint(sessionId: string, point: CountersPoint): void {
    this.counters.add(sessionId, point);
    if (sessionId === this.ctx.store.get().selectedSessionId) this.countersChanged();
  }

  addLines(sessionId: string, lines: OutputLine[], partial: OutputPartial): void {
    this.output.add(sessionId, lines, partial);
    if (sessionId === this.ctx.store.get().selectedSessionId) this.outputChanged();
  }

  /** The charts show the selected session's points again (another kept window). */
  countersChanged(): void {
    this.ctx.store.update({ countersVersion: this.ctx.store.get().countersVersion + 1 });
  }

  forget(sessionId: string): void {
    this.counters.forget(sessionId);
    this.output.forget(sessionId);
  }

  dispose(): void {
    if (this.outputTimer !== null) this.ctx.timers.clearTimeout(this.outputTimer);
  }

  /** The session's counters so far: 'counters' events bring only new points, and a file session has no live ones at all. */
  private async loadCounters(sessionId: string): Promise<void> {
    try {
      this.counters.merge(sessionId, await this.ctx.api.countersHistory(sessionId));
    } catch {
      // The views work without the history (live points still arrive); the stream's own errors are the ones to show.
      return;
    }
    if (sessionId === this.ctx.store.get().selectedSessionId) this.countersChanged();
  }

  /** The program's output so far: 'output' events bring only new lines. */
  private async loadOutput(sessionId: string): Promise<void> {
    try {
      this.output.merge(sessionId, await this.ctx.api.outputHistory(sessionId));
    } catch {
      // Live lines still arrive; the Output view just starts where this page started listening.
      return;
    }
    if (sessionId === this.ctx.store.get().selectedSessionId) this.ctx.store.update({ outputVersion: this.ctx.store.get().outputVersion + 1 });
  }

  /** New lines of the selected session: shown within OUTPUT_REFRESH_MS, however many came meanwhile. */
  private outputChanged(): void {
    if (this.outputTimer !== null) return;
    this.outputTimer = this.ctx.timers.setTimeout(() => {
      this.outputTimer = null;
      this.ctx.store.update({ outputVersion: this.ctx.store.get().outputVersion + 1 });
    }, OUTPUT_REFRESH_MS);
  }
}
