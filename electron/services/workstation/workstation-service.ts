// The workstation's main-process service: the WorkstationApi (structs/api/contract.ts) over
// recording sessions, live ones (recording/live-session.ts, recording/fallback-session.ts) and
// recording files opened as sessions (file-session.ts). Named apart from the renderer's
// Workstation controller (renderer/src/state/workstation.ts), which is its client. Both
// adapters (Electron's IPC in electron/main.ts, browser mode's WebSocket) connect a client per
// window or tab and validate the renderer's arguments before calling in (services/api/).

import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type {
  AttachRequest, CountersPoint, ExportRequest, ExportResult, LaunchRequest, OpenRecordingRequest, OutputHistory, ProcessInfo, SessionInfo,
  Unsubscribe, WorkstationApi, WorkstationEvent, MeasureReply, MeasureRequest, RevertMeasureRequest, SourceLineTable,
  SourceFile, SourceFileRequest, KeepWindowRequest,
} from '../../../structs/api/contract.js';
import { demoProgramPath } from '../demo/demo-program.js';
import { commandLineOf } from '../../../structs/text/command-line.js';
import { connectTimeoutMs } from '../recording/profiled-launch.js';
import { attachSession, launchSession, type LaunchStart } from '../recording/start-session.js';
import { lingeringSentence, ProcessBook } from '../recording/process-tree.js';
import { eventEnvironment, profilerLibraryPath } from '../profiler/profiler-env.js';
import { UserError } from '../errors/user-error.js';
import { describeAttachTarget } from './attach-target.js';
import { asyncAutoChoice, requestedEvents, workItemRate } from './recording-switches.js';
import { pageHistory } from '../counters/counters-series.js';
import { EventHub, type Drained, type HubClient } from './event-hub.js';
import { defaultExportName, defaultExportsDir, ensureExportsDir, exportPathMismatch, writeExport } from './export-recording.js';
import { openFileSession } from './file-session.js';
import { CancellableJobs, checkCancelled, JobCancelled } from './cancellable-jobs.js';
import { resolveLaunch } from './launch-command.js';
import { listProcesses as discoverProcesses } from './processes.js';
import type { RecordingSession } from '../recording/recording-session.js';
import { readBack, type ReadBack } from '../recording/read-back.js';
import { foldRecording } from '../../../structs/analysis/fold-recording.js';
import { SettingsStore } from './settings-store.js';
import { SourceLookup } from './source-lookup.js';
import { SessionStream } from '../spool/session-stream.js';
import { ensureSpoolDir, spoolDir, spoolFileName } from '../spool/spool-dir.js';
import { privateDirProblem } from '../files/private-dir.js';
import { heapOperations, HeapSnapshots, snapshotPid } from '../heap/heap-snapshots.js';

export const DEFAULT_INTERVAL_MS = 10;

export interface WorkstationServiceOptions {
  /** The profiler library (default: native-profiler/build/, or CLRSCOPE_PROFILER_PATH). */
  libraryPath?: string;
  /** The bundled demo program (default test/targets/Demo/bin/out/Demo.dll in the checkout). */
  demoProgramPath?: string;
  /** The .NET host that runs the demo (default "dotnet" on PATH). */
  dotnet?: string;
  /** Where exports go when the request names no path (default <tmpdir>/clrscope-exports-<uid>, private). */
  exportsDir?: string;
  /** How often counters are read (default 250 ms). */
  countersIntervalMs?: number;
  /** How long a session waits for a runtime before saying none connected (default 10 s, or CLRSCOPE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Lists .NET processes (default: the discovery service). */
  listProcesses?: () => Promise<ProcessInfo[]>;
  /** Where settings are kept (default: $CLRSCOPE_CONFIG_DIR, $XDG_CONFIG_HOME/clrscope or ~/.config/clrscope). */
  settingsDir?: string;
  /**
   * A private folder for the sessions' streams as they arrive (default: the spool folder,
   * $XDG_CACHE_HOME/clrscope/spool); null keeps them in memory. A session's file goes when the
   * session is closed or the workstation shuts down; one killed leaves it for `clrscope record`'s
   * recovery.
   */
  spoolDir?: string | null;
}

/** One adapter connection (a window, a tab): the API with its own stream subscriptions. */
export interface WorkstationClient extends WorkstationApi {
  /** Drops the client's listeners and subscriptions. */
  close(): void;
  /** How replays wait for this client's transport between steps (browser mode: its socket's buffer); by default they yield a turn. */
  setDrained(drained: Drained): void;
}

