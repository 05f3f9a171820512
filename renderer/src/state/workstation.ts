// The UI's controller: it owns the API (through the bridge), the profile worker and the app
// state. API events and user actions come in here; the selected session's stream goes to the
// worker in order; the visible view is re-queried while data arrives.

import { MAX_SOURCE_METHODS, type AttachRequest, type ExportFormat, type LaunchRequest, type SessionInfo, type SourceFile, type WorkstationApi, type WorkstationEvent } from '../../../structs/api/contract.js';
import type { FunctionLines } from '../../../structs/analysis/function-lines.js';
import type { ZoomPath } from '../canvas/flame-zoom.js';
import { initialState, isLive, type AppState, type DiffOptions, type ExceptionsColumn, type ExportStatus, type FlameOptions, type FunctionsSort, type ParallelBy, type ParallelMode, type Tab, type TableSort, type TypesColumn } from './app-state.js';
import { analysisQuery, baselineSide } from './analysis-queries.js';
import { foldKey, type FoldOptions } from '../../../structs/analysis/fold-options.js';
import { CountersHistory } from './counters-history.js';
import { ProgramOutput } from './program-output.js';
import { ProfileWorkerClient, type WorkerPort } from './profile-worker-client.js';
import { RefreshScheduler, browserTimers, type Timers } from './refresh-scheduler.js';
import { Store } from './store.js';
import { StreamFeeder } from './stream-feeder.js';
import { MeasureReader, type Measurements } from '../../../structs/measure/measurements.js';
import { userMessage } from './user-message.js';
import { eventTableQuery, flameAnswerKey, flameQuery, parallelQuery } from './view-queries.js';
import { isEventMetric, type EventMetric } from '../../../structs/profile/event-metrics.js';

/** How often live views refresh at most: well over the required twice a second, well under the worker's cost. */
export const REFRESH_PERIOD_MS = 250;
/** How often the Output view takes new lines at most: a program may write thousands a second, a reader needs a few updates. */
export const OUTPUT_REFRESH_MS = 100;
/** Resubscriptions after lost stream bytes before giving up with a message. */
const MAX_RESYNCS = 3;
// How often a live session's source lines are asked for again (its new frames get lines).
const SOURCES_EVERY_MS = 3000;

export interface WorkstationOptions {
  api: WorkstationApi;
  startWorker: () => WorkerPort;
  timers?: Timers;
}

export class Workstation {
  readonly store = new Store<AppState>(initialState());
  readonly counters = new CountersHistory();
  readonly output = new ProgramOutput();
  private readonly api: WorkstationApi;
  private readonly timers: Timers;
  private outputTimer: unknown = null;
  private readonly worker: ProfileWorkerClient;
  private readonly feeder = new StreamFeeder();
  // The selected session's measuring records, read from the same bytes the worker gets.
  private measureReader = new MeasureReader();
  private readonly refresher: RefreshScheduler;
  private readonly unsubscribers: (() => void)[] = [];
  // Bumped on every switch of session: replies and chunks of an older one are dropped.
  private generation = 0;
  private subscribing = false;
  private resyncs = 0;
  private queriedSummaryError: string | null = null;
  // The diff's baseline session: its stream goes to the worker beside the selected one's.
  private readonly baselineFeeder = new StreamFeeder();
  private baselineSessionId: string | null = null;
  /** Columns the timeline is drawn in (its canvas's width): one bucket per pixel. */
  private timelineBuckets = 800;
  // When the session's source lines were last asked for, and whether it was live then: asked
  // every few seconds while it records (new frames), once more after it stopped.
  // A stopped session is asked again while its bytes still arrive (a replay): the worker puts
  // each function's hottest line from the samples it holds, and a first answer may precede them.
  private sourcesAsked = { atMs: 0, live: true, bytes: -1 };
  // The function and file the source panel's file was asked for (its text does not change).
  private sourceFileKey: string | null = null;

