// Browser mode: the workstation's renderer served on 127.0.0.1 and its API bridged over a
// WebSocket, for machines without the Electron binary. Same renderer, same services, same
// contract; only the transport differs. Access needs this run's random token (see access.ts),
// every response carries the renderer's Content-Security-Policy.

import { createReadStream, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { packageRoot } from '../services/profiler/profiler-env.js';
import type { WorkstationService } from '../services/workstation/workstation-service.js';
import { contentSecurityPolicy, securityHeaders } from '../security/content-security-policy.js';
import { contentTypeOf, resolveRendererFile } from '../security/renderer-files.js';
import { allowedOrigins, checkToken, hostAllowed, newToken, originAllowed, tokenCookie } from './access.js';
import { bridgeConnection } from './ws-bridge.js';

export const WS_PATH = '/ws';
/** Requests are small; a launch with many long arguments stays far below this. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export interface BrowserModeOptions {
  workstation: WorkstationService;
  /** The built renderer (default renderer/dist in the checkout). */
  rendererDir?: string;
  /** 0 or absent: a free port. */
  port?: number;
}

export interface BrowserMode {
  readonly port: number;
  /** This run's secret; whoever has it can drive the workstation. */
  readonly token: string;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  /** The address to open: the origin with `/?token=…` (answered with the cookie and a redirect to `/`). */
  readonly url: string;
  /** The WebSocket's address (the page opens it with the cookie; other clients add `?token=…`). */
  readonly wsUrl: string;
  /** Drops every page's WebSocket as a failing network would (pages reconnect and resume); for tests of just that. */
  dropConnections(): void;
  /** Stops accepting, closes every WebSocket and the server (the workstation is the caller's). */
  close(): Promise<void>;
}

export function defaultRendererDir(): string {
  return join(packageRoot(), 'renderer', 'dist');
}

function refuse(res: ServerResponse, status: number, sentence: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${sentence}\n`);
}

function refuseUpgrade(socket: Duplex, status: 400 | 403 | 404): void {
  const text = status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

export async function startBrowserMode(options: BrowserModeOptions): Promise<BrowserMode> {
  const token = newToken();
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  let port = 0;
  let headers: Record<string, string> = {};
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_REQUEST_BYTES, perMessageDeflate: false });
  wss.on('connection', (ws, req: IncomingMessage) => {
    // A browser sends Origin on every WebSocket handshake (checked to be ours by then): such a
    // connection is a workstation page's, and it alone gets a launch nonce.
    bridgeConnection(ws, options.workstation, req.headers.origin !== undefined ? newToken() : undefined);
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (!hostAllowed(req, port)) {
      refuse(res, 403, 'Forbidden: browser mode answers only to 127.0.0.1 and localhost.', headers);
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const access = checkToken(req, url, port, token);
    if (!access.ok) {
      refuse(res, 403, 'Forbidden: open the address with the token that clrscope printed when it started.', headers);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      refuse(res, 405, 'Only GET and HEAD are served here.', { ...headers, Allow: 'GET, HEAD' });
      return;
    }
    if (access.fromQuery) {
      // The token moves into the cookie and out of the address bar and the history: the page
      // loads again from the same address without it (other parameters kept).
      url.searchParams.delete('token');
      const clean = `${url.pathname}${url.searchParams.size > 0 ? `?${url.searchParams.toString().replace(/=(&|$)/g, '$1')}` : ''}`;
      res.writeHead(303, { ...headers, Location: clean, 'Set-Cookie': tokenCookie(port, token) });
      res.end();
      return;
    }
    const file = resolveRendererFile(rendererDir, url.pathname);
    if (file === undefined) {
      if ((url.pathname === '/' || url.pathname === '/index.html') && !existsSync(join(rendererDir, 'index.html'))) {
        refuse(res, 503, 'The renderer is not built: run npm run build:renderer, then reload.', headers);
      } else {
        refuse(res, 404, 'Not found.', headers);
      }
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': contentTypeOf(file) });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  };

  const server = createServer(onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!hostAllowed(req, port) || !originAllowed(req, port)) {
      refuseUpgrade(socket, 403);
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (!checkToken(req, url, port, token).ok) {
      refuseUpgrade(socket, 403);
      return;
    }
    if (url.pathname !== WS_PATH) {
      refuseUpgrade(socket, 404);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  // Requests and headers are small; a slow or idle client cannot hold the server.
  server.headersTimeout = 10000;
  server.requestTimeout = 30000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  headers = securityHeaders(contentSecurityPolicy({ connect: allowedOrigins(port).map((o) => o.replace(/^http:/, 'ws:')) }));

  let closing: Promise<void> | undefined;
  return {
    port,
    token,
    origin,
    url: `${origin}/?token=${token}`,
    wsUrl: `ws://127.0.0.1:${port}${WS_PATH}`,
    dropConnections(): void {
      for (const ws of wss.clients) ws.terminate();
    },
    close(): Promise<void> {
      closing ??= (async () => {
        for (const ws of wss.clients) ws.terminate();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}
