// The UI's controller: it composes the rooms that do the work and routes the API's events to
// them. Each room is one concern (station-context.ts says what they share):
//   sessions  session-actions.ts  start, open, stop, close sessions; the lists
//   feed      session-feed.ts     the selected session's stream into the worker, resyncs
//   view      view-options.ts     tab, flame options and zoom, folding, picked function
//   sorts     table-sorts.ts      the tables' sort orders
//   diff      diff-baseline.ts    the diff's options and its baseline recording's stream
//   sources   source-lines.ts     source lines and the Source view's file
//   measure   measure-actions.ts  exact measuring of methods
//   exports   export-actions.ts   exporting the recording
//   share     flame-share.ts      the flame graph's view copied as SVG, saved as HTML
//   history   session-history.ts  counters and program output
//   heap      heap-actions.ts     heap snapshots and the Heap tab's questions
//   refresh   view-refresh.ts     one re-query of the visible view
// What a switch of session, a changed session or a closed one means for all of them is
// decided here, and only here.

import type { SessionInfo, WorkstationApi, WorkstationEvent, ExportFormat } from '../../../structs/api/contract.js';
import type { Measurements } from '../../../structs/measure/measurements.js';
import { NO_RECORDING_VIEWS } from '../../../structs/analysis/recording-views.js';
import { initialState, isLive, type AppState } from './app-state.js';
import type { CountersHistory } from './counters-history.js';
import { DiffBaseline } from './diff-baseline.js';
import { ExportActions } from './export-actions.js';
import { FlameShare } from './flame-share.js';
import { HeapActions } from './heap-actions.js';
import { MeasureActions } from './measure-actions.js';
import { ProfileWorkerClient, type WorkerPort } from './profile-worker-client.js';
import type { ProgramOutput } from './program-output.js';
import { RefreshScheduler, browserTimers, type Timers } from './refresh-scheduler.js';
import { SessionActions } from './session-actions.js';
import { SessionFeed } from './session-feed.js';
import { SessionHistory } from './session-history.js';
import { SourceLines } from './source-lines.js';
import { selectedSession, stopHearing, type StationContext } from './station-context.js';
import { Store } from './store.js';
import { TableSorts } from './table-sorts.js';
import { ViewOptions } from './view-options.js';
import { ViewRefresh } from './view-refresh.js';

export { OUTPUT_REFRESH_MS } from './session-history.js';

/** How often live views refresh at most: well over the required twice a second, well under the worker's cost. */
export const REFRESH_PERIOD_MS = 250;

export interface WorkstationOptions {
  api: WorkstationApi;
  startWorker: () => WorkerPort;
  timers?: Timers;
}

export class Workstation {
  readonly store = new Store<AppState>(initialState());
  readonly sessions: SessionActions;
  readonly view: ViewOptions;
  readonly sorts: TableSorts;
  readonly diff: DiffBaseline;
  readonly sources: SourceLines;
  readonly measure: MeasureActions;
  readonly exports: ExportActions;
  readonly share: FlameShare;
  readonly heap: HeapActions;
  private readonly ctx: StationContext;
  private readonly feed: SessionFeed;
  private readonly history: SessionHistory;
  private readonly refresh: ViewRefresh;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(options: WorkstationOptions) {
    const timers = options.timers ?? browserTimers;
    const refresher = new RefreshScheduler(() => this.refresh.run(), REFRESH_PERIOD_MS, timers);
    this.ctx = {
      store: this.store, api: options.api, worker: new ProfileWorkerClient(options.startWorker()), refresher, timers,
      showError: (message) => this.showError(message),
    };
    this.feed = new SessionFeed(this.ctx);
    this.history = new SessionHistory(this.ctx);
    this.view = new ViewOptions(this.ctx);
    this.sorts = new TableSorts(this.ctx);
    this.diff = new DiffBaseline(this.ctx);
    this.sources = new SourceLines(this.ctx, () => this.feed.generation);
    this.measure = new MeasureActions(this.ctx);
    this.exports = new ExportActions(this.ctx);
    this.share = new FlameShare(this.ctx);
    this.heap = new HeapActions(this.ctx);
    this.sessions = new SessionActions(this.ctx, {
      upsert: (session) => this.upsertSession(session),
      forget: (sessionId) => this.forgetSession(sessionId),
      show: (sessionId) => {
        this.select(sessionId);
        this.view.setTab('flame');
      },
    });
    this.refresh = new ViewRefresh(this.ctx, { feed: this.feed, view: this.view, diff: this.diff, sources: this.sources });
  }

  get state(): AppState {
    return this.store.get();
  }

  /** Counters points per session (the charts read them; AppState.countersVersion says when they changed). */
  get counters(): CountersHistory {
    return this.history.counters;
  }

  /** Program output per session (AppState.outputVersion says when it changed). */
  get output(): ProgramOutput {
    return this.history.output;
  }

  /** The selected session's measured methods (see measureVersion). */
  get measurements(): Measurements {
    return this.feed.measurements;
  }

  selectedSession(): SessionInfo | undefined {
    return selectedSession(this.state);
  }

  /** Connects to the API's events and loads the lists. */
  start(): void {
    const { api, worker } = this.ctx;
    this.unsubscribers.push(api.onEvent((e) => this.onEvent(e)));
    if (api.onReconnected !== undefined) this.unsubscribers.push(api.onReconnected(() => this.onReconnected()));
    this.unsubscribers.push(worker.onFailure((message) => this.showError(message)));
    void this.sessions.refreshProcesses();
    void this.sessions.loadSessions();
    void this.view.loadSettings();
    void this.heap.load();
  }