  constructor(options: WorkstationOptions) {
    this.api = options.api;
    this.timers = options.timers ?? browserTimers;
    this.worker = new ProfileWorkerClient(options.startWorker());
    this.refresher = new RefreshScheduler(() => this.refreshViews(), REFRESH_PERIOD_MS, this.timers);
  }

  get state(): AppState {
    return this.store.get();
  }

  /** Connects to the API's events and loads the lists. */
  start(): void {
    this.unsubscribers.push(this.api.onEvent((e) => this.onEvent(e)));
    if (this.api.onReconnected !== undefined) this.unsubscribers.push(this.api.onReconnected(() => this.onReconnected()));
    this.unsubscribers.push(this.worker.onFailure((message) => this.showError(message)));
    void this.refreshProcesses();
    void this.loadSessions();
    void this.loadSettings();
  }

  dispose(): void {
    for (const u of this.unsubscribers.splice(0)) u();
    this.refresher.cancel();
    if (this.outputTimer !== null) this.timers.clearTimeout(this.outputTimer);
    this.worker.terminate();
  }

  /** The selected session's measured methods (see measureVersion). */
  get measurements(): Measurements {
    return this.measureReader.measurements;
  }

  selectedSession(): SessionInfo | undefined {
    const { sessions, selectedSessionId } = this.state;
    return sessions.find((s) => s.id === selectedSessionId);
  }

  // ---- user actions ----

  setTab(tab: Tab): void {
    this.store.update({ tab });
    this.refresher.now();
  }

  showError(message: string): void {
    this.store.update({ error: message });
  }

  dismissError(): void {
    this.store.update({ error: null });
  }

  async refreshProcesses(): Promise<void> {
    this.store.update({ processesLoading: true });
    try {
      this.store.update({ processes: await this.api.listProcesses() });
    } catch (e) {
      this.showError(userMessage(e, 'The list of .NET processes could not be read.'));
    } finally {
      this.store.update({ processesLoading: false });
    }
  }

  launch(request: LaunchRequest): Promise<void> {
    return this.begin(() => this.api.launch(request));
  }

  /** Opens a recording file (an absolute path) as a new session and shows it. */
  async openRecording(path: string): Promise<void> {
    if (this.state.opening !== null) return;
    this.store.update({ opening: { path, phase: 'reading', done: 0, total: 0 } });
    try {
      await this.begin(() => this.api.openRecording({ path }), 'The recording could not be opened.');
    } finally {
      this.store.update({ opening: null });
    }
  }

  /** Whether the shell offers a native file dialog (Electron does; a browser page cannot see paths). */
  get canChooseFile(): boolean {
    return typeof this.api.chooseRecordingFile === 'function';
  }

  /** The native dialog, then openRecording with the chosen path; nothing when the user cancels. */
  async chooseAndOpenRecording(): Promise<void> {
    if (this.api.chooseRecordingFile === undefined) return;
    let path: string | null;
    try {
      path = await this.api.chooseRecordingFile();
    } catch (e) {
      this.showError(userMessage(e, 'The file dialog could not be shown; type the recording\'s path instead.'));
      return;
    }
    if (path !== null) await this.openRecording(path);
  }

  launchDemo(): Promise<void> {
    return this.begin(() => this.api.launchDemo());
  }

  attach(request: AttachRequest): Promise<void> {
    return this.begin(() => this.api.attach(request));
  }

  /** How much of the selected session the views keep (null: all of it); every page feeds its worker again. */
  async setKeepWindow(keepMinutes: number | null): Promise<void> {
    const session = this.selectedSession();
    if (session === undefined || keepMinutes === (session.keepMinutes ?? null)) return;
    try {
      this.upsertSession(await this.api.setKeepWindow({ sessionId: session.id, keepMinutes }));
    } catch (e) {
      this.showError(userMessage(e, 'The views could not change how much of the recording they keep.'));
    }
  }

  async stop(): Promise<void> {
    const session = this.selectedSession();
    if (session === undefined) return;
    try {
      this.upsertSession(await this.api.stop(session.id));
    } catch (e) {
      this.showError(userMessage(e, 'The recording could not be stopped.'));
    }
  }