export interface WorkstationService extends WorkstationApi {
  /** A new client: it hears every event, and the 'stream' events of the sessions it subscribed to. */
  connect(): WorkstationClient;
  hasSession(id: string): boolean;
  hasHeapSnapshot(id: string): boolean;
  /** Where a session's stream is kept (tests, benchmarks): its spool file, its length, the bytes held in memory (0 while spooling works). */
  streamStorage(id: string): StreamStorage;
  /** The session object itself, for tests and benchmarks that check what the main process holds for it. */
  sessionObject(id: string): RecordingSession;
  /** Stops every session, waits for launched programs to exit, and closes every client. */
  shutdown(): Promise<void>;
}

export interface StreamStorage {
  path: string | undefined;
  length: number;
  bytesInMemory: number;
}

class WorkstationCore {
  readonly hub = new EventHub();
  private readonly sessions = new Map<string, RecordingSession>();
  private nextId = 1;
  private shuttingDown = false;
  private exportsDir: Promise<string> | undefined;
  private readonly sources = new SourceLookup();
  /** Opens and exports a page may cancel. */
  readonly jobs = new CancellableJobs();
  private spoolDir: Promise<string | undefined> | undefined;
  // Minutes each session's views keep (SessionInfo.keepMinutes): a setting of the workstation's
  // pages, not of the recording, so it is put on each SessionInfo on its way out.
  private readonly keptWindows = new Map<string, number>();

  readonly settings: SettingsStore;
  readonly heaps = new HeapSnapshots((event) => this.emit(event));

  constructor(private readonly options: WorkstationServiceOptions) {
    this.settings = new SettingsStore(options.settingsDir);
  }

  /** The folder exports go to when a request names none; the default one is found once. */
  private exportsFolder(): Promise<string> {
    if (this.options.exportsDir !== undefined) return ensureExportsDir(this.options.exportsDir);
    this.exportsDir ??= defaultExportsDir().catch((err: unknown) => {
      this.exportsDir = undefined;
      throw new UserError(`Cannot create a private exports folder in the temporary folder: ${privateDirProblem(err, tmpdir())}.`);
    });
    return this.exportsDir;
  }

  /** The folder sessions spool to, found (and made private) once; undefined keeps streams in memory. */
  private spoolFolder(): Promise<string | undefined> {
    this.spoolDir ??= (async () => {
      if (this.options.spoolDir === null) return undefined;
      try {
        return this.options.spoolDir ?? await ensureSpoolDir();
      } catch (err) {
        console.error(`clrscope: recordings are kept in memory: the spool folder ${spoolDir()} cannot be used (${privateDirProblem(err, spoolDir())}).`);
        return undefined;
      }
    })();
    return this.spoolDir;
  }

  private async newStream(): Promise<SessionStream> {
    const dir = await this.spoolFolder();
    return SessionStream.create(dir, spoolFileName(), (sentence) => console.error(`clrscope: ${sentence}`));
  }

  hasSession(id: string): boolean {
    return this.sessions.has(id);
  }

  session(id: string): RecordingSession {
    const session = this.sessions.get(id);
    if (session === undefined) throw new UserError(`There is no session '${id}'.`);
    return session;
  }

