// The controller's unit tests' fakes: an API and a profile worker that answer as the real ones
// do, timers driven by hand, and small builders of sessions, chunks and output lines. Shared
// by the tests of each room (session-feed.test.ts, view-refresh.test.ts, ...), which drive the
// rooms through the controller as the views do.

import type { CountersPoint, MeasureReply, MeasureRequest, OpenRecordingRequest, OutputHistory, OutputLine, RevertMeasureRequest, KeepWindowRequest, SessionInfo, SourceLineTable, SourceFile, SourceFileRequest, WorkstationApi, WorkstationEvent, WorkstationSettings } from '../../../structs/api/contract.js';
import type { FlatTree, RecordingSummary, WorkerReply, WorkerRequest } from '../worker/protocol.js';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { FakeTimers } from './fake-timers.test-support.js';
import type { WorkerPort } from './profile-worker-client.js';
import { Workstation } from './workstation.js';

export const session = (id: string, state: SessionInfo['state']): SessionInfo => ({
  id, pid: 42, label: 'dotnet app.dll', state, startedAtMs: 0, intervalMs: 10, attached: false, source: 'launch', approximateCpu: false,
  exitCode: null, message: null,
});

export const emptyTree = (): FlatTree => ({
  nodeCount: 1, label: new Int32Array(1), parent: Int32Array.of(-1), depth: new Uint16Array(1), total: new Float64Array(1), self: new Float64Array(1),
  labels: ['all'], labelKind: new Uint8Array(1), totalValue: 0, sampleCount: 0,
});

export const summary = (): RecordingSummary => ({
  pid: 42, runtimeVersion: '10.0.0', intervalNs: 1e7, durationMs: 1000, sampleCount: 1, droppedSamples: 0, stacklessCpuMs: 0, threads: [], processes: [], pauses: [], gcs: [], eventMetrics: [], hasAsync: false, keepMinutes: null, keptFromMs: null, signalLostMs: null, ownCost: null, ended: false, error: null,
});

export class FakeWorker implements WorkerPort {
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
          exceptions: { rows: [{ type: 'System.ArgumentException', count: 3, stacked: 3, rethrows: 0, methods: [{ name: 'App.Throw', count: 3 }], paths: [{ sites: [], count: 3 }], messages: [{ text: 'boom', count: 3 }], distinctMessages: 1 }], count: 3 },
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

export class FakeApi implements WorkstationApi {
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
  cancelJob = async (_jobId: string): Promise<void> => undefined;
  // Heap snapshots live in the main process; this fake holds none (the Heap tab is tested in Chromium, workstation-heap.test.ts).
  takeHeapSnapshot = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
  openHeapSnapshot = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
  listHeapSnapshots = async () => [];
  saveHeapSnapshot = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
  closeHeapSnapshot = async () => undefined;
  heapTypes = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
  heapPaths = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
  heapDominators = async (): Promise<never> => { throw new Error('No heap snapshots in this fake.'); };
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

export function setup(): { ws: Workstation; api: FakeApi; worker: FakeWorker; timers: FakeTimers } {
  const api = new FakeApi();
  const worker = new FakeWorker();
  const timers = new FakeTimers();
  const ws = new Workstation({ api, startWorker: () => worker, timers });
  ws.start();
  return { ws, api, worker, timers };
}

export const chunk = (sessionId: string, offset: number, ...bytes: number[]): WorkstationEvent => ({ type: 'stream', sessionId, offset, chunk: Uint8Array.from(bytes) });

export const outLine = (seq: number, stream: OutputLine['stream'] = 'stdout'): OutputLine => ({ seq, stream, text: `${stream} ${seq}` });
export const output = (sessionId: string, seqs: number[], stdout = ''): WorkstationEvent => ({
  type: 'output', sessionId, lines: seqs.map((s) => outLine(s)), partial: { stdout, stderr: '' },
});