  /** Shows a session: its stream is asked for from byte 0 and replayed into a fresh worker state. */
  select(sessionId: string | null): void {
    const previous = this.state.selectedSessionId;
    if (sessionId === previous) return;
    // The old session's bytes are no longer wanted (unless the diff compares with it).
    if (previous !== null && previous !== this.baselineSessionId) this.stopHearing(previous);
    this.generation++;
    this.resyncs = 0;
    this.queriedSummaryError = null;
    this.sourcesAsked = { atMs: 0, live: true, bytes: -1 };
    this.sourceFileKey = null;
    this.refresher.cancel();
    this.worker.reset(this.state.sessions.find((s) => s.id === sessionId)?.keepMinutes);
    this.feeder.reset();
    this.measureReader = new MeasureReader();
    const diffOptions = this.state.diffOptions.baseline?.kind === 'window' ? { ...this.state.diffOptions, baseline: null } : this.state.diffOptions;
    this.store.update({
      functions: null, eventTables: null, sources: new Map(), sandwich: null, functionLines: null, sourceFile: null, timeline: null, timelineStack: null, diff: null, diffOptions,
      measureVersion: this.state.measureVersion + 1, measureNotice: null,
      selectedSessionId: sessionId, summary: null, flame: null, flameShape: null, parallel: null, streamBytes: 0, flameZoom: [],
      flameOptions: { ...this.state.flameOptions, threadIds: null, processIds: null, eventType: null, window: this.state.flameOptions.window.kind === 'range' ? { kind: 'all' } : this.state.flameOptions.window },
    });
    if (sessionId !== null) {
      void this.subscribe(sessionId);
      void this.loadCounters(sessionId);
      void this.loadOutput(sessionId);
    }
  }

  /** Measures the methods a pattern (or a flame graph frame's name) names, in the selected session's process. */
  async measureMethod(pattern: string): Promise<void> {
    const session = this.selectedSession();
    if (session === undefined || this.state.measuring) return;
    this.store.update({ measuring: true, tab: 'measure' });
    try {
      const reply = await this.api.measure({ sessionId: session.id, pattern });
      this.store.update({ measureNotice: reply.message.endsWith('.') ? reply.message : `${reply.message}.` });
    } catch (e) {
      this.showError(userMessage(e, 'The method could not be measured.'));
    } finally {
      this.store.update({ measuring: false });
    }
  }

  /** Gives one measured method (0: every one) its original code back. */
  async revertMeasured(measureId: number): Promise<void> {
    const session = this.selectedSession();
    if (session === undefined || this.state.measuring) return;
    this.store.update({ measuring: true });
    try {
      const reply = await this.api.revertMeasure({ sessionId: session.id, measureId });
      this.store.update({ measureNotice: reply.message.endsWith('.') ? reply.message : `${reply.message}.` });
    } catch (e) {
      this.showError(userMessage(e, 'The method could not be reverted.'));
    } finally {
      this.store.update({ measuring: false });
    }
  }

  setFlameOptions(patch: Partial<FlameOptions>): void {
    const before = this.state.flameOptions;
    const next = { ...before, ...patch };
    // A type picked in the type or exceptions table belongs to its event type.
    if (patch.metric !== undefined && patch.metric !== before.metric && patch.eventType === undefined) next.eventType = null;
    // Flipping or regrouping the tree changes every frame's path: a zoom would land somewhere arbitrary.
    const reshaped = next.inverted !== before.inverted || next.groupByThread !== before.groupByThread || next.groupByProcess !== before.groupByProcess
      || next.asyncStacks !== before.asyncStacks;
    this.store.update({ flameOptions: next, ...(reshaped ? { flameZoom: [] } : {}) });
    // The search is the renderer's business: the tree stays the same.
    if (Object.keys(patch).some((k) => k !== 'search')) this.refresher.now();
  }