  listSessions(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => this.info(s.snapshot));
  }

  async listProcesses(): Promise<ProcessInfo[]> {
    return (this.options.listProcesses ?? discoverProcesses)();
  }

  private libraryPath(): string {
    const path = this.options.libraryPath ?? profilerLibraryPath();
    if (!existsSync(path)) {
      throw new UserError(`The clrscope profiler library is missing at ${path}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
    }
    return path;
  }

  private assertRunning(): void {
    if (this.shuttingDown) throw new UserError('The workstation is shutting down.');
  }

  private newId(): string {
    return `s${this.nextId++}`;
  }

  /** A session's SessionInfo as the pages get it: with the window its views keep. */
  private info(snapshot: SessionInfo): SessionInfo {
    const minutes = this.keptWindows.get(snapshot.id);
    const { keepMinutes: _none, ...rest } = snapshot;
    return minutes === undefined ? rest : { ...rest, keepMinutes: minutes };
  }

  /** Changes the window a session's views keep; every page hears the session again and feeds its worker anew. */
  setKeepWindow(request: KeepWindowRequest): SessionInfo {
    const session = this.session(request.sessionId);
    if (request.keepMinutes === null) this.keptWindows.delete(session.id);
    else this.keptWindows.set(session.id, request.keepMinutes);
    const info = this.info(session.snapshot);
    this.hub.broadcast({ type: 'session', session: info });
    return info;
  }

  /** What every session this workstation starts has in common (recording/start-session.ts). */
  private sessionStart(label: string, intervalMs: number, wall: boolean, libraryPath: string, keepMinutes: number | undefined): Omit<LaunchStart, 'command' | 'args' | 'output'> {
    return {
      newId: () => this.newId(),
      label,
      intervalMs,
      wall,
      libraryPath,
      newStream: () => this.newStream(),
      emit: (event) => this.emit(event),
      countersIntervalMs: this.options.countersIntervalMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? connectTimeoutMs(),
      onSession: (session) => {
        // Before the session's first event, so every page hears its window from the start.
        if (keepMinutes !== undefined) this.keptWindows.set(session.id, keepMinutes);
        this.sessions.set(session.id, session);
      },
    };
  }

  private emit(event: WorkstationEvent): void {
    if (event.type === 'stream') this.hub.stream(event);
    else if (event.type === 'session') this.hub.broadcast({ type: 'session', session: this.info(event.session) });
    else this.hub.broadcast(event);
  }

  async launch(request: LaunchRequest, label?: string): Promise<SessionInfo> {
    this.assertRunning();
    const libraryPath = this.libraryPath();
    const intervalMs = request.intervalMs ?? DEFAULT_INTERVAL_MS;
    if (request.cwd !== undefined && !isAbsolute(request.cwd)) throw new UserError(`The working directory must be an absolute path, not ${request.cwd}.`);
    const spawnable = await resolveLaunch(request.command, request.args, request.cwd);
    const children = request.children === true;
    // What each other .NET process the program starts is, read while it runs, for the end.
    const processes = new ProcessBook();
    const refused: number[] = [];
    const { session, launch } = await launchSession({
      ...this.sessionStart(label ?? commandLineOf(request.command, request.args), intervalMs, request.wall ?? true, libraryPath, request.keepMinutes),
      command: spawnable.command,
      args: spawnable.args,
      commandText: request.command,
      output: 'session',
      // The Counters view's thread-pool, allocation-rate and memory figures (shim/engine.cpp).
      extraEnv: { CLRSCOPE_RUNTIME_COUNTERS: '1', ...eventEnvironment(requestedEvents(request)) },
      // Every process into the session's one stream, as it arrives: the views show them together.
      children,
      mergeChildren: true,
      onStream: (stream) => { if (stream.pid !== undefined) processes.note(stream.pid); },
      onRefused: (pid) => {
        if (pid === undefined) return;
        refused.push(pid);
        processes.note(pid);
      },
    });
    void session.ended.then(async () => {
      // As record does: the processes the program started that still run with the profiler loaded.
      const followed = session.snapshot.pid;
      const others = [...launch.collector.streams.map((s) => s.pid), ...refused].filter((pid): pid is number => pid !== undefined && pid !== followed);
      const sentence = await lingeringSentence(others, libraryPath, processes, children);
      if (sentence !== undefined) session.note(sentence);
    });
    // A shutdown that began while the program started: it missed this session, so stop it here.
    if (this.shuttingDown) void session.close();
    return this.info(session.snapshot);
  }

  async launchDemo(): Promise<SessionInfo> {
    const program = this.options.demoProgramPath ?? demoProgramPath();
    if (!existsSync(program)) {
      throw new UserError(`The demo program is not built (${program} is missing): run 'bash scripts/setup.sh' or 'npm run build:targets' first.`);
    }
    return this.launch({ command: this.options.dotnet ?? 'dotnet', args: [program] }, 'Demo order service (bundled demo)');
  }

  async attach(request: AttachRequest): Promise<SessionInfo> {
    this.assertRunning();
    const libraryPath = this.libraryPath();
    const intervalMs = request.intervalMs ?? DEFAULT_INTERVAL_MS;
    const label = await describeAttachTarget(request.pid);
    const auto = request.asyncAuto === true ? asyncAutoChoice(await workItemRate(request.pid)) : undefined;
    const started = await attachSession({
      ...this.sessionStart(label, intervalMs, request.wall ?? true, libraryPath, request.keepMinutes),
      pid: request.pid,
      events: requestedEvents(auto?.async === true ? { ...request, async: true, asyncSource: 'events' } : request),
      // The Counters view, as for a launch.
      runtimeCounters: true,
      onSessionDropped: (dropped) => this.sessions.delete(dropped.id),
    });
    // The choice is said on the profiler's session; an EventPipe session instead has no async stacks.
    if (auto !== undefined && started.kind === 'profiler') started.session.note(auto.note);
    if (this.shuttingDown) void started.session.close();
    return this.info(started.session.snapshot);
  }

  async stop(id: string): Promise<SessionInfo> {
    return this.info(await this.session(id).stop());
  }

  /** Reads a recording file into a new, stopped session (openFileSession); progress goes to every client. */
  async openRecording(request: OpenRecordingRequest): Promise<SessionInfo> {
    this.assertRunning();
    const { path } = request;
    if (!isAbsolute(path)) throw new UserError(`The recording path must be absolute, not ${path}.`);
    return this.jobs.run(request.jobId, (signal) => this.openFile(path, signal));
  }

  private async openFile(path: string, signal: AbortSignal | undefined): Promise<SessionInfo> {
    const stream = await this.newStream();
    const onProgress = (phase: 'reading' | 'preparing', done: number, total: number): void => this.emit({ type: 'open-progress', path, phase, done, total });
    const session = await openFileSession(path, stream, () => this.newId(), onProgress, signal);
    this.sessions.set(session.id, session);
    this.emit({ type: 'session', session: session.snapshot });
    return this.info(session.snapshot);
  }

  countersHistory(id: string): CountersPoint[] {
    return pageHistory(this.session(id).countersHistory());
  }

  /** A launched program's kept output; sessions that launched nothing (attach, file, EventPipe fallback) have none. */
  outputHistory(id: string): OutputHistory {
    return this.session(id).outputHistory();
  }

  measure(request: MeasureRequest): Promise<MeasureReply> {
    return this.session(request.sessionId).measure(request.pattern);
  }

  revertMeasure(request: RevertMeasureRequest): Promise<MeasureReply> {
    return this.session(request.sessionId).revertMeasure(request.measureId);
  }

  /** The source lines of the session's frames known so far (source-lookup.ts). */
  sourceLines(id: string): SourceLineTable {
    return this.sources.lines(this.session(id));
  }

  /** A source file for the panel, only one the session's frames' lines name. */
  sourceFile(request: SourceFileRequest): SourceFile {
    return this.sources.file(this.session(request.sessionId), request);
  }

  /**
   * Replays the session's stream from `from` to this client, read from disk a step at a time
   * with the client's back-pressure between steps, then keeps it subscribed to the live bytes.
   */
  async subscribe(client: HubClient, id: string, from = 0): Promise<void> {
    const session = this.session(id);
    const stream = session.stream;
    if (from > stream.length) throw new UserError(`Session ${id}'s stream holds ${stream.length} bytes, so it cannot be resumed from byte ${from}.`);
    const ticket = client.beginReplay(id);
    let at = from;
    for (;;) {
      // Caught up: live chunks go to the client from this same turn on, so none falls between.
      if (at >= stream.length) {
        client.subscribe(id);
        return;
      }
      let chunk: Uint8Array;
      try {
        chunk = await stream.read(at);
      } catch (err) {
        if (!client.replayCurrent(id, ticket) || !this.sessions.has(id)) return;
        throw new UserError(`Session ${id}'s recording could not be read back: ${(err as Error).message.replace(/[.\s]+$/, '')}.`);
      }
      if (!client.replayCurrent(id, ticket)) return;
      client.deliver({ type: 'stream', sessionId: id, offset: at, chunk });
      at += chunk.length;
      await client.drained();
      if (!client.replayCurrent(id, ticket)) return;
    }
  }

  unsubscribe(client: HubClient, id: string): void {
    client.unsubscribe(id);
  }

  /** Forgets a finished session and frees what it holds; every client hears 'session-closed'. */
  async closeSession(id: string): Promise<void> {
    const session = this.session(id);
    const { state } = session.snapshot;
    if (state === 'starting' || state === 'recording') throw new UserError(`Session ${id} is still recording: stop it before closing it.`);
    this.sessions.delete(id);
    this.keptWindows.delete(id);
    this.heaps.forgetSession(id);
    this.hub.forget(id);
    await session.close();
    this.emit({ type: 'session-closed', sessionId: id });
  }

  exportRecording(request: ExportRequest): Promise<ExportResult> {
    return this.jobs.run(request.jobId, (signal) => this.exportSession(request, signal));
  }

  private async exportSession(request: ExportRequest, signal: AbortSignal | undefined): Promise<ExportResult> {
    const session = this.session(request.sessionId);
    if (session.recording === undefined) throw new UserError(session.nothingToExport());
    let path = request.path;
    if (path === undefined) {
      const dir = await this.exportsFolder();
      path = join(dir, defaultExportName(session.snapshot.label, session.id, request.format));
    } else if (!isAbsolute(path)) {
      throw new UserError(`The export path must be absolute, not ${path}.`);
    }
    const progress = (done: number, total: number): void => this.emit({ type: 'export-progress', sessionId: session.id, done, total });
    const mismatch = exportPathMismatch(request.format, path);
    if (mismatch !== undefined) throw new UserError(mismatch);
    // pprof without folding needs the samples only summed per stack and thread (read-back.ts):
    // read back that way, an hour's export holds the sums, not every sample.
    let back: ReadBack | undefined;
    const what = `The ${request.format} export of session ${session.id}`;
    const reading = (done: number, total: number): void => {
      checkCancelled(signal, what);
      this.emit({ type: 'export-reading', sessionId: session.id, done, total });
    };
    try {
      // Its own event: export progress counts the writer's steps, from 0 of 1, as before.
      back = await readBack(session, request.format === 'pprof' && request.fold === undefined, reading);
    } catch (err) {
      if (err instanceof JobCancelled) throw err;
      throw new UserError(`Session ${session.id}'s recording could not be read back for the export: ${(err as Error).message.replace(/[.\s]+$/, '')}.`);
    }
    if (back === undefined) throw new UserError(session.nothingToExport());
    checkCancelled(signal, what);
    const folded = request.fold === undefined ? back.recording : foldRecording(back.recording, request.fold);
    // A .clrscope keeps the heap snapshots taken of the session's process too.
    const heaps = request.format === 'clrscope' ? await this.heaps.clrheapsOf(session.id) : undefined;
    return writeExport(folded, session.countersHistory(), request.format, path, progress, back.summed?.sums, () => checkCancelled(signal, what), heaps);
  }

  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    await this.heaps.closeAll();
    // Sessions that start meanwhile stop themselves (launch, attach); these are the rest. Their
    // spool files go with them: quitting drops what was not saved, as it always did.
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
  }
}

