// Exporting the selected recording, and the progress of every session's export as the
// Export view shows it.

import type { ExportFormat, WorkstationEvent } from '../../../structs/api/contract.js';
import type { ExportStatus } from './app-state.js';
import { selectedSession, type StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

type ExportProgress = Extract<WorkstationEvent, { type: 'export-progress' }>;

export class ExportActions {
  constructor(private readonly ctx: StationContext) {}

  /** Exports the selected recording; `folded` writes the stacks with the views' folding applied. */
  async exportRecording(format: ExportFormat, folded = false): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    if (session === undefined) return;
    this.set(session.id, { format, state: 'running', done: 0, total: 0, path: null, bytes: null, message: null });
    try {
      const result = await this.ctx.api.exportRecording({ sessionId: session.id, format, ...(folded ? { fold: this.ctx.store.get().fold } : {}) });
      this.set(session.id, { format, state: 'done', done: 1, total: 1, path: result.path, bytes: result.bytes, message: null });
    } catch (e) {
      const message = userMessage(e, 'The export failed.');
      this.set(session.id, { format, state: 'failed', done: 0, total: 0, path: null, bytes: null, message });
    }
  }

  onProgress(event: ExportProgress): void {
    const current = this.ctx.store.get().exports[event.sessionId];
    if (current?.state === 'running') this.set(event.sessionId, { ...current, done: event.done, total: event.total });
  }

  /** A closed session's export is no longer shown. */
  forget(sessionId: string): void {
    const { [sessionId]: _gone, ...exports } = this.ctx.store.get().exports;
    this.ctx.store.update({ exports });
  }

  private set(sessionId: string, status: ExportStatus): void {
    this.ctx.store.update({ exports: { ...this.ctx.store.get().exports, [sessionId]: status } });
  }
}