  /** The folding of every view; saved for the next run. */
  setFold(fold: FoldOptions): void {
    if (foldKey(fold) === foldKey(this.state.fold)) return;
    // Folding changes every frame's path: a zoom would land somewhere arbitrary.
    this.store.update({ fold, flameZoom: [] });
    this.refresher.now();
    this.api.saveSettings({ fold }).catch((e: unknown) => this.showError(userMessage(e, 'The folding could not be saved for the next run.')));
  }

  /** Picks a function (by its frame name) for the sandwich and the flame graph's highlight; null clears. */
  selectFunction(name: string | null): void {
    this.store.update({ selectedFunction: name, ...(name === null ? { sandwich: null } : {}) });
    this.refresher.now();
  }

  /** "Goto source": selects the function and shows its source with the time per line. */
  showSource(name: string): void {
    if (name !== this.state.selectedFunction) this.store.update({ functionLines: null });
    this.store.update({ selectedFunction: name, tab: 'source' });
    this.refresher.now();
  }

  setFunctionsSort(functionsSort: FunctionsSort): void {
    this.store.update({ functionsSort });
  }

  setTypesSort(typesSort: TableSort<TypesColumn>): void {
    this.store.update({ typesSort });
  }

  setExceptionsSort(exceptionsSort: TableSort<ExceptionsColumn>): void {
    this.store.update({ exceptionsSort });
  }

  /**
   * Focuses the flame graph on one type of an event kind (a row of the type or exceptions
   * table): `metric` unless an event type of the same kind is shown already (allocated
   * objects, live heap stay); null clears the focus.
   */
  focusEventType(metric: EventMetric, type: string | null, keepIf: readonly EventMetric[] = []): void {
    const current = this.state.flameOptions.metric;
    const shown = isEventMetric(current) && keepIf.includes(current) ? current : metric;
    this.setFlameOptions({ metric: shown, eventType: type });
  }

  /** The timeline's width in pixels changed: one bucket per pixel. */
  setTimelineBuckets(buckets: number): void {
    const b = Math.max(1, Math.min(4096, Math.round(buckets)));
    if (b === this.timelineBuckets) return;
    this.timelineBuckets = b;
    this.refresher.now();
  }

  /** The stack of a thread at a moment of the timeline (ms from the recording's start). */
  async showStackAt(threadId: number, atMs: number): Promise<void> {
    const generation = this.generation;
    try {
      const stack = await this.worker.stackNear(threadId, atMs, this.state.fold);
      if (generation === this.generation) this.store.update({ timelineStack: stack });
    } catch (e) {
      if (generation === this.generation) this.showError(userMessage(e, 'The profile worker could not answer.'));
    }
  }

  setDiffOptions(patch: Partial<DiffOptions>): void {
    const next = { ...this.state.diffOptions, ...patch };
    const session = next.baseline?.kind === 'session' ? next.baseline.sessionId : null;
    if (session !== this.baselineSessionId) {
      const old = this.baselineSessionId;
      if (old !== null && old !== this.state.selectedSessionId) this.stopHearing(old);
      this.baselineSessionId = session;
      this.baselineFeeder.reset();
      this.worker.baselineReset();
      this.store.update({ baselineSummary: null });
      if (session !== null) {
        this.api.subscribe(session).catch((e: unknown) => this.showError(userMessage(e, 'The recording to compare with could not be requested.')));
      }
    }
    this.store.update({ diffOptions: next, diff: null });
    this.refresher.now();
  }

  /** The flame graph's zoom (a click, the reset button); the flame view's renderer follows it. */
  setFlameZoom(flameZoom: ZoomPath): void {
    this.store.update({ flameZoom });
  }

  setParallelMode(parallelMode: ParallelMode): void {
    this.store.update({ parallelMode });
    this.refresher.now();
  }

  setParallelBy(parallelBy: ParallelBy): void {
    this.store.update({ parallelBy, parallel: null });
    this.refresher.now();
  }

