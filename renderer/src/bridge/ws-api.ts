// Browser mode's adapter of the API contract: requests and replies as JSON text frames
// matched by id, events as text frames, stream bytes as binary frames (structs/api/ws-messages.ts).
// No reconnect: if the socket closes, the workstation is gone and the page says so once.

import type {
  AttachRequest, CountersPoint, ExportRequest, ExportResult, LaunchRequest, OpenRecordingRequest, Operation, OutputHistory, ProcessInfo,
  SessionInfo, Unsubscribe, WorkstationApi, WorkstationEvent, WorkstationSettings, MeasureReply, MeasureRequest, RevertMeasureRequest, SourceLineTable,
} from '../../../structs/api/contract.js';
import { decodeStreamFrame, type WsRequest, type WsTextMessage } from '../../../structs/api/ws-messages.js';

export const CONNECTION_LOST = 'The connection to the clrscope workstation was lost; restart it and reload this page.';
export const CONNECTION_REFUSED = 'The clrscope workstation refused or did not answer the connection; open the address it printed and reload.';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class WsApi implements WorkstationApi {
  private readonly socket: WebSocket;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly queued: string[] = [];
  private readonly listeners = new Set<(event: WorkstationEvent) => void>();
  private readonly failureListeners = new Set<(message: string) => void>();
  private opened = false;
  private failure: string | null = null;
  /** From the server's hello: launches carry it, proving they come from this page. */
  private launchNonce: string | undefined;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.binaryType = 'arraybuffer';
    this.socket.addEventListener('open', () => {
      this.opened = true;
      for (const text of this.queued.splice(0)) this.socket.send(text);
    });
    this.socket.addEventListener('message', (e: MessageEvent<string | ArrayBuffer>) => this.onMessage(e.data));
    // A refused upgrade (bad or missing token) never opens; a dropped one closes after opening.
    this.socket.addEventListener('close', () => this.fail(this.opened ? CONNECTION_LOST : CONNECTION_REFUSED));
    this.socket.addEventListener('error', () => this.fail(this.opened ? CONNECTION_LOST : CONNECTION_REFUSED));
  }

  /** Called once with one sentence when the connection fails; immediately if it already has. */
  onFailure(listener: (message: string) => void): Unsubscribe {
    if (this.failure !== null) listener(this.failure);
    this.failureListeners.add(listener);
    return () => { this.failureListeners.delete(listener); };
  }

  listProcesses(): Promise<ProcessInfo[]> { return this.call('listProcesses', []); }
  listSessions(): Promise<SessionInfo[]> { return this.call('listSessions', []); }
  launch(request: LaunchRequest): Promise<SessionInfo> { return this.call('launch', [request], this.launchNonce); }
  launchDemo(): Promise<SessionInfo> { return this.call('launchDemo', [], this.launchNonce); }
  attach(request: AttachRequest): Promise<SessionInfo> { return this.call('attach', [request]); }
  stop(sessionId: string): Promise<SessionInfo> { return this.call('stop', [sessionId]); }
  subscribe(sessionId: string): Promise<void> { return this.call('subscribe', [sessionId]); }
  exportRecording(request: ExportRequest): Promise<ExportResult> { return this.call('exportRecording', [request]); }
  openRecording(request: OpenRecordingRequest): Promise<SessionInfo> { return this.call('openRecording', [request]); }
  countersHistory(sessionId: string): Promise<CountersPoint[]> { return this.call('countersHistory', [sessionId]); }
  outputHistory(sessionId: string): Promise<OutputHistory> { return this.call('outputHistory', [sessionId]); }
  loadSettings(): Promise<WorkstationSettings> { return this.call('loadSettings', []); }
  saveSettings(settings: WorkstationSettings): Promise<void> { return this.call('saveSettings', [settings]); }
  measure(request: MeasureRequest): Promise<MeasureReply> { return this.call('measure', [request]); }
  revertMeasure(request: RevertMeasureRequest): Promise<MeasureReply> { return this.call('revertMeasure', [request]); }
  sourceLines(sessionId: string): Promise<SourceLineTable> { return this.call('sourceLines', [sessionId]); }
  // No chooseRecordingFile: a page in a browser cannot learn a file's path, so the user types it.

  onEvent(listener: (event: WorkstationEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  // The reply's shape is the server's promise under the contract; the cast is where we trust it.
  private call<T>(op: Operation, args: unknown[], nonce?: string): Promise<T> {
    if (this.failure !== null) return Promise.reject(new Error(this.failure));
    const request: WsRequest = { id: this.nextId++, op, args, ...(nonce !== undefined ? { nonce } : {}) };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(request.id, { resolve: (v) => resolve(v as T), reject });
      const text = JSON.stringify(request);
      if (this.opened) this.socket.send(text);
      else this.queued.push(text);
    });
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
    this.queued.length = 0;
    for (const l of [...this.failureListeners]) l(message);
  }
}
