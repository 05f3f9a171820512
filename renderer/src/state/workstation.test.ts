import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  CountersPoint, MeasureReply, MeasureRequest, OpenRecordingRequest, OutputHistory, OutputLine, RevertMeasureRequest, KeepWindowRequest, SessionInfo, SourceLineTable, SourceFile, SourceFileRequest, WorkstationApi, WorkstationEvent, WorkstationSettings,
} from '../../../structs/api/contract.js';
import type { FlatTree, RecordingSummary, WorkerReply, WorkerRequest } from '../worker/protocol.js';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { FakeTimers, settle } from './fake-timers.test-support.js';
import type { WorkerPort } from './profile-worker-client.js';
import { OUTPUT_REFRESH_MS, REFRESH_PERIOD_MS, Workstation } from './workstation.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';

const session = (id: string, state: SessionInfo['state']): SessionInfo => ({
  id, pid: 42, label: 'dotnet app.dll', state, startedAtMs: 0, intervalMs: 10, attached: false, source: 'launch', approximateCpu: false,
  exitCode: null, message: null,
});

const emptyTree = (): FlatTree => ({
  nodeCount: 1, label: new Int32Array(1), parent: Int32Array.of(-1), depth: new Uint16Array(1), total: new Float64Array(1), self: new Float64Array(1),
  labels: ['all'], labelKind: new Uint8Array(1), totalValue: 0, sampleCount: 0,
});

const summary = (): RecordingSummary => ({
  pid: 42, runtimeVersion: '10.0.0', intervalNs: 1e7, durationMs: 1000, sampleCount: 1, droppedSamples: 0, stacklessCpuMs: 0, threads: [], processes: [], pauses: [], eventMetrics: [], hasAsync: false, keepMinutes: null, keptFromMs: null, signalLostMs: null, ended: false, error: null,
});

class FakeWorker implements WorkerPort {
  readonly received: WorkerRequest[] = [];
  private onReply: (reply: WorkerReply) => void = () => undefined;
  post(sent: WorkerRequest, transfer: Transferable[] = []): void {
    // As postMessage does: the transferred buffers leave the page (empty there from now on).
    const message = structuredClone(sent, { transfer });
    this.received.push(message);
    const reply = ((): WorkerReply | null => {
      switch (message.kind) {
        case 'summary': return { kind: 'summary', requestId: message.requestId, summary: summary() };
        case 'flame': return { kind: 'flame', requestId: message.requestId, tree: emptyTree() };
        case 'parallel': return { kind: 'parallel', requestId: message.requestId, tree: { ...emptyTree(), threads: [[]], by: 'threads' } };
        case 'event-tables': return {
          kind: 'event-tables', requestId: message.requestId,
          types: { rows: [{ type: 'System.Byte[]', bytes: 100, objects: 1, samples: 1, liveBytes: 0, liveObjects: 0 }], bytes: 100, objects: 1, samples: 1, liveBytes: 0, liveObjects: 0, hasLive: false },
          exceptions: { rows: [{ type: 'System.ArgumentException', count: 3, stacked: 3, methods: [{ name: 'App.Throw', count: 3 }], messages: [{ text: 'boom', count: 3 }], distinctMessages: 1 }], count: 3 },
        };
        case 'lines': return { kind: 'sources', requestId: message.requestId, names: ['App.Hot'], places: ['/src/App.cs:12'] };
        case 'function-lines': return {
          kind: 'function-lines', requestId: message.requestId,
          lines: {
            name: message.name, totalValue: 10, self: 8, total: 9, file: '/src/App.cs', unknownSelf: 0, unknownTotal: 0, methods: [{ moduleId: 1, token: 0x06000002 }],
            lines: [{ file: '/src/App.cs', line: 12, self: 8, total: 9, selfSamples: 8, totalSamples: 9 }],
          },
        };
        default: return null;
      }
    })();
    if (reply !== null) queueMicrotask(() => this.onReply(reply));
  }
  listen(onReply: (reply: WorkerReply) => void): void { this.onReply = onReply; }
  terminate(): void {}
  queries(kind: WorkerRequest['kind']): number { return this.received.filter((m) => m.kind === kind).length; }
}