  /** A range picked on the GC timeline becomes the flame graph's window. */
  setRange(fromMs: number, toMs: number): void {
    const lo = Math.max(0, Math.min(fromMs, toMs));
    const hi = Math.max(fromMs, toMs);
    this.setFlameOptions({ window: { kind: 'range', fromMs: lo, toMs: hi } });
  }

  /** Exports the selected recording; `folded` writes the stacks with the views' folding applied. */
  async exportRecording(format: ExportFormat, folded = false): Promise<void> {
    const session = this.selectedSession();
    if (session === undefined) return;
    this.setExport(session.id, { format, state: 'running', done: 0, total: 0, path: null, bytes: null, message: null });
    try {
      const result = await this.api.exportRecording({ sessionId: session.id, format, ...(folded ? { fold: this.state.fold } : {}) });
      this.setExport(session.id, { format, state: 'done', done: 1, total: 1, path: result.path, bytes: result.bytes, message: null });
    } catch (e) {
      const message = userMessage(e, 'The export failed.');
      this.setExport(session.id, { format, state: 'failed', done: 0, total: 0, path: null, bytes: null, message });
    }
  }

  /** Forgets a stopped session in the workstation, freeing what it holds there; every page drops it. */
  async closeSession(sessionId: string): Promise<void> {
    try {
      await this.api.closeSession(sessionId);
    } catch (e) {
      this.showError(userMessage(e, 'The recording could not be closed.'));
      return;
    }
    // The 'session-closed' event usually came first; after a dropped connection it may not come.
    this.forgetSession(sessionId);
  }

  // ---- internals ----

  private stopHearing(sessionId: string): void {
    // Best effort: the session may be closed already, and its chunks are ignored here anyway.
    this.api.unsubscribe(sessionId).catch(() => undefined);
  }

  private forgetSession(sessionId: string): void {
    if (!this.state.sessions.some((s) => s.id === sessionId)) return;
    if (this.state.selectedSessionId === sessionId) this.select(null);
    if (this.baselineSessionId === sessionId) this.setDiffOptions({ baseline: null });
    const { [sessionId]: _gone, ...exports } = this.state.exports;
    this.store.update({ sessions: this.state.sessions.filter((s) => s.id !== sessionId), exports });
    this.counters.forget(sessionId);
    this.output.forget(sessionId);
  }

  /**
   * Browser mode's socket dropped and was made again: the new one hears nothing yet, so the
   * shown sessions are asked for again from the bytes already held, and the lists reloaded.
   */
  private onReconnected(): void {
    const selected = this.state.selectedSessionId;
    if (selected !== null) {
      void this.subscribe(selected, this.feeder.position);
      void this.loadCounters(selected);
      void this.loadOutput(selected);
    }
    const baseline = this.baselineSessionId;
    if (baseline !== null && baseline !== selected) {
      this.api.subscribe(baseline, this.baselineFeeder.position).catch((e: unknown) => this.showError(userMessage(e, 'The recording to compare with could not be requested.')));
    }
    void this.reloadSessions();
  }

  /** The sessions as the workstation has them now: states that changed and sessions closed while the page was away. */
  private async reloadSessions(): Promise<void> {
    let sessions: SessionInfo[];
    try {
      sessions = await this.api.listSessions();
    } catch {
      return;
    }
    for (const s of sessions) this.upsertSession(s);
    const known = new Set(sessions.map((s) => s.id));
    for (const s of this.state.sessions) if (!known.has(s.id)) this.forgetSession(s.id);
  }

  private async begin(start: () => Promise<SessionInfo>, failure = 'The program could not be started under the profiler.'): Promise<void> {
    this.store.update({ starting: true });
    try {
      const session = await start();
      this.upsertSession(session);
      this.select(session.id);
      this.setTab('flame');
    } catch (e) {
      this.showError(userMessage(e, failure));
    } finally {
      this.store.update({ starting: false });
    }
  }

  private async loadSettings(): Promise<void> {
    try {
      const settings = await this.api.loadSettings();
      this.store.update({ fold: settings.fold });
      this.refresher.now();
    } catch {
      // The defaults serve; the views work without saved settings.
    }
  }