function clientApi(core: WorkstationCore, client: HubClient): WorkstationClient {
  return {
    listProcesses: () => core.listProcesses(),
    listSessions: async () => core.listSessions(),
    launch: (request) => core.launch(request),
    launchDemo: () => core.launchDemo(),
    attach: (request) => core.attach(request),
    stop: (id) => core.stop(id),
    subscribe: (id, from) => core.subscribe(client, id, from),
    unsubscribe: async (id) => core.unsubscribe(client, id),
    closeSession: (id) => core.closeSession(id),
    exportRecording: (request) => core.exportRecording(request),
    openRecording: (request) => core.openRecording(request),
    cancelJob: async (jobId) => core.jobs.cancel(jobId),
    countersHistory: async (id) => core.countersHistory(id),
    outputHistory: async (id) => core.outputHistory(id),
    loadSettings: async () => core.settings.load(),
    saveSettings: async (settings) => core.settings.save(settings),
    measure: (request) => core.measure(request),
    revertMeasure: (request) => core.revertMeasure(request),
    setKeepWindow: async (request) => core.setKeepWindow(request),
    sourceLines: async (id) => core.sourceLines(id),
    sourceFile: async (request) => core.sourceFile(request),
    ...heapOperations(core.heaps, (id) => snapshotPid(core.session(id).snapshot), core.jobs),
    onEvent: (listener): Unsubscribe => client.onEvent(listener),
    close: () => client.close(),
    setDrained: (drained) => client.setDrained(drained),
  };
}

export function createWorkstationService(options: WorkstationServiceOptions = {}): WorkstationService {
  const core = new WorkstationCore(options);
  // The workstation is itself a client too, for callers that need no adapter (tests, the CLI).
  const { close: _ownClose, setDrained: _ownDrained, ...own } = clientApi(core, core.hub.client());
  const clients = new Set<WorkstationClient>();
  return {
    ...own,
    connect(): WorkstationClient {
      const client = clientApi(core, core.hub.client());
      clients.add(client);
      return {
        ...client,
        close: () => {
          clients.delete(client);
          client.close();
        },
      };
    },
    hasSession: (id) => core.hasSession(id),
    hasHeapSnapshot: (id) => core.heaps.has(id),
    sessionObject: (id) => core.session(id),
    streamStorage: (id) => {
      const { stream } = core.session(id);
      return { path: stream.path, length: stream.length, bytesInMemory: stream.bytesInMemory };
    },
    async shutdown(): Promise<void> {
      await core.shutdown();
      for (const client of [...clients]) client.close();
      clients.clear();
    },
  };
}