class FakeApi implements WorkstationApi {
  listener: (event: WorkstationEvent) => void = () => undefined;
  subscribed: string[] = [];
  listProcesses = async () => [];
  listSessions = async (): Promise<SessionInfo[]> => [];
  launch = async () => session('s1', 'recording');
  launchDemo = async () => session('s1', 'recording');
  attach = async () => session('s1', 'recording');
  stop = async (id: string) => session(id, 'stopped');
  subscribe = async (id: string, fromOffset?: number) => { this.subscribed.push(fromOffset === undefined ? id : `${id}@${fromOffset}`); };
  unsubscribed: string[] = [];
  unsubscribe = async (id: string) => { this.unsubscribed.push(id); };
  closed: string[] = [];
  closeSession = async (id: string) => {
    this.closed.push(id);
    this.emit({ type: 'session-closed', sessionId: id });
  };
  reconnected: () => void = () => undefined;
  onReconnected(listener: () => void): () => void {
    this.reconnected = listener;
    return () => undefined;
  }
  exportRecording = async () => ({ path: '/tmp/x.pb.gz', bytes: 10 });
  openRecording = async (request: OpenRecordingRequest): Promise<SessionInfo> => ({
    ...session('f1', 'stopped'), pid: null, label: request.path.slice(request.path.lastIndexOf('/') + 1), source: 'file', approximateCpu: true,
  });
  history: Record<string, CountersPoint[]> = {};
  countersHistory = async (id: string): Promise<CountersPoint[]> => this.history[id] ?? [];
  output: Record<string, OutputHistory> = {};
  outputHistory = async (id: string): Promise<OutputHistory> => this.output[id] ?? { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } };
  settings: WorkstationSettings = { fold: { ...DEFAULT_FOLD, myCode: true } };
  saved: WorkstationSettings[] = [];
  loadSettings = async (): Promise<WorkstationSettings> => this.settings;
  saveSettings = async (s: WorkstationSettings): Promise<void> => { this.saved.push(s); };
  measured: MeasureRequest[] = [];
  measure = async (request: MeasureRequest): Promise<MeasureReply> => {
    this.measured.push(request);
    return { ok: true, matched: 1, message: `1 method matches ${request.pattern}` };
  };
  revertMeasure = async (request: RevertMeasureRequest): Promise<MeasureReply> => ({ ok: true, matched: request.measureId === 0 ? 2 : 1, message: 'reverted 2 methods' });
  keepWindows: KeepWindowRequest[] = [];
  setKeepWindow = async (request: KeepWindowRequest): Promise<SessionInfo> => {
    this.keepWindows.push(request);
    return { ...session(request.sessionId, 'recording'), ...(request.keepMinutes === null ? {} : { keepMinutes: request.keepMinutes }) };
  };
  linesAsked = 0;
  sourceLines = async (): Promise<SourceLineTable> => {
    this.linesAsked++;
    return { frameIds: [1], fileIndex: [0], lines: [12], files: ['/src/App.cs'], notes: [] };
  };
  filesAsked: SourceFileRequest[] = [];
  sourceFile = async (r: SourceFileRequest): Promise<SourceFile> => {
    this.filesAsked.push(r);
    return { path: r.path, text: 'class App {\n  void Hot() {}\n}', message: null, spans: [{ firstLine: 2, lastLine: 2 }] };
  };
  onEvent(listener: (event: WorkstationEvent) => void): () => void {
    this.listener = listener;
    return () => undefined;
  }
  emit(event: WorkstationEvent): void { this.listener(event); }
}

function setup(): { ws: Workstation; api: FakeApi; worker: FakeWorker; timers: FakeTimers } {
  const api = new FakeApi();
  const worker = new FakeWorker();
  const timers = new FakeTimers();
  const ws = new Workstation({ api, startWorker: () => worker, timers });
  ws.start();
  return { ws, api, worker, timers };
}