  private async loadSessions(): Promise<void> {
    try {
      const sessions = await this.api.listSessions();
      for (const s of sessions) this.upsertSession(s);
      // A page opened on a running recording (a reload, or `npm start -- --demo`) shows it at once.
      const live = sessions.filter((s) => isLive(s)).sort((a, b) => b.startedAtMs - a.startedAtMs)[0];
      if (live !== undefined && this.state.selectedSessionId === null) {
        this.select(live.id);
        this.setTab('flame');
      }
    } catch (e) {
      this.showError(userMessage(e, 'The list of recordings could not be read.'));
    }
  }

  private async subscribe(sessionId: string, fromOffset = 0): Promise<void> {
    const generation = this.generation;
    this.subscribing = true;
    try {
      await (fromOffset === 0 ? this.api.subscribe(sessionId) : this.api.subscribe(sessionId, fromOffset));
    } catch (e) {
      if (generation === this.generation) this.showError(userMessage(e, 'The recording\'s data could not be requested.'));
    } finally {
      if (generation === this.generation) this.subscribing = false;
    }
    if (generation === this.generation) this.refresher.now();
  }

  /** The session's counters so far: 'counters' events bring only new points, and a file session has no live ones at all. */
  private async loadCounters(sessionId: string): Promise<void> {
    try {
      this.counters.merge(sessionId, await this.api.countersHistory(sessionId));
    } catch {
      // The views work without the history (live points still arrive); the stream's own errors are the ones to show.
      return;
    }
    if (sessionId === this.state.selectedSessionId) this.store.update({ countersVersion: this.state.countersVersion + 1 });
  }

  /** The program's output so far: 'output' events bring only new lines. */
  private async loadOutput(sessionId: string): Promise<void> {
    try {
      this.output.merge(sessionId, await this.api.outputHistory(sessionId));
    } catch {
      // Live lines still arrive; the Output view just starts where this page started listening.
      return;
    }
    if (sessionId === this.state.selectedSessionId) this.store.update({ outputVersion: this.state.outputVersion + 1 });
  }

  /** New lines of the selected session: shown within OUTPUT_REFRESH_MS, however many came meanwhile. */
  private outputChanged(): void {
    if (this.outputTimer !== null) return;
    this.outputTimer = this.timers.setTimeout(() => {
      this.outputTimer = null;
      this.store.update({ outputVersion: this.state.outputVersion + 1 });
    }, OUTPUT_REFRESH_MS);
  }

  private onEvent(event: WorkstationEvent): void {
    switch (event.type) {
      case 'session':
        this.upsertSession(event.session);
        break;
      case 'stream':
        if (event.sessionId === this.state.selectedSessionId) this.onChunk(event.offset, event.chunk);
        if (event.sessionId === this.baselineSessionId) this.onBaselineChunk(event.offset, event.chunk);
        break;
      case 'counters':
        this.counters.add(event.sessionId, event.point);
        if (event.sessionId === this.state.selectedSessionId) this.store.update({ countersVersion: this.state.countersVersion + 1 });
        break;
      case 'export-progress': {
        const current = this.state.exports[event.sessionId];
        if (current?.state === 'running') this.setExport(event.sessionId, { ...current, done: event.done, total: event.total });
        break;
      }
      case 'open-progress': {
        const opening = this.state.opening;
        if (opening !== null && opening.path === event.path) this.store.update({ opening: { path: event.path, phase: event.phase, done: event.done, total: event.total } });
        break;
      }
      case 'output':
        this.output.add(event.sessionId, event.lines, event.partial);
        if (event.sessionId === this.state.selectedSessionId) this.outputChanged();
        break;
      case 'session-closed':
        this.forgetSession(event.sessionId);
        break;
    }
  }

  private onChunk(offset: number, chunk: Uint8Array): void {
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
    this.worker.chunk(r.offset, r.bytes);
    this.store.update({ streamBytes: this.feeder.position, ...(measured ? { measureVersion: this.state.measureVersion + 1 } : {}) });
    this.refresher.dataChanged();
  }

