// The diff's options and its baseline: a recording compared with the selected one has its
// stream fed to the worker beside the selected session's, kept apart from it.

import type { DiffOptions } from './app-state.js';
import { stopHearing, type StationContext } from './station-context.js';
import { StreamFeeder } from './stream-feeder.js';
import { userMessage } from './user-message.js';

export class DiffBaseline {
  private readonly feeder = new StreamFeeder();
  private sessionIdValue: string | null = null;

  constructor(private readonly ctx: StationContext) {}

  /** The session compared with (null: none, or a window of the selected one). */
  get sessionId(): string | null {
    return this.sessionIdValue;
  }

  /** Whether the diff can be asked for: a baseline recording once its first bytes are in the worker. */
  get ready(): boolean {
    const baseline = this.ctx.store.get().diffOptions.baseline;
    return baseline !== null && (baseline.kind !== 'session' || this.feeder.position > 0);
  }

  setOptions(patch: Partial<DiffOptions>): void {
    const state = this.ctx.store.get();
    const next = { ...state.diffOptions, ...patch };
    const session = next.baseline?.kind === 'session' ? next.baseline.sessionId : null;
    if (session !== this.sessionIdValue) {
      const old = this.sessionIdValue;
      if (old !== null && old !== state.selectedSessionId) stopHearing(this.ctx.api, old);
      this.sessionIdValue = session;
      this.feeder.reset();
      this.ctx.worker.baselineReset();
      this.ctx.store.update({ baselineSummary: null });
      if (session !== null) this.request(session);
    }
    this.ctx.store.update({ diffOptions: next, diff: null });
    this.ctx.refresher.now();
  }

  /** A chunk of the baseline session's stream. */
  onChunk(offset: number, chunk: Uint8Array): void {
    const r = this.feeder.accept(offset, chunk);
    if (r.kind !== 'bytes') return;
    this.ctx.worker.baselineChunk(r.offset, r.bytes);
    if (this.ctx.store.get().tab === 'diff') this.ctx.refresher.dataChanged();
  }

  /** A new connection hears nothing yet: the baseline's stream is asked for again from the bytes already held. */
  onReconnected(): void {
    const id = this.sessionIdValue;
    if (id !== null && id !== this.ctx.store.get().selectedSessionId) this.request(id, this.feeder.position);
  }

  /** A session is gone: it is no longer compared with. */
  forget(sessionId: string): void {
    if (this.sessionIdValue === sessionId) this.setOptions({ baseline: null });
  }

  private request(sessionId: string, fromOffset?: number): void {
    const asked = fromOffset === undefined ? this.ctx.api.subscribe(sessionId) : this.ctx.api.subscribe(sessionId, fromOffset);
    asked.catch((e: unknown) => this.ctx.showError(userMessage(e, 'The recording to compare with could not be requested.')));
  }
}
