// Browser mode's adapter of the API contract: requests and replies as JSON text frames
// matched by id, events as text frames, stream bytes as binary frames (structs/api/ws-messages.ts).
// A socket that drops after it opened (the server dropped a page that fell behind, a network
// hiccup on a remote tunnel) is made again with the same cookie, a few times with growing
// pauses; listeners of onReconnected then ask again for what they show. Only when the
// workstation stays away does the page say so, once.

import type {
  AttachRequest, CountersPoint, ExportRequest, ExportResult, LaunchRequest, OpenRecordingRequest, Operation, OutputHistory, ProcessInfo,
  SessionInfo, Unsubscribe, WorkstationApi, WorkstationEvent, WorkstationSettings, MeasureReply, MeasureRequest, RevertMeasureRequest, SourceLineTable,
  SourceFile, SourceFileRequest, KeepWindowRequest, HeapDominatorChildren, HeapDominatorsRequest, HeapOpenRequest, HeapPathRow, HeapPathsRequest,
  HeapSaveRequest, HeapSnapshotInfo, HeapTakeRequest, HeapTypeRow, HeapTypesRequest,
} from '../../../structs/api/contract.js';
import { decodeStreamFrame, type WsRequest, type WsTextMessage } from '../../../structs/api/ws-messages.js';

export const CONNECTION_LOST = 'The connection to the clrscope workstation was lost; restart it and reload this page.';
export const CONNECTION_REFUSED = 'The clrscope workstation refused or did not answer the connection; open the address it printed and reload.';
/** A request in flight when the socket dropped: it may or may not have run. */
export const CONNECTION_INTERRUPTED = 'The connection to the clrscope workstation dropped during this request; it was made again, so try once more.';

/** Pauses before each attempt to connect again after a drop (about half a minute in all). */
export const RECONNECT_DELAYS_MS: readonly number[] = [100, 250, 500, 1000, 2000, 4000, 8000, 15000];