  private onBaselineChunk(offset: number, chunk: Uint8Array): void {
    const r = this.baselineFeeder.accept(offset, chunk);
    if (r.kind !== 'bytes') return;
    this.worker.baselineChunk(r.offset, r.bytes);
    if (this.state.tab === 'diff') this.refresher.dataChanged();
  }

  private resync(): void {
    const id = this.state.selectedSessionId;
    if (id === null) return;
    if (++this.resyncs > MAX_RESYNCS) {
      this.showError('Parts of this recording\'s data were lost on the way; the views show it only up to the loss.');
      return;
    }
    this.refeed(id);
  }

  /** Feeds the worker the session's stream again from its first byte (lost bytes, or another kept window). */
  private refeed(id: string): void {
    this.generation++;
    this.worker.reset(this.state.sessions.find((s) => s.id === id)?.keepMinutes);
    this.feeder.reset();
    this.measureReader = new MeasureReader();
    this.store.update({ streamBytes: 0, measureVersion: this.state.measureVersion + 1 });
    void this.subscribe(id);
  }

  private upsertSession(session: SessionInfo): void {
    const sessions = [...this.state.sessions];
    const i = sessions.findIndex((s) => s.id === session.id);
    const before = i >= 0 ? sessions[i] : undefined;
    if (i >= 0) sessions[i] = session;
    else sessions.push(session);
    this.store.update({ sessions });
    const keep = session.keepMinutes ?? null;
    this.counters.keepMinutes(session.id, keep);
    // Another window: what the worker let go may be wanted again, so it reads the stream anew.
    if (before !== undefined && keep !== (before.keepMinutes ?? null) && session.id === this.state.selectedSessionId) {
      this.store.update({ countersVersion: this.state.countersVersion + 1 });
      this.refeed(session.id);
    }
    // The last bytes of a stopped session may come after its state changed: refresh once more.
    if (session.id === this.state.selectedSessionId && isLive(before) && !isLive(session)) this.refresher.dataChanged();
  }

  private setExport(sessionId: string, status: ExportStatus): void {
    this.store.update({ exports: { ...this.state.exports, [sessionId]: status } });
  }

  private refreshSources(generation: number): void {
    const sessionId = this.state.selectedSessionId;
    if (sessionId === null || typeof this.api.sourceLines !== 'function') return;
    const live = isLive(this.state.sessions.find((s) => s.id === sessionId));
    const now = Date.now();
    const bytes = this.feeder.position;
    if (live ? now - this.sourcesAsked.atMs < SOURCES_EVERY_MS : !this.sourcesAsked.live && this.sourcesAsked.bytes === bytes) return;
    this.sourcesAsked = { atMs: now, live, bytes };
    this.api.sourceLines(sessionId)
      .then((table) => (table.frameIds.length === 0 || generation !== this.generation ? null : this.worker.sources(table)))
      .then((sources) => {
        if (sources === null || generation !== this.generation) return;
        this.store.update({ sources });
        // The source panel's figures were computed without these lines: again, with them.
        if (this.state.tab === 'source') this.refresher.now();
      })
      // Lines are a help, not the view: a failure leaves the names without them.
      .catch(() => undefined);
  }

  /** The file the source panel shows for `lines`, asked of the main process once per function and file. */
  private async loadSourceFile(generation: number, lines: FunctionLines): Promise<void> {
    const sessionId = this.state.selectedSessionId;
    const path = lines.file;
    const key = `${lines.name}\u0000${path ?? ''}`;
    if (sessionId === null || this.sourceFileKey === key) return;
    this.sourceFileKey = key;
    this.store.update({ sourceFile: null });
    if (path === null) return;
    let file: SourceFile;
    try {
      file = await this.api.sourceFile({ sessionId, path, methods: lines.methods.slice(0, MAX_SOURCE_METHODS) });
    } catch (e) {
      file = { path, text: null, message: userMessage(e, `${path} could not be read.`), spans: [] };
    }
    if (generation === this.generation && this.sourceFileKey === key) this.store.update({ sourceFile: file });
  }

