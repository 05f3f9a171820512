// Exact measuring of methods in the selected session's process: the request and its revert.
// What was measured arrives in the stream (session-feed.ts reads it); these only ask.

import { selectedSession, sentence, type StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

export class MeasureActions {
  constructor(private readonly ctx: StationContext) {}

  /** Measures the methods a pattern (or a flame graph frame's name) names, in the selected session's process. */
  async measureMethod(pattern: string): Promise<void> {
    const state = this.ctx.store.get();
    const session = selectedSession(state);
    if (session === undefined || state.measuring) return;
    this.ctx.store.update({ measuring: true, tab: 'measure' });
    try {
      const reply = await this.ctx.api.measure({ sessionId: session.id, pattern });
      this.ctx.store.update({ measureNotice: sentence(reply.message) });
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The method could not be measured.'));
    } finally {
      this.ctx.store.update({ measuring: false });
    }
  }

  /** Gives one measured method (0: every one) its original code back. */
  async revertMeasured(measureId: number): Promise<void> {
    const state = this.ctx.store.get();
    const session = selectedSession(state);
    if (session === undefined || state.measuring) return;
    this.ctx.store.update({ measuring: true });
    try {
      const reply = await this.ctx.api.revertMeasure({ sessionId: session.id, measureId });
      this.ctx.store.update({ measureNotice: sentence(reply.message) });
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The method could not be reverted.'));
    } finally {
      this.ctx.store.update({ measuring: false });
    }
  }
}