const chunk = (sessionId: string, offset: number, ...bytes: number[]): WorkstationEvent => ({ type: 'stream', sessionId, offset, chunk: Uint8Array.from(bytes) });

const outLine = (seq: number, stream: OutputLine['stream'] = 'stdout'): OutputLine => ({ seq, stream, text: `${stream} ${seq}` });
const output = (sessionId: string, seqs: number[], stdout = ''): WorkstationEvent => ({
  type: 'output', sessionId, lines: seqs.map((s) => outLine(s)), partial: { stdout, stderr: '' },
});

describe('Workstation', () => {
  it('a kept window goes to the worker with the session; changing it feeds the worker again from byte 0 and trims the counters', async () => {
    const { ws, api, worker } = setup();
    api.launch = async () => ({ ...session('s1', 'recording'), keepMinutes: 10 });
    await ws.sessions.launch({ command: 'dotnet', args: ['app.dll'], keepMinutes: 10 });
    const resets = () => worker.received.filter((m) => m.kind === 'reset').map((m) => (m.kind === 'reset' ? m.keepMinutes ?? null : 'x'));
    assert.deepEqual(resets(), [10]);
    api.emit(chunk('s1', 0, 1, 2, 3));
    for (let m = 0; m < 20; m++) api.emit({ type: 'counters', sessionId: 's1', point: { timeMs: 1_000_000 + m * 60_000, values: {} } });
    assert.equal(ws.counters.points('s1').length, 11);
    await ws.sessions.setKeepWindow(null);
    assert.deepEqual(api.keepWindows, [{ sessionId: 's1', keepMinutes: null }]);
    assert.deepEqual(resets(), [10, null]);
    assert.deepEqual(api.subscribed, ['s1', 's1']);
    assert.equal(ws.state.streamBytes, 0);
    // Another page changed it: this one hears the session and reads the stream again too.
    api.emit({ type: 'session', session: { ...session('s1', 'recording'), keepMinutes: 5 } });
    assert.deepEqual(resets(), [10, null, 5]);
    assert.deepEqual(api.subscribed, ['s1', 's1', 's1']);
    api.emit({ type: 'counters', sessionId: 's1', point: { timeMs: 1_000_000 + 20 * 60_000, values: {} } });
    assert.equal(ws.counters.points('s1').length, 6);
    // The same window again changes nothing.
    api.emit({ type: 'session', session: { ...session('s1', 'stopped'), keepMinutes: 5 } });
    assert.deepEqual(resets(), [10, null, 5]);
  });

  it('launches, subscribes and hands the stream to the worker in order, once', async () => {
    const { ws, api, worker } = setup();
    await ws.sessions.launchDemo();
    assert.deepEqual(api.subscribed, ['s1']);
    assert.equal(ws.state.tab, 'flame');
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('s1', 2, 3, 4));
    api.emit(chunk('other', 0, 9));
    const chunks = worker.received.filter((m) => m.kind === 'chunk').map((m) => (m.kind === 'chunk' ? [m.offset, ...m.bytes] : []));
    assert.deepEqual(chunks, [[0, 1, 2, 3], [3, 4]]);
    assert.equal(ws.state.streamBytes, 4);
  });

  it('re-queries at least twice a second while data arrives and stops when it stops', async () => {
    const { ws, api, worker, timers } = setup();
    await ws.sessions.launchDemo();
    await timers.advance(0);
    const before = worker.queries('flame');
    let offset = 0;
    for (let t = 0; t < 2000; t += 50) {
      api.emit(chunk('s1', offset, 7));
      offset++;
      await timers.advance(50);
    }
    const during = worker.queries('flame') - before;
    assert.ok(during >= 4 && during <= 2000 / REFRESH_PERIOD_MS + 1, `${during} flame queries in 2 s`);
    assert.ok(ws.state.flame !== null && ws.state.summary !== null);
    api.emit({ type: 'session', session: session('s1', 'stopped') });
    await timers.advance(1000);
    const afterStop = worker.queries('flame');
    await timers.advance(5000);
    assert.equal(worker.queries('flame'), afterStop, 'no queries once the recording stopped');
    // Still interactive: a user change queries again.
    ws.view.setFlameOptions({ metric: 'wall' });
    await timers.advance(0);
    await settle();
    assert.equal(worker.queries('flame'), afterStop + 1);
  });

  it('Source: the function\'s lines from the worker, its file asked once; a stopped session\'s lines asked again while its bytes arrive', async () => {
    const { ws, api, worker, timers } = setup();
    api.emit({ type: 'session', session: session('f', 'stopped') });
    ws.select('f');
    ws.view.setTab('flame');
    await timers.advance(0);
    await settle();
    const asked = api.linesAsked;
    assert.ok(asked >= 1);
    await timers.advance(1000);
    await settle();
    assert.equal(api.linesAsked, asked, 'nothing new: not asked again');
    api.emit(chunk('f', 0, 1, 2));
    await timers.advance(REFRESH_PERIOD_MS);
    await settle();
    assert.equal(api.linesAsked, asked + 1, 'asked again once more bytes came');
    assert.equal(ws.state.sources.get('App.Hot'), '/src/App.cs:12');

    ws.sources.showSource('App.Hot');
    assert.equal(ws.state.tab, 'source');
    assert.equal(ws.state.selectedFunction, 'App.Hot');
    await timers.advance(0);
    await settle();
    assert.equal(ws.state.functionLines?.lines[0].line, 12);
    assert.deepEqual(api.filesAsked, [{ sessionId: 'f', path: '/src/App.cs', methods: [{ moduleId: 1, token: 0x06000002 }] }]);
    assert.equal(ws.state.sourceFile?.text?.split('\n').length, 3);
    // Refreshes ask the worker again (the window may change), the file only once.
    ws.view.setFlameOptions({ metric: 'wall' });
    await timers.advance(0);
    await settle();
    assert.equal(worker.queries('function-lines'), 2);
    assert.equal(api.filesAsked.length, 1);
  });

  it('the type and exceptions tables: asked with the flame graph\'s window and threads; a picked type focuses the flame graph on it', async () => {
    const { ws, worker, timers } = setup();
    await ws.sessions.launchDemo();
    ws.view.setFlameOptions({ threadIds: [7], window: { kind: 'range', fromMs: 10, toMs: 20 } });
    ws.view.setTab('types');
    await timers.advance(0);
    await settle();
    const asked = worker.received.filter((m) => m.kind === 'event-tables');
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].kind === 'event-tables' ? asked[0].query : null, { threadIds: [7], fromMs: 10, toMs: 20 });
    assert.equal(ws.state.eventTables?.types.rows[0].type, 'System.Byte[]');
    assert.equal(worker.queries('functions'), 0, 'no functions table for the types tab');
    // A type: allocations in the flame graph, of that type only.
    ws.view.focusEventType('alloc-space', 'System.Byte[]', ['alloc-space', 'alloc-objects']);
    assert.equal(ws.state.flameOptions.metric, 'alloc-space');
    assert.equal(ws.state.flameOptions.eventType, 'System.Byte[]');
    ws.view.setTab('flame');
    await timers.advance(0);
    await settle();
    const flames = worker.received.filter((m) => m.kind === 'flame');
    const last = flames[flames.length - 1];
    assert.equal(last.kind === 'flame' ? last.query.eventType : null, 'System.Byte[]');
    // Objects stay objects when another type is picked; another event type clears the focus.
    ws.view.setFlameOptions({ metric: 'alloc-objects', eventType: 'System.Byte[]' });
    ws.view.focusEventType('alloc-space', 'App.Pair', ['alloc-space', 'alloc-objects']);
    assert.equal(ws.state.flameOptions.metric, 'alloc-objects');
    ws.view.setFlameOptions({ metric: 'exceptions' });
    assert.equal(ws.state.flameOptions.eventType, null);
    // CPU ignores a focus.
    ws.view.setFlameOptions({ metric: 'cpu', eventType: 'System.Byte[]' });
    await timers.advance(0);
    await settle();
    const cpu = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.equal(cpu?.kind === 'flame' ? cpu.query.eventType : 'x', undefined);
  });

  it('resubscribes from byte 0 when bytes went missing', async () => {
    const { ws, api, worker } = setup();
    await ws.sessions.launchDemo();
    api.emit(chunk('s1', 0, 1));
    api.emit(chunk('s1', 5, 6));
    await settle();
    assert.deepEqual(api.subscribed, ['s1', 's1']);
    assert.equal(worker.queries('reset'), 2);
    assert.equal(ws.state.streamBytes, 0);
  });

  it('stops hearing a session it no longer shows, unless the diff compares with it', async () => {
    const { ws, api } = setup();
    api.emit({ type: 'session', session: session('a', 'stopped') });
    api.emit({ type: 'session', session: session('b', 'stopped') });
    ws.select('a');
    ws.select('b');
    await settle();
    assert.deepEqual(api.subscribed, ['a', 'b']);
    assert.deepEqual(api.unsubscribed, ['a']);
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'a' } });
    ws.select('a');
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b'], 'b is not shown any more; a is, twice');
    ws.select('b');
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b'], 'a stays heard: it is the baseline');
    ws.diff.setOptions({ baseline: null });
    await settle();
    assert.deepEqual(api.unsubscribed, ['a', 'b', 'a']);
  });

  it('a closed session leaves the list, the selection and the baseline, on every page', async () => {
    const { ws, api } = setup();
    api.emit({ type: 'session', session: session('a', 'stopped') });
    api.emit({ type: 'session', session: session('b', 'stopped') });
    ws.select('a');
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b' } });
    await ws.sessions.closeSession('a');
    assert.deepEqual(api.closed, ['a']);
    assert.equal(ws.state.selectedSessionId, null);
    assert.deepEqual(ws.state.sessions.map((s) => s.id), ['b']);
    // Another page closed b: this one hears it as an event.
    api.emit({ type: 'session-closed', sessionId: 'b' });
    assert.equal(ws.state.sessions.length, 0);
    assert.equal(ws.state.diffOptions.baseline, null);
    api.closeSession = async () => { throw new Error('Session s9 is still recording: stop it before closing it.'); };
    api.emit({ type: 'session', session: session('s9', 'recording') });
    await ws.sessions.closeSession('s9');
    assert.equal(ws.state.error, 'Session s9 is still recording: stop it before closing it.');
    assert.deepEqual(ws.state.sessions.map((s) => s.id), ['s9']);
  });

  it('after a reconnect it resumes the shown streams from the bytes it holds and reloads the list', async () => {
    const { ws, api, worker } = setup();
    api.emit({ type: 'session', session: session('gone', 'stopped') });
    await ws.sessions.launchDemo();
    api.emit({ type: 'session', session: session('b1', 'stopped') });
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b1' } });
    api.emit(chunk('s1', 0, 1, 2, 3));
    api.emit(chunk('b1', 0, 5, 5));
    api.listSessions = async () => [session('s1', 'stopped'), session('b1', 'stopped')];
    api.reconnected();
    await settle();
    assert.deepEqual(api.subscribed, ['s1', 'b1', 's1@3', 'b1@2']);
    assert.equal(worker.queries('reset'), 1, 'nothing thrown away');
    api.emit(chunk('s1', 3, 4));
    assert.equal(ws.state.streamBytes, 4);
    assert.deepEqual(ws.state.sessions.map((s) => `${s.id} ${s.state}`), ['s1 stopped', 'b1 stopped'], 'gone was closed while away; s1 stopped');
  });

  it('opens on a recording that is already running (a reload, or npm start -- --demo)', async () => {
    const api = new FakeApi();
    api.listSessions = async () => [session('old', 'stopped'), session('live', 'recording')];
    const w = new Workstation({ api, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    w.start();
    await settle();
    assert.equal(w.state.selectedSessionId, 'live');
    assert.equal(w.state.tab, 'flame');
    assert.deepEqual(api.subscribed, ['live']);
  });

  it('merges a session\'s counters history with the points heard live, once per time', async () => {
    const { ws, api } = setup();
    const point = (timeMs: number, gen0: number): CountersPoint => ({ timeMs, values: { gc: { genCollections0: gen0 } } });
    api.history.s1 = [point(1000, 1), point(1250, 2), point(1500, 3)];
    // A live point that came before the history's answer, and one the history holds too.
    api.emit({ type: 'counters', sessionId: 's1', point: point(1500, 3) });
    api.emit({ type: 'counters', sessionId: 's1', point: point(1750, 4) });
    await ws.sessions.launchDemo();
    await settle();
    assert.deepEqual(ws.counters.points('s1').map((p) => p.timeMs), [1000, 1250, 1500, 1750]);
    api.emit({ type: 'counters', sessionId: 's1', point: point(2000, 5) });
    assert.deepEqual(ws.counters.points('s1').map((p) => p.values.gc.genCollections0), [1, 2, 3, 4, 5]);
  });

  it('merges a session\'s output history with the lines heard while it was asked for, each line once', async () => {
    const { ws, api, timers } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    api.outputHistory = async () => {
      await gate;
      return { lines: [outLine(0), outLine(1, 'stderr'), outLine(2), outLine(3)], droppedLines: 0, partial: { stdout: 'Cont', stderr: '' } };
    };
    await ws.sessions.launchDemo();
    // Heard while the history is in flight: line 3 is in both, and one event comes twice.
    api.emit(output('s1', [3, 4], 'Continue?'));
    api.emit(output('s1', [3, 4], 'Continue?'));
    assert.equal(ws.output.get('s1').loaded, false);
    assert.equal(ws.output.get('s1').droppedLines, 0, 'lines before the first heard are not "dropped" before the history says so');
    release();
    await settle();
    const shown = ws.output.get('s1');
    assert.deepEqual(shown.lines.map((l) => `${l.seq} ${l.text}`), ['0 stdout 0', '1 stderr 1', '2 stdout 2', '3 stdout 3', '4 stdout 4']);
    assert.equal(shown.partial.stdout, 'Continue?', 'the unfinished line heard after the history\'s last line is the newer');
    assert.equal(shown.loaded, true);
    assert.equal(shown.droppedLines, 0);
    api.emit(output('s1', [5]));
    api.emit(output('s1', [4, 5, 6]));
    assert.deepEqual(ws.output.get('s1').lines.map((l) => l.seq), [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(ws.output.get('s1').partial.stdout, '');
    // Another session's lines are kept for it, not shown here.
    api.emit(output('s9', [0]));
    assert.equal(ws.output.get('s1').lines.length, 7);
    assert.equal(ws.output.get('s9').lines.length, 1);

    const version = ws.state.outputVersion;
    for (let i = 7; i < 50; i++) api.emit(output('s1', [i]));
    assert.equal(ws.state.outputVersion, version, 'not on every event');
    await timers.advance(OUTPUT_REFRESH_MS);
    assert.equal(ws.state.outputVersion, version + 1, 'once per OUTPUT_REFRESH_MS');
    api.emit(output('s9', [1]));
    await timers.advance(OUTPUT_REFRESH_MS);
    assert.equal(ws.state.outputVersion, version + 1, 'another session\'s lines do not redraw this one');
  });

  it('says how many earlier lines are gone, and that an attached process has no output', async () => {
    const { ws, api } = setup();
    api.output.s1 = { lines: [outLine(8000), outLine(8001)], droppedLines: 8000, partial: { stdout: '', stderr: '' } };
    await ws.sessions.launchDemo();
    await settle();
    assert.equal(ws.output.get('s1').droppedLines, 8000);
    const attached = new FakeApi();
    attached.attach = async () => ({ ...session('a1', 'recording'), attached: true, source: 'attach' });
    const w = new Workstation({ api: attached, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    w.start();
    await w.sessions.attach({ pid: 42 });
    await settle();
    assert.deepEqual(w.output.get('a1'), { lines: [], partial: { stdout: '', stderr: '' }, droppedLines: 0, loaded: true });
    assert.deepEqual(w.output.get(null).lines, []);
  });

  it('opens a recording file: progress while it reads, then the session shown like any other', async () => {
    const { ws, api } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const open = api.openRecording;
    api.openRecording = async (request) => {
      await gate;
      return open(request);
    };
    api.history.f1 = [{ timeMs: 5, values: { gc: { genCollections0: 1 } } }];
    const done = ws.sessions.openRecording('/traces/app.nettrace');
    assert.deepEqual(ws.state.opening, { path: '/traces/app.nettrace', phase: 'reading', done: 0, total: 0 });
    api.emit({ type: 'open-progress', path: '/traces/other.nettrace', phase: 'reading', done: 1, total: 9 });
    api.emit({ type: 'open-progress', path: '/traces/app.nettrace', phase: 'preparing', done: 3, total: 10 });
    assert.deepEqual(ws.state.opening, { path: '/traces/app.nettrace', phase: 'preparing', done: 3, total: 10 });
    release();
    await done;
    await settle();
    assert.equal(ws.state.opening, null);
    assert.equal(ws.state.selectedSessionId, 'f1');
    assert.equal(ws.state.tab, 'flame');
    assert.deepEqual(api.subscribed, ['f1']);
    assert.equal(ws.selectedSession()?.approximateCpu, true);
    assert.equal(ws.counters.points('f1').length, 1);
  });

  it('shows the API\'s sentence when a file cannot be opened, and offers a dialog only when the shell has one', async () => {
    const { ws, api } = setup();
    api.openRecording = async () => { throw new Error('Cannot read /t/x.clrscope: the clrscope file is truncated.'); };
    await ws.sessions.openRecording('/t/x.clrscope');
    assert.equal(ws.state.error, 'Cannot read /t/x.clrscope: the clrscope file is truncated.');
    assert.equal(ws.state.opening, null);
    assert.equal(ws.sessions.canChooseFile, false);
    const shell = new FakeApi();
    const asked: string[] = [];
    let answer: string | null = null;
    Object.assign(shell, { chooseRecordingFile: async () => answer });
    shell.openRecording = async (request) => { asked.push(request.path); return session('f2', 'stopped'); };
    const w = new Workstation({ api: shell, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    assert.equal(w.sessions.canChooseFile, true);
    await w.sessions.chooseAndOpenRecording();
    assert.deepEqual(asked, [], 'a cancelled dialog opens nothing');
    answer = '/t/y.pb.gz';
    await w.sessions.chooseAndOpenRecording();
    assert.deepEqual(asked, ['/t/y.pb.gz']);
  });

  it('shows the API\'s sentence when a launch fails', async () => {
    const { ws } = setup();
    const api = new FakeApi();
    api.launch = async () => { throw new Error('dotnet was not found on PATH.'); };
    const w = new Workstation({ api, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    await w.sessions.launch({ command: 'dotnet', args: [] });
    assert.equal(w.state.error, 'dotnet was not found on PATH.');
    assert.equal(ws.state.error, null);
  });

  it('loads the saved folding, sends it with every query, saves a change, and routes a baseline session\'s stream beside the session\'s', async () => {
    const { ws, api, worker, timers } = setup();
    await settle();
    assert.equal(ws.state.fold.myCode, true, 'the saved folding');
    await ws.sessions.launchDemo();
    await timers.advance(0);
    await settle();
    const flame = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.ok(flame?.kind === 'flame' && flame.query.fold?.myCode === true);
    ws.view.setFold({ ...ws.state.fold, myCode: false, groupBy: 'namespace' });
    await timers.advance(0);
    await settle();
    assert.deepEqual(api.saved.map((x) => [x.fold.myCode, x.fold.groupBy]), [[false, 'namespace']]);
    const next = worker.received.filter((m) => m.kind === 'flame').pop();
    assert.ok(next?.kind === 'flame' && next.query.fold?.groupBy === 'namespace');
    ws.view.setTab('functions');
    ws.view.selectFunction('App.Main');
    await timers.advance(0);
    await settle();
    const functions = worker.received.filter((m) => m.kind === 'functions').pop();
    const sandwich = worker.received.filter((m) => m.kind === 'sandwich').pop();
    assert.ok(functions?.kind === 'functions' && functions.query.fold.groupBy === 'namespace' && functions.query.metric === 'cpu');
    assert.ok(sandwich?.kind === 'sandwich' && sandwich.name === 'App.Main');
    ws.diff.setOptions({ baseline: { kind: 'session', sessionId: 'b1' } });
    assert.deepEqual(api.subscribed, ['s1', 'b1']);
    assert.equal(worker.queries('baseline-reset'), 1);
    api.emit(chunk('b1', 0, 5, 6));
    api.emit(chunk('b1', 0, 5, 6));
    api.emit(chunk('s1', 0, 1));
    const baseline = worker.received.filter((m) => m.kind === 'baseline-chunk').map((m) => (m.kind === 'baseline-chunk' ? [m.offset, ...m.bytes] : []));
    assert.deepEqual(baseline, [[0, 5, 6]], 'the baseline\'s bytes once, apart from the session\'s');
    assert.deepEqual(worker.received.filter((m) => m.kind === 'chunk').map((m) => (m.kind === 'chunk' ? [m.offset, ...m.bytes] : [])), [[0, 1]]);
  });

  it('reads measured methods out of the selected session\'s stream and asks the API to measure and revert', async () => {
    const { ws, api } = setup();
    await ws.sessions.launchDemo();
    const body = (...parts: Uint8Array[]): Uint8Array => {
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) { all.set(p, at); at += p.length; }
      return all;
    };
    const u32 = (v: number): Uint8Array => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v, true); return b; };
    const u64 = (v: number): Uint8Array => body(u32(v), u32(0));
    const str = (t: string): Uint8Array => { const b = new TextEncoder().encode(t); return body(u32(b.length), b); };
    const method = body(u32(1), u32(0), Uint8Array.of(2, 0), str('Demo.Orders.Place'), str('Demo.dll'), str(''));
    const figures = body(u64(5), u32(1), u64(7), u64(1), u64(700), u64(300), u64(0), Uint8Array.of(1, 0), Uint8Array.of(100, 0), u64(7), Uint8Array.of(0, 0));
    const stream = new WireEncoder().preamble().hello({ pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.1.0' })
      .raw(0x20, method).raw(0x21, figures).bytes();
    api.emit({ type: 'stream', sessionId: 's1', offset: 0, chunk: stream.slice(0, 40) });
    const before = ws.state.measureVersion;
    api.emit({ type: 'stream', sessionId: 's1', offset: 40, chunk: stream.slice(40) });
    assert.ok(ws.state.measureVersion > before);
    const [m] = ws.measurements.methods();
    assert.equal(m.name, 'Demo.Orders.Place');
    assert.equal(m.state, 'active');
    assert.equal(m.calls, 7);
    assert.equal(m.exceptions, 1);
    await ws.measure.measureMethod('Demo.Orders.Ship<System.Int32>');
    assert.deepEqual(api.measured, [{ sessionId: 's1', pattern: 'Demo.Orders.Ship<System.Int32>' }]);
    assert.equal(ws.state.tab, 'measure');
    assert.equal(ws.state.measureNotice, '1 method matches Demo.Orders.Ship<System.Int32>.');
    await ws.measure.revertMeasured(0);
    assert.equal(ws.state.measureNotice, 'reverted 2 methods.');
    // Another session starts with no measured methods.
    ws.select(null);
    assert.deepEqual(ws.measurements.methods(), []);
  });
});

