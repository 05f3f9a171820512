// Exporting the selected recording, and the progress of every session's export as the
// Export view shows it.

import type { ExportFormat, WorkstationEvent } from '../../../structs/api/contract.js';
import type { ExportStatus } from './app-state.js';
import { newJobId, selectedSession, type StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

type ExportProgress = Extract<WorkstationEvent, { type: 'export-progress' | 'export-reading' }>;

export class ExportActions {
  constructor(private readonly ctx: StationContext) {}

  /** Exports the selected recording; `folded` writes the stacks with the views' folding applied. */
  async exportRecording(format: ExportFormat, folded = false): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    if (session === undefined) return;
    const jobId = newJobId('export');
    this.set(session.id, { format, state: 'running', jobId, done: 0, total: 0, path: null, bytes: null, message: null });
    try {
      const result = await this.ctx.api.exportRecording({ sessionId: session.id, format, jobId, ...(folded ? { fold: this.ctx.store.get().fold } : {}) });
      this.set(session.id, { format, state: 'done', jobId: null, done: 1, total: 1, path: result.path, bytes: result.bytes, message: null });
    } catch (e) {
      // Cancelled as asked: the main process removed what it had begun to write.
      if (this.ctx.store.get().exports[session.id]?.cancelling === true) {
        this.set(session.id, { format, state: 'cancelled', jobId: null, done: 0, total: 0, path: null, bytes: null, message: 'Export cancelled: no file was written.' });
        return;
      }
      const message = userMessage(e, 'The export failed.');
      this.set(session.id, { format, state: 'failed', jobId: null, done: 0, total: 0, path: null, bytes: null, message });
    }
  }

  /** Stops the selected session's running export. */
  async cancel(): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    const status = session === undefined ? undefined : this.ctx.store.get().exports[session.id];
    if (session === undefined || status?.state !== 'running' || status.jobId === null || status.cancelling === true) return;
    this.set(session.id, { ...status, cancelling: true });
    try {
      await this.ctx.api.cancelJob(status.jobId);
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The export could not be cancelled.'));
    }
  }

  onProgress(event: ExportProgress): void {
    const current = this.ctx.store.get().exports[event.sessionId];
    const phase = event.type === 'export-reading' ? 'reading' : 'writing';
    if (current?.state === 'running') this.set(event.sessionId, { ...current, phase, done: event.done, total: event.total });
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
