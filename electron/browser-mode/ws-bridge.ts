// One browser tab's WebSocket: JSON text requests (WsRequest) are validated and run against the
// workstation, each answered by a WsReply; events follow as text frames, except a session's
// stream bytes, which go as binary frames (structs/api/ws-messages.ts).

import type { RawData, WebSocket } from 'ws';
import { encodeStreamFrame, NONCE_OPERATIONS, type WsTextMessage } from '../../structs/api/ws-messages.js';
import type { Operation } from '../../structs/api/contract.js';
import { sameToken } from './access.js';
import { callOperation, errorSentence, logIfUnexpected } from '../services/api/dispatch.js';
import type { WorkstationService } from '../services/workstation/workstation-service.js';

/** More unsent output than this and the tab is not reading: it is dropped (it reconnects and resumes where it was). */
export const MAX_BUFFERED_BYTES = 512 * 1024 * 1024;
/** A replay sends its next step once the socket holds less than this unsent. */
export const REPLAY_BUFFERED_BYTES = 4 * 1024 * 1024;
const DRAIN_POLL_MS = 5;

function send(ws: WebSocket, message: WsTextMessage): void {
  ws.send(JSON.stringify(message));
}

/** Why a launch without the page's nonce is refused. */
export const LAUNCH_NEEDS_PAGE = 'Programs are launched only from the workstation page\'s own Launch form.';

/**
 * `launchNonce`: given to a connection a workstation page opened (it sent our Origin), which
 * alone may launch programs, by sending it back with each launch request.
 */
export function bridgeConnection(ws: WebSocket, workstation: WorkstationService, launchNonce?: string): void {
  const client = workstation.connect();
  // ws has no drain event of its own: a replay looks at the socket's unsent bytes between steps.
  client.setDrained(() => new Promise<void>((resolve) => {
    const check = (): void => {
      if (ws.readyState !== ws.OPEN || ws.bufferedAmount < REPLAY_BUFFERED_BYTES) resolve();
      else setTimeout(check, DRAIN_POLL_MS);
    };
    check();
  }));
  if (launchNonce !== undefined) send(ws, { kind: 'hello', launchNonce });
  const stopEvents = client.onEvent((event) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1013, 'The page fell too far behind the stream.');
      return;
    }
    if (event.type === 'stream') ws.send(encodeStreamFrame(event.sessionId, event.offset, event.chunk), { binary: true });
    else send(ws, { kind: 'event', event });
  });

  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) {
      ws.close(1003, 'Requests are JSON text frames.');
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(rawText(data));
    } catch {
      ws.close(1007, 'A request was not JSON.');
      return;
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      ws.close(1008, 'A request must be a JSON object.');
      return;
    }
    const { id, op, args, nonce } = request as { id?: unknown; op?: unknown; args?: unknown; nonce?: unknown };
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
      ws.close(1008, 'A request needs a whole-number id.');
      return;
    }
    // Launching runs any command: the request must come from the page's own form, which alone
    // holds this connection's nonce (a connection without Origin, not a page's, has none).
    if (NONCE_OPERATIONS.includes(op as Operation) && (launchNonce === undefined || typeof nonce !== 'string' || !sameToken(nonce, launchNonce))) {
      send(ws, { kind: 'reply', id, ok: false, error: LAUNCH_NEEDS_PAGE });
      return;
    }
    callOperation(client, op, args, workstation).then(
      (result) => {
        if (ws.readyState === ws.OPEN) send(ws, { kind: 'reply', id, ok: true, result: result ?? null });
      },
      (err: unknown) => {
        logIfUnexpected(op, err);
        if (ws.readyState === ws.OPEN) send(ws, { kind: 'reply', id, ok: false, error: errorSentence(err) });
      },
    );
  });

  ws.on('error', () => undefined);
  ws.on('close', () => {
    stopEvents();
    client.close();
  });
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