  dispose(): void {
    for (const u of this.unsubscribers.splice(0)) u();
    this.ctx.refresher.cancel();
    this.history.dispose();
    this.ctx.worker.terminate();
  }

  showError(message: string): void {
    this.store.update({ error: message });
  }

  dismissError(): void {
    this.store.update({ error: null });
  }

  /** Shows a session: its stream is asked for from byte 0 and replayed into a fresh worker state. */
  select(sessionId: string | null): void {
    const state = this.state;
    const previous = state.selectedSessionId;
    if (sessionId === previous) return;
    // The old session's bytes are no longer wanted (unless the diff compares with it).
    if (previous !== null && previous !== this.diff.sessionId) stopHearing(this.ctx.api, previous);
    this.ctx.refresher.cancel();
    this.feed.restart(sessionId);
    this.refresh.reset();
    this.sources.reset();
    const diffOptions = state.diffOptions.baseline?.kind === 'window' || state.diffOptions.baseline?.kind === 'requests' ? { ...state.diffOptions, baseline: null } : state.diffOptions;
    this.store.update({
      functions: null, eventTables: null, recordingViews: NO_RECORDING_VIEWS, requestTimeline: null, sources: new Map(), sandwich: null, functionLines: null, sourceFile: null, timeline: null, timelineStack: null, diff: null, diffOptions,
      measureVersion: state.measureVersion + 1, measureNotice: null,
      selectedSessionId: sessionId, summary: null, flame: null, flameShape: null, parallel: null, streamBytes: 0, flameZoom: [],
      // Another recording: a search or a function picked in the last one would dim or empty this one's views.
      selectedFunction: null,
      flameOptions: { ...state.flameOptions, search: '', threadIds: null, processIds: null, eventType: null, endpoint: null, requests: null, window: state.flameOptions.window.kind === 'range' ? { kind: 'all' } : state.flameOptions.window },
    });
    if (sessionId !== null) {
      void this.feed.subscribe(sessionId);
      this.history.load(sessionId);
    }
  }

  /** Exports the selected recording (the Export view's button); `folded` writes the stacks with the views' folding applied. */
  exportRecording(format: ExportFormat, folded = false): Promise<void> {
    return this.exports.exportRecording(format, folded);
  }

  /** Stops the selected recording's running export; nothing of it stays on disk. */
  cancelExport(): Promise<void> {
    return this.exports.cancel();
  }

  /** The stack of a thread at a moment of the timeline (ms from the recording's start). */
  showStackAt(threadId: number, atMs: number): Promise<void> {
    return this.refresh.showStackAt(threadId, atMs);
  }

  /** Where one HTTP request's time went (index in the recording's order of requests). */
  showRequestTimeline(index: number): Promise<void> {
    return this.refresh.showRequestTimeline(index);
  }

  private onEvent(event: WorkstationEvent): void {
    switch (event.type) {
      case 'session':
        this.upsertSession(event.session);
        break;
      case 'stream':
        if (event.sessionId === this.state.selectedSessionId) this.feed.onChunk(event.offset, event.chunk);
        if (event.sessionId === this.diff.sessionId) this.diff.onChunk(event.offset, event.chunk);
        break;
      case 'counters':
        this.history.addPoint(event.sessionId, event.point);
        break;
      case 'export-progress':
      case 'export-reading':
        this.exports.onProgress(event);
        break;
      case 'open-progress':
        this.sessions.onOpenProgress(event);
        break;
      case 'output':
        this.history.addLines(event.sessionId, event.lines, event.partial);
        break;
      case 'session-closed':
        this.forgetSession(event.sessionId);
        break;
      case 'heap-progress':
      case 'heap-snapshot':
        this.heap.onEvent(event);
        break;
    }
  }

  /**
   * Browser mode's socket dropped and was made again: the new one hears nothing yet, so the
   * shown sessions are asked for again from the bytes already held, and the lists reloaded.
   */
  private onReconnected(): void {
    const selected = this.state.selectedSessionId;
    if (selected !== null) {
      void this.feed.subscribe(selected, this.feed.position);
      this.history.load(selected);
    }
    this.diff.onReconnected();
    void this.sessions.reloadSessions();
  }

  private upsertSession(session: SessionInfo): void {
    const sessions = [...this.state.sessions];
    const i = sessions.findIndex((s) => s.id === session.id);
    const before = i >= 0 ? sessions[i] : undefined;
    if (i >= 0) sessions[i] = session;
    else sessions.push(session);
    this.store.update({ sessions });
    const keep = session.keepMinutes ?? null;
    this.history.counters.keepMinutes(session.id, keep);
    // Another window: what the worker let go may be wanted again, so it reads the stream anew.
    if (before !== undefined && keep !== (before.keepMinutes ?? null) && session.id === this.state.selectedSessionId) {
      this.history.countersChanged();
      this.feed.refeed(session.id);
    }
    // The last bytes of a stopped session may come after its state changed: refresh once more.
    if (session.id === this.state.selectedSessionId && isLive(before) && !isLive(session)) this.ctx.refresher.dataChanged();
  }

  private forgetSession(sessionId: string): void {
    if (!this.state.sessions.some((s) => s.id === sessionId)) return;
    if (this.state.selectedSessionId === sessionId) this.select(null);
    this.diff.forget(sessionId);
    this.exports.forget(sessionId);
    this.store.update({ sessions: this.state.sessions.filter((s) => s.id !== sessionId) });
    this.history.forget(sessionId);
  }
}