  /** One refresh: the summary and the tree of the visible view, dropped if the session changed meanwhile. */
  private async refreshViews(): Promise<void> {
    if (this.state.selectedSessionId === null || this.worker.failed !== null) return;
    const generation = this.generation;
    const { tab, flameOptions, parallelMode, parallelBy, summary: lastSummary } = this.state;
    try {
      // The summary is cheap and the worker answers in order: show it without waiting for the tree.
      const summaryP = this.worker.summary().then((summary) => {
        if (generation !== this.generation) return;
        this.store.update({ summary });
        if (summary.error !== null && summary.error !== this.queriedSummaryError) {
          this.queriedSummaryError = summary.error;
          this.showError(summary.error);
        }
      });
      if (tab === 'flame' || tab === 'functions' || tab === 'source') this.refreshSources(generation);
      const { fold, selectedFunction, diffOptions } = this.state;
      const flameP = tab === 'flame' ? this.worker.flame({ ...flameQuery(flameOptions, lastSummary), fold }) : null;
      const parallelP = tab === 'parallel' ? this.worker.parallel({ ...parallelQuery(parallelMode, flameOptions.window, lastSummary, flameOptions.processIds), by: parallelBy, fold }) : null;
      const query = analysisQuery(flameOptions, fold, lastSummary);
      const functionsP = tab === 'functions' ? this.worker.functions(query) : null;
      const eventTablesP = tab === 'types' || tab === 'exceptions' ? this.worker.eventTables(eventTableQuery(flameOptions, lastSummary)) : null;
      const sandwichP = tab === 'functions' && selectedFunction !== null ? this.worker.sandwich(query, selectedFunction) : null;
      const linesP = tab === 'source' && selectedFunction !== null ? this.worker.functionLines(query, selectedFunction) : null;
      const timelineP = tab === 'timeline' ? this.worker.timeline({ buckets: this.timelineBuckets }) : null;
      // A baseline recording is compared once its first bytes are in the worker.
      const baselineReady = diffOptions.baseline?.kind !== 'session' || this.baselineFeeder.position > 0;
      const diffP = tab === 'diff' && diffOptions.baseline !== null && baselineReady
        ? this.worker.diff(baselineSide(diffOptions.baseline, query), { source: 'current', query }, diffOptions.normalize)
        : null;
      const baselineP = tab === 'diff' && diffOptions.baseline?.kind === 'session' ? this.worker.baselineSummary() : null;
      const [, flame, parallel, functions, sandwich, timeline, diff, baselineSummary, functionLines, eventTables] = await Promise.all([
        summaryP, flameP, parallelP, functionsP, sandwichP, timelineP, diffP, baselineP, linesP, eventTablesP,
      ]);
      if (generation !== this.generation) return;
      const patch: Partial<AppState> = {};
      if (functions !== null) patch.functions = functions;
      if (eventTables !== null) patch.eventTables = eventTables;
      if (tab === 'functions') patch.sandwich = sandwich;
      if (timeline !== null) patch.timeline = timeline;
      if (diff !== null) patch.diff = diff;
      if (baselineSummary !== null) patch.baselineSummary = baselineSummary;
      if (flame !== null) {
        patch.flame = flame;
        patch.flameShape = {
          inverted: flameOptions.inverted, groupByThread: flameOptions.groupByThread, groupByProcess: flameOptions.groupByProcess, answers: flameAnswerKey(flameOptions, fold),
        };
      }
      if (parallel !== null) patch.parallel = parallel;
      if (tab === 'source') patch.functionLines = functionLines;
      this.store.update(patch);
      if (functionLines !== null) void this.loadSourceFile(generation, functionLines);
    } catch (e) {
      if (generation === this.generation) this.showError(userMessage(e, 'The profile worker could not answer.'));
    }
  }
}