interface Queued {
  request: WsRequest;
  /** Carries the connection's launch nonce, known only once its hello came. */
  needsNonce: boolean;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class WsApi implements WorkstationApi {
  private socket!: WebSocket;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private queued: Queued[] = [];
  private readonly listeners = new Set<(event: WorkstationEvent) => void>();
  private readonly failureListeners = new Set<(message: string) => void>();
  private readonly reconnectListeners = new Set<() => void>();
  /** The current socket is open. */
  private opened = false;
  /** Some socket opened once: a drop is then worth reconnecting. */
  private everOpened = false;
  private attempt = 0;
  private failure: string | null = null;
  /** From the server's hello: launches carry it, proving they come from this page. Each connection has its own. */
  private launchNonce: string | undefined;

  constructor(private readonly url: string, private readonly delaysMs: readonly number[] = RECONNECT_DELAYS_MS) {
    this.connect();
  }

  private connect(): void {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('open', () => {
      if (socket !== this.socket) return;
      this.opened = true;
      const again = this.everOpened;
      this.everOpened = true;
      this.attempt = 0;
      this.flush();
      if (again) for (const l of [...this.reconnectListeners]) l();
    });
    socket.addEventListener('message', (e: MessageEvent<string | ArrayBuffer>) => {
      if (socket === this.socket) this.onMessage(e.data);
    });
    // A refused upgrade (bad or missing token) never opens; a dropped one closes after opening.
    // 'error' is always followed by 'close', so only 'close' acts.
    socket.addEventListener('close', () => {
      if (socket === this.socket) this.onClose();
    });
  }

  private onClose(): void {
    this.opened = false;
    this.launchNonce = undefined;
    if (!this.everOpened) {
      this.fail(CONNECTION_REFUSED);
      return;
    }
    // Requests sent on the dropped socket may or may not have run; those not sent yet wait for the next one.
    const unsent = new Set(this.queued.map((q) => q.request.id));
    for (const [id, p] of [...this.pending]) {
      if (unsent.has(id)) continue;
      this.pending.delete(id);
      p.reject(new Error(CONNECTION_INTERRUPTED));
    }
    const delay = this.delaysMs[this.attempt++];
    if (delay === undefined) {
      this.fail(CONNECTION_LOST);
      return;
    }
    setTimeout(() => this.connect(), delay);
  }

  /** Called after the connection dropped and was made again: it has no subscriptions then. */
  onReconnected(listener: () => void): Unsubscribe {
    this.reconnectListeners.add(listener);
    return () => { this.reconnectListeners.delete(listener); };
  }

  /** Called once with one sentence when the connection fails; immediately if it already has. */
  onFailure(listener: (message: string) => void): Unsubscribe {
    if (this.failure !== null) listener(this.failure);
    this.failureListeners.add(listener);
    return () => { this.failureListeners.delete(listener); };
  }

  listProcesses(): Promise<ProcessInfo[]> { return this.call('listProcesses', []); }
  listSessions(): Promise<SessionInfo[]> { return this.call('listSessions', []); }
  launch(request: LaunchRequest): Promise<SessionInfo> { return this.call('launch', [request], true); }
  launchDemo(): Promise<SessionInfo> { return this.call('launchDemo', [], true); }
  attach(request: AttachRequest): Promise<SessionInfo> { return this.call('attach', [request]); }
  stop(sessionId: string): Promise<SessionInfo> { return this.call('stop', [sessionId]); }
  subscribe(sessionId: string, fromOffset?: number): Promise<void> { return this.call('subscribe', fromOffset === undefined ? [sessionId] : [sessionId, fromOffset]); }
  unsubscribe(sessionId: string): Promise<void> { return this.call('unsubscribe', [sessionId]); }
  closeSession(sessionId: string): Promise<void> { return this.call('closeSession', [sessionId]); }
  exportRecording(request: ExportRequest): Promise<ExportResult> { return this.call('exportRecording', [request]); }
  openRecording(request: OpenRecordingRequest): Promise<SessionInfo> { return this.call('openRecording', [request]); }
  cancelJob(jobId: string): Promise<void> { return this.call('cancelJob', [jobId]); }
  countersHistory(sessionId: string): Promise<CountersPoint[]> { return this.call('countersHistory', [sessionId]); }
  outputHistory(sessionId: string): Promise<OutputHistory> { return this.call('outputHistory', [sessionId]); }
  loadSettings(): Promise<WorkstationSettings> { return this.call('loadSettings', []); }
  saveSettings(settings: WorkstationSettings): Promise<void> { return this.call('saveSettings', [settings]); }
  measure(request: MeasureRequest): Promise<MeasureReply> { return this.call('measure', [request]); }
  revertMeasure(request: RevertMeasureRequest): Promise<MeasureReply> { return this.call('revertMeasure', [request]); }
  setKeepWindow(request: KeepWindowRequest): Promise<SessionInfo> { return this.call('setKeepWindow', [request]); }
  sourceLines(sessionId: string): Promise<SourceLineTable> { return this.call('sourceLines', [sessionId]); }
  sourceFile(request: SourceFileRequest): Promise<SourceFile> { return this.call('sourceFile', [request]); }
  takeHeapSnapshot(request: HeapTakeRequest): Promise<HeapSnapshotInfo> { return this.call('takeHeapSnapshot', [request]); }
  openHeapSnapshot(request: HeapOpenRequest): Promise<HeapSnapshotInfo> { return this.call('openHeapSnapshot', [request]); }
  listHeapSnapshots(): Promise<HeapSnapshotInfo[]> { return this.call('listHeapSnapshots', []); }
  saveHeapSnapshot(request: HeapSaveRequest): Promise<void> { return this.call('saveHeapSnapshot', [request]); }
  closeHeapSnapshot(snapshotId: string): Promise<void> { return this.call('closeHeapSnapshot', [snapshotId]); }
  heapTypes(request: HeapTypesRequest): Promise<HeapTypeRow[]> { return this.call('heapTypes', [request]); }
  heapPaths(request: HeapPathsRequest): Promise<HeapPathRow[]> { return this.call('heapPaths', [request]); }
  heapDominators(request: HeapDominatorsRequest): Promise<HeapDominatorChildren> { return this.call('heapDominators', [request]); }
  // No chooseRecordingFile: a page in a browser cannot learn a file's path, so the user types it.

  onEvent(listener: (event: WorkstationEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  // The reply's shape is the server's promise under the contract; the cast is where we trust it.
  private call<T>(op: Operation, args: unknown[], needsNonce = false): Promise<T> {
    if (this.failure !== null) return Promise.reject(new Error(this.failure));
    const request: WsRequest = { id: this.nextId++, op, args };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(request.id, { resolve: (v) => resolve(v as T), reject });
      this.queued.push({ request, needsNonce });
      this.flush();
    });
  }

  /** Sends what waits for an open socket (launches also for this connection's nonce). */
  private flush(): void {
    if (!this.opened) return;
    const waiting: Queued[] = [];
    for (const q of this.queued) {
      if (q.needsNonce && this.launchNonce === undefined) {
        waiting.push(q);
        continue;
      }
      const request = q.needsNonce ? { ...q.request, nonce: this.launchNonce } : q.request;
      this.socket.send(JSON.stringify(request));
    }
    this.queued = waiting;
  }

  private onMessage(data: string | ArrayBuffer): void {
    if (typeof data !== 'string') {
      let event: WorkstationEvent;
      try {
        event = decodeStreamFrame(new Uint8Array(data));
      } catch {
        return; // Not ours to show: an unknown binary frame from a newer server.
      }
      this.emit(event);
      return;
    }
    let message: WsTextMessage;
    try {
      message = JSON.parse(data) as WsTextMessage;
    } catch {
      return;
    }
    if (message.kind === 'hello') {
      this.launchNonce = message.launchNonce;
      this.flush();
      return;
    }
    if (message.kind === 'event') {
      this.emit(message.event);
      return;
    }
    const p = this.pending.get(message.id);
    if (p === undefined) return;
    this.pending.delete(message.id);
    if (message.ok) p.resolve(message.result);
    else p.reject(new Error(message.error));
  }

  private emit(event: WorkstationEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (e) {
        // A failing view must not stop the others from hearing the event.
        console.error(e);
      }
    }
  }

  private fail(message: string): void {
    if (this.failure !== null) return;
    this.failure = message;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    this.queued = [];
    for (const l of [...this.failureListeners]) l(message);
  }
}
