// Starting, opening, stopping and closing sessions, and the lists of processes and sessions
// as the main process has them. What a new or changed session means for the shown one
// (select it, feed it again, drop it) is the controller's: these call it through a roster.

import type { AttachRequest, LaunchRequest, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { isLive } from './app-state.js';
import { newJobId, selectedSession, type StationContext } from './station-context.js';
import { userMessage } from './user-message.js';

type OpenProgress = Extract<WorkstationEvent, { type: 'open-progress' }>;

/** What the controller does with the sessions these actions find. */
export interface SessionRoster {
  /** A session as the main process has it now, new or changed. */
  upsert(session: SessionInfo): void;
  /** A session the main process no longer has. */
  forget(sessionId: string): void;
  /** Shows a session's flame graph. */
  show(sessionId: string): void;
}

export class SessionActions {
  constructor(private readonly ctx: StationContext, private readonly roster: SessionRoster) {}

  async refreshProcesses(): Promise<void> {
    this.ctx.store.update({ processesLoading: true });
    try {
      this.ctx.store.update({ processes: await this.ctx.api.listProcesses() });
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The list of .NET processes could not be read.'));
    } finally {
      this.ctx.store.update({ processesLoading: false });
    }
  }

  launch(request: LaunchRequest): Promise<void> {
    return this.begin(() => this.ctx.api.launch(request));
  }

  launchDemo(): Promise<void> {
    return this.begin(() => this.ctx.api.launchDemo());
  }

  attach(request: AttachRequest): Promise<void> {
    return this.begin(() => this.ctx.api.attach(request));
  }

  /** Opens a recording file (an absolute path) as a new session and shows it. */
  async openRecording(path: string): Promise<void> {
    if (this.ctx.store.get().opening !== null) return;
    const jobId = newJobId('open');
    this.ctx.store.update({ opening: { path, jobId, cancelling: false, phase: 'reading', done: 0, total: 0 } });
    try {
      // A cancelled open is what the user asked for: no error, the sessions and views as they were.
      await this.begin(() => this.ctx.api.openRecording({ path, jobId }), 'The recording could not be opened.', () => this.ctx.store.get().opening?.cancelling === true);
    } finally {
      this.ctx.store.update({ opening: null });
    }
  }

  /** Whether the shell offers a native file dialog (Electron does; a browser page cannot see paths). */
  get canChooseFile(): boolean {
    return typeof this.ctx.api.chooseRecordingFile === 'function';
  }

  /** The native dialog, then openRecording with the chosen path; nothing when the user cancels. */
  async chooseAndOpenRecording(): Promise<void> {
    if (this.ctx.api.chooseRecordingFile === undefined) return;
    let path: string | null;
    try {
      path = await this.ctx.api.chooseRecordingFile();
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The file dialog could not be shown; type the recording\'s path instead.'));
      return;
    }
    if (path !== null) await this.openRecording(path);
  }

  onOpenProgress(event: OpenProgress): void {
    const opening = this.ctx.store.get().opening;
    if (opening !== null && opening.path === event.path) this.ctx.store.update({ opening: { ...opening, phase: event.phase, done: event.done, total: event.total } });
  }

  /** Stops the file being opened (its worker ends in the main process); openRecording then ends quietly. */
  async cancelOpen(): Promise<void> {
    const opening = this.ctx.store.get().opening;
    if (opening === null || opening.cancelling) return;
    this.ctx.store.update({ opening: { ...opening, cancelling: true } });
    try {
      await this.ctx.api.cancelJob(opening.jobId);
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The open could not be cancelled.'));
    }
  }

  /** How much of the selected session the views keep (null: all of it); every page feeds its worker again. */
  async setKeepWindow(keepMinutes: number | null): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    if (session === undefined || keepMinutes === (session.keepMinutes ?? null)) return;
    try {
      this.roster.upsert(await this.ctx.api.setKeepWindow({ sessionId: session.id, keepMinutes }));
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The views could not change how much of the recording they keep.'));
    }
  }

  async stop(): Promise<void> {
    const session = selectedSession(this.ctx.store.get());
    if (session === undefined) return;
    try {
      this.roster.upsert(await this.ctx.api.stop(session.id));
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The recording could not be stopped.'));
    }
  }

  /** Forgets a stopped session in the workstation, freeing what it holds there; every page drops it. */
  async closeSession(sessionId: string): Promise<void> {
    try {
      await this.ctx.api.closeSession(sessionId);
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The recording could not be closed.'));
      return;
    }
    // The 'session-closed' event usually came first; after a dropped connection it may not come.
    this.roster.forget(sessionId);
  }

  /** The first list of sessions; a page opened on a running recording shows it. */
  async loadSessions(): Promise<void> {
    try {
      const sessions = await this.ctx.api.listSessions();
      for (const s of sessions) this.roster.upsert(s);
      // A page opened on a running recording (a reload, or `npm start -- --demo`) shows it at once.
      const live = sessions.filter((s) => isLive(s)).sort((a, b) => b.startedAtMs - a.startedAtMs)[0];
      if (live !== undefined && this.ctx.store.get().selectedSessionId === null) this.roster.show(live.id);
    } catch (e) {
      this.ctx.showError(userMessage(e, 'The list of recordings could not be read.'));
    }
  }

  /** The sessions as the workstation has them now: states that changed and sessions closed while the page was away. */
  async reloadSessions(): Promise<void> {
    let sessions: SessionInfo[];
    try {
      sessions = await this.ctx.api.listSessions();
    } catch {
      return;
    }
    for (const s of sessions) this.roster.upsert(s);
    const known = new Set(sessions.map((s) => s.id));
    for (const s of this.ctx.store.get().sessions) if (!known.has(s.id)) this.roster.forget(s.id);
  }

  private async begin(start: () => Promise<SessionInfo>, failure = 'The program could not be started under the profiler.', cancelled = (): boolean => false): Promise<void> {
    this.ctx.store.update({ starting: true });
    try {
      const session = await start();
      this.roster.upsert(session);
      this.roster.show(session.id);
    } catch (e) {
      if (!cancelled()) this.ctx.showError(userMessage(e, failure));
    } finally {
      this.ctx.store.update({ starting: false });
    }
  }
}
