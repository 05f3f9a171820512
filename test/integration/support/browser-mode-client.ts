// A Node client of browser mode's WebSocket, speaking structs/api/ws-messages.ts as the
// renderer's bridge does: JSON requests and replies, JSON events, binary stream frames.

import WebSocket from 'ws';
import type { SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { decodeStreamFrame, type WsTextMessage } from '../../../structs/api/ws-messages.js';

export type TextEvent = Exclude<WorkstationEvent, { type: 'stream' }>;
type Reply = Extract<WsTextMessage, { kind: 'reply' }>;

export class BrowserModeClient {
  readonly events: TextEvent[] = [];
  /** Each session's stream frames as they came: offset and bytes. */
  readonly frames = new Map<string, { offset: number; chunk: Uint8Array }[]>();
  private nextId = 1;
  /** The nonce the server gives a page's connection; launches carry it, as the page's form does. */
  private launchNonce: string | undefined;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        const frame = decodeStreamFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
        const list = this.frames.get(frame.sessionId) ?? [];
        list.push({ offset: frame.offset, chunk: frame.chunk });
        this.frames.set(frame.sessionId, list);
      } else {
        const message = JSON.parse(data.toString('utf8')) as WsTextMessage;
        if (message.kind === 'reply') this.pending.get(message.id)?.(message);
        else if (message.kind === 'hello') this.launchNonce = message.launchNonce;
        else this.events.push(message.event);
      }
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Connects as the workstation page does (with its Origin, so launches are allowed, once its hello came), unless `asPage` is false. */
  static connect(wsUrl: string, token: string, asPage = true): Promise<BrowserModeClient> {
    return new Promise((resolve, reject) => {
      const origin = wsUrl.replace(/^ws:/, 'http:').replace(/\/ws$/, '');
      const ws = new WebSocket(`${wsUrl}?token=${token}`, asPage ? { origin } : {});
      ws.once('open', () => {
        const client = new BrowserModeClient(ws);
        if (!asPage) resolve(client);
        else void client.until('the page\'s hello', () => client.launchNonce, 10000).then(() => resolve(client), reject);
      });
      ws.once('error', reject);
    });
  }

  /** Calls an operation; rejects with the workstation's sentence. */
  async call<T>(op: string, ...args: unknown[]): Promise<T> {
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve) => {
      this.pending.set(id, resolve);
      const nonce = op === 'launch' || op === 'launchDemo' ? this.launchNonce : undefined;
      this.ws.send(JSON.stringify({ id, op, args, ...(nonce !== undefined ? { nonce } : {}) }));
    });
    this.pending.delete(id);
    if (!reply.ok) throw new Error(reply.error);
    return reply.result as T;
  }

  /** Waits until `check` returns something, re-checking on every message. */
  async until<T>(what: string, check: () => T | undefined, timeoutMs = 60000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done(): void {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        const waiters = this.waiters;
        waiters.add(done);
      });
    }
  }

  sessionStates(id: string): SessionInfo[] {
    return this.events.flatMap((e) => (e.type === 'session' && e.session.id === id ? [e.session] : []));
  }

  lastSession(id: string): SessionInfo | undefined {
    return this.sessionStates(id).at(-1);
  }

  /** The session's bytes, checking that the frames are contiguous from 0. */
  bytes(id: string): Uint8Array {
    const frames = this.frames.get(id) ?? [];
    let expected = 0;
    for (const f of frames) {
      if (f.offset !== expected) throw new Error(`stream ${id}: a frame at offset ${f.offset}, expected ${expected}`);
      expected += f.chunk.length;
    }
    const out = new Uint8Array(expected);
    for (const f of frames) out.set(f.chunk, f.offset);
    return out;
  }

  close(): void {
    this.ws.close();
  }
}
