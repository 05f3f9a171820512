// Exact measuring of methods in the selected session's process: the request and its revert.
// What was measured arrives in the stream (session-feed.ts reads it); these only ask.

import type { MeasureReply } from '../../../structs/api/contract.js';
import { selectedSession, sentence, type StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

export class MeasureActions {
  constructor(private readonly ctx: StationContext) {}

  /** Measures the methods a pattern (or a flame graph frame's name) names, in the selected session's process. */
  measureMethod(pattern: string): Promise<void> {
    return this.ask((sessionId) => this.ctx.api.measure({ sessionId, pattern }), 'The method could not be measured.', true);
  }

  /** Gives one measured method (0: every one) its original code back. */
  revertMeasured(measureId: number): Promise<void> {
    return this.ask((sessionId) => this.ctx.api.revertMeasure({ sessionId, measureId }), 'The method could not be reverted.', false);
  }

  // One request at a time: the Measure view disables its buttons while `measuring`, and the
  // reply's sentence is what the view says of it.
  private async ask(call: (sessionId: string) => Promise<MeasureReply>, failure: string, showView: boolean): Promise<void> {
    const state = this.ctx.store.get();
    const session = selectedSession(state);
    if (session === undefined || state.measuring) return;
    this.ctx.store.update({ measuring: true, ...(showView ? { tab: 'measure' as const } : {}) });
    try {
      const reply = await call(session.id);
      this.ctx.store.update({ measureNotice: sentence(reply.message) });
    } catch (e) {
      this.ctx.showError(userMessage(e, failure));
    } finally {
      this.ctx.store.update({ measuring: false });
    }
  }
}
