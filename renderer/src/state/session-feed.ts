// The selected session's stream, fed to the profile worker in order: chunks are taken once
// each (a replay and live chunks overlap), a gap asks for the stream again from its first
// byte (at most MAX_RESYNCS times), and the measuring records are read from the same bytes.
// Its generation numbers each feed, so replies and chunks of an older one are dropped.

import { MeasureReader, type Measurements } from '../../../structs/measure/measurements.js';
import type { StationContext } from './station-context.js';
import { StreamFeeder } from './stream-feeder.js';
import { userMessage } from './user-message.js';

/** Resubscriptions after lost stream bytes before giving up with a message. */
const MAX_RESYNCS = 3;

export class SessionFeed {
  private readonly feeder = new StreamFeeder();
  // The selected session's measuring records, read from the same bytes the worker gets.
  private measureReader = new MeasureReader();
  // Bumped on every switch of session and every new feed: replies and chunks of an older one are dropped.
  private generationValue = 0;
  private subscribing = false;
  private resyncs = 0;

  constructor(private readonly ctx: StationContext) {}

  /** The feed's number now: an answer that began under another one is stale. */
  get generation(): number {
    return this.generationValue;
  }

  /** Bytes of the selected session handed to the worker so far. */
  get position(): number {
    return this.feeder.position;
  }

  /** The selected session's measured methods (see AppState.measureVersion). */
  get measurements(): Measurements {
    return this.measureReader.measurements;
  }

  /** Another session is shown (or none): the worker starts empty and the old session's bytes are dropped. */
  restart(sessionId: string | null): void {
    this.generationValue++;
    this.resyncs = 0;
    this.clear(sessionId);
  }

  /** Asks for the session's stream from `fromOffset` (0: all of it, into a fresh worker). */
  async subscribe(sessionId: string, fromOffset = 0): Promise<void> {
    const generation = this.generationValue;
    this.subscribing = true;
    try {
      await (fromOffset === 0 ? this.ctx.api.subscribe(sessionId) : this.ctx.api.subscribe(sessionId, fromOffset));
    } catch (e) {
      if (generation === this.generationValue) this.ctx.showError(userMessage(e, 'The recording\'s data could not be requested.'));
    } finally {
      if (generation === this.generationValue) this.subscribing = false;
    }
    if (generation === this.generationValue) this.ctx.refresher.now();
  }

  /** A chunk of the selected session's stream. */
  onChunk(offset: number, chunk: Uint8Array): void {
    const r = this.feeder.accept(offset, chunk);
    if (r.kind === 'duplicate') return;
    if (r.kind === 'gap') {
      // Live chunks can overtake the replay a subscribe asked for; the replay fills them in.
      if (this.subscribing) return;
      this.resync();
      return;
    }
    const before = this.measureReader.measurements.version;
    try {
      this.measureReader.push(r.bytes);
    } catch {
      // A measuring record that cannot be read: the views keep what they had (the worker reads
      // the same bytes and reports a corrupt stream itself).
    }
    const measured = this.measureReader.measurements.version !== before;
    // Last: a chunk that owns its buffer (as Electron's IPC delivers it) is transferred to the
    // worker, which leaves it empty here.
    this.ctx.worker.chunk(r.offset, r.bytes);
    const state = this.ctx.store.get();
    this.ctx.store.update({ streamBytes: this.feeder.position, ...(measured ? { measureVersion: state.measureVersion + 1 } : {}) });
    this.ctx.refresher.dataChanged();
  }

  /** Feeds the worker the session's stream again from its first byte (lost bytes, or another kept window). */
  refeed(sessionId: string): void {
    this.generationValue++;
    this.clear(sessionId);
    this.ctx.store.update({ streamBytes: 0, measureVersion: this.ctx.store.get().measureVersion + 1 });
    void this.subscribe(sessionId);
  }

  private resync(): void {
    const id = this.ctx.store.get().selectedSessionId;
    if (id === null) return;
    if (++this.resyncs > MAX_RESYNCS) {
      this.ctx.showError('Parts of this recording\'s data were lost on the way; the views show it only up to the loss.');
      return;
    }
    this.refeed(id);
  }

  private clear(sessionId: string | null): void {
    this.ctx.worker.reset(this.ctx.store.get().sessions.find((s) => s.id === sessionId)?.keepMinutes);
    this.feeder.reset();
    this.measureReader = new MeasureReader();
  }
}
