import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { CountersPoint, SessionInfo, WorkstationEvent } from '../../structs/api/contract.js';
import { decodeStreamFrame, type WsTextMessage } from '../../structs/api/ws-messages.js';
import { dumpRecording } from '../../structs/profile/recording-dump.js';
import { fixtureStream } from '../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { writeRecordingFile } from '../services/export/recording-file.js';
import { createWorkstationService, type WorkstationService } from '../services/workstation/workstation-service.js';
import { cookieName } from './access.js';
import { startBrowserMode, type BrowserMode } from './server.js';
import { LAUNCH_NEEDS_PAGE } from './ws-bridge.js';

interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The handshake's outcome: 'open', or the HTTP status the server refused it with. */
/** `client` listens from the moment the socket opens, so it hears the server's hello too. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ outcome: 'open' | number; ws?: WebSocket; client?: Client }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ outcome: 'open', ws, client: new Client(ws) }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ outcome: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

class Client {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Extract<WsTextMessage, { kind: 'reply' }>) => void>();
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Every event heard, stream frames decoded. */
  readonly events: WorkstationEvent[] = [];
  launchNonce: string | undefined;
  /** The nonce of the server's hello, once it came (a page's connection only). */
  readonly hello: Promise<string>;
  private gotHello: (nonce: string) => void = () => undefined;

  constructor(readonly ws: WebSocket) {
    this.hello = new Promise((resolve) => { this.gotHello = resolve; });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.events.push(decodeStreamFrame(new Uint8Array(data as Buffer)));
        return;
      }
      const message = JSON.parse(String(data)) as WsTextMessage;
      if (message.kind === 'reply') this.pending.get(message.id)?.(message);
      else if (message.kind === 'hello') {
        this.launchNonce = message.launchNonce;
        this.gotHello(message.launchNonce);
      }
      else this.events.push(message.event);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  call(op: string, args: unknown[], nonce?: string): Promise<Extract<WsTextMessage, { kind: 'reply' }>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, op, args, ...(nonce !== undefined ? { nonce } : {}) }));
    });
  }
}

describe('browser mode over real sockets', () => {
  let workstation: WorkstationService;
  let server: BrowserMode;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-renderer-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>clrscope</title>');
    writeFileSync(join(dir, 'app.js'), 'console.log(1);');
    writeFileSync(join(dir, '..', `${dir.split('/').pop()}-secret.txt`), 'secret');
    // Any existing file stands in for the profiler library: no launch here gets as far as loading it.
    workstation = createWorkstationService({ listProcesses: async () => [], libraryPath: process.execPath });
    server = await startBrowserMode({ workstation, rendererDir: dir });
  });

  after(async () => {
    await server.close();
    await workstation.shutdown();
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-secret.txt`, { force: true });
  });

  it('listens on 127.0.0.1 with a long random token in the URL', () => {
    assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{43}$`));
    assert.equal(server.origin, `http://127.0.0.1:${server.port}`);
    assert.equal(server.wsUrl, `ws://127.0.0.1:${server.port}/ws`);
  });

  it('refuses every request without the token with 403', async () => {
    for (const path of ['/', '/index.html', '/app.js', '/missing', '/?token=wrong', `/?token=${server.token}x`]) {
      const r = await get(server.port, path);
      assert.equal(r.status, 403, path);
      assert.match(r.body, /^Forbidden: open the address with the token that clrscope printed when it started\.\n$/);
      assert.equal(r.headers['set-cookie'], undefined);
      assert.ok(String(r.headers['content-security-policy']).includes("default-src 'self'"));
    }
    const wrongCookie = await get(server.port, '/app.js', { cookie: `${cookieName(server.port)}=nope` });
    assert.equal(wrongCookie.status, 403);
  });

  it('answers /?token=T with an HttpOnly, SameSite=Strict cookie and a redirect to the address without the token', async () => {
    const r = await get(server.port, `/?token=${server.token}`);
    assert.equal(r.status, 303);
    assert.equal(r.headers.location, '/');
    assert.equal(r.body, '');
    const cookie = String(r.headers['set-cookie']);
    assert.equal(cookie, `${cookieName(server.port)}=${server.token}; Path=/; HttpOnly; SameSite=Strict`);
    // Other parameters stay; only the token leaves the address.
    assert.equal((await get(server.port, `/?token=${server.token}&test`)).headers.location, '/?test');
    const page = await get(server.port, '/', { cookie: `${cookieName(server.port)}=${server.token}` });
    assert.equal(page.status, 200);
    assert.equal(page.body, '<!doctype html><title>clrscope</title>');
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['set-cookie'], undefined);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['content-security-policy'],
      `default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self' ws://127.0.0.1:${server.port} ws://localhost:${server.port}; `
      + "style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  });

  it('serves the renderer\'s files with the cookie, and nothing outside them', async () => {
    const cookie = `other=1; ${cookieName(server.port)}=${server.token}`;
    const js = await get(server.port, '/app.js', { cookie });
    assert.equal(js.status, 200);
    assert.equal(js.body, 'console.log(1);');
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.headers['set-cookie'], undefined);
    const secret = `${dir.split('/').pop()}-secret.txt`;
    for (const path of [`/../${secret}`, `/%2e%2e/${secret}`, `/assets/..%2f..%2f${secret}`, '/assets', '/nothing.js']) {
      const r = await get(server.port, path, { cookie });
      assert.equal(r.status, 404, path);
    }
    const post = await get(server.port, '/app.js', { cookie }, 'POST');
    assert.equal(post.status, 405);
    const head = await get(server.port, '/app.js', { cookie }, 'HEAD');
    assert.equal(head.status, 200);
  });

  it('answers only to 127.0.0.1:PORT and localhost:PORT in Host (DNS rebinding)', async () => {
    const withToken = `/?token=${server.token}`;
    for (const host of ['evil.example:' + server.port, `127.0.0.1:${server.port + 1}`, '127.0.0.1', `[::1]:${server.port}`]) {
      const r = await get(server.port, withToken, { host });
      assert.equal(r.status, 403, host);
      assert.match(r.body, /^Forbidden: browser mode answers only to 127\.0\.0\.1 and localhost\.\n$/);
    }
    assert.equal((await get(server.port, withToken, { host: `localhost:${server.port}` })).status, 303);
  });

  it('refuses the WebSocket upgrade without the token, from another origin or host, or off /ws', async () => {
    assert.equal((await upgrade(server.wsUrl)).outcome, 403);
    assert.equal((await upgrade(`${server.wsUrl}?token=wrong`)).outcome, 403);
    assert.equal((await upgrade(server.wsUrl, { cookie: `${cookieName(server.port)}=wrong` })).outcome, 403);
    assert.equal((await upgrade(`${server.wsUrl}?token=${server.token}`, { origin: 'http://evil.example' })).outcome, 403);
    assert.equal((await upgrade(`${server.wsUrl}?token=${server.token}`, { host: `attacker.example:${server.port}` })).outcome, 403);
    assert.equal((await upgrade(`ws://127.0.0.1:${server.port}/other?token=${server.token}`)).outcome, 404);
  });

  it('accepts the WebSocket with the cookie (as the page does) or the token, and answers requests', async () => {
    const { outcome, ws } = await upgrade(server.wsUrl, { cookie: `${cookieName(server.port)}=${server.token}`, origin: server.origin });
    assert.equal(outcome, 'open');
    const client = new Client(ws!);
    assert.deepEqual(await client.call('listSessions', []), { kind: 'reply', id: 1, ok: true, result: [] });
    assert.deepEqual(await client.call('listProcesses', []), { kind: 'reply', id: 2, ok: true, result: [] });
    ws!.close();
    const viaQuery = await upgrade(`${server.wsUrl}?token=${server.token}`);
    assert.equal(viaQuery.outcome, 'open');
    viaQuery.ws!.close();
  });

  it('answers a bad argument with the validation sentence, and an unknown operation too', async () => {
    // As the page connects (with its Origin): the hello's nonce goes with each launch.
    const { ws, client: opened } = await upgrade(server.wsUrl, { cookie: `${cookieName(server.port)}=${server.token}`, origin: server.origin });
    const client = opened!;
    const nonce = await client.hello;
    assert.deepEqual(await client.call('attach', [{ pid: -3 }]), { kind: 'reply', id: 1, ok: false, error: 'The pid must be a positive whole number, not -3.' });
    assert.deepEqual(await client.call('exportRecording', [{ sessionId: 's1', format: 'pprof', path: 'x.pb.gz' }]),
      { kind: 'reply', id: 2, ok: false, error: 'There is no session "s1".' });
    assert.deepEqual(await client.call('launch', [{ command: 'dotnet', args: 'app.dll' }], nonce),
      { kind: 'reply', id: 3, ok: false, error: 'The program\'s arguments (args) must be a list of text, not "app.dll".' });
    assert.deepEqual(await client.call('eval', ['1']), { kind: 'reply', id: 4, ok: false, error: 'Unknown operation "eval".' });
    assert.deepEqual(await client.call('launch', [{ command: 'clrscope-no-such-command-here', args: [] }], nonce),
      { kind: 'reply', id: 5, ok: false, error: 'Command not found: clrscope-no-such-command-here.' });
    ws!.close();
  });

  it('runs a launch only with the nonce its page was given: not without it, not with another, not on a connection that is no page\'s', async () => {
    const { ws, client } = await upgrade(server.wsUrl, { cookie: `${cookieName(server.port)}=${server.token}`, origin: server.origin });
    const page = client!;
    const nonce = await page.hello;
    assert.match(nonce, /^[A-Za-z0-9_-]{43}$/);
    const request = [{ command: 'clrscope-no-such-command-here', args: [] }];
    const refused = { ok: false, error: LAUNCH_NEEDS_PAGE };
    assert.deepEqual(await page.call('launch', request), { kind: 'reply', id: 1, ...refused });
    assert.deepEqual(await page.call('launch', request, `${nonce.slice(1)}x`), { kind: 'reply', id: 2, ...refused });
    assert.deepEqual(await page.call('launchDemo', []), { kind: 'reply', id: 3, ...refused });
    // Another page has its own nonce; this page's is no good there.
    const other = await upgrade(server.wsUrl, { cookie: `${cookieName(server.port)}=${server.token}`, origin: server.origin });
    const otherPage = other.client!;
    assert.notEqual(await otherPage.hello, nonce);
    assert.deepEqual(await otherPage.call('launch', request, nonce), { kind: 'reply', id: 1, ...refused });
    // A client without Origin (the token in its query, no page) gets no nonce and cannot launch.
    const bare = await upgrade(`${server.wsUrl}?token=${server.token}`);
    const script = bare.client!;
    assert.deepEqual(await script.call('launch', request, nonce), { kind: 'reply', id: 1, ...refused });
    assert.equal(script.launchNonce, undefined);
    // With its nonce, the page's launch runs (and this command does not exist).
    assert.deepEqual(await page.call('launch', request, nonce), { kind: 'reply', id: 4, ok: false, error: 'Command not found: clrscope-no-such-command-here.' });
    for (const c of [ws!, other.ws!, bare.ws!]) c.close();
  });

  it('opens a recording file over the socket: progress and session as text, the stream as binary frames, the counters on request', async () => {
    const rec = recordingFromStream([fixtureStream({ end: true })]);
    const counters: CountersPoint[] = [{ timeMs: 1_700_000_000_300, values: { gc: { genCollections0: 2 } } }];
    const path = join(dir, 'over-ws.clrscope');
    await writeRecordingFile(path, rec, counters);
    const { ws } = await upgrade(`${server.wsUrl}?token=${server.token}`);
    const client = new Client(ws!);
    const opened = await client.call('openRecording', [{ path }]);
    assert.equal(opened.ok, true, JSON.stringify(opened));
    const info = (opened as { result: SessionInfo }).result;
    assert.equal(info.source, 'file');
    assert.ok(client.events.some((e) => e.type === 'open-progress' && e.path === path && e.phase === 'reading'));
    assert.ok(client.events.some((e) => e.type === 'session' && e.session.id === info.id));
    await client.call('subscribe', [info.id]);
    const stream = client.events.flatMap((e) => (e.type === 'stream' && e.sessionId === info.id ? [e.chunk] : []));
    assert.equal(dumpRecording(recordingFromStream(stream)), dumpRecording(rec));
    assert.deepEqual(await client.call('countersHistory', [info.id]), { kind: 'reply', id: 3, ok: true, result: counters });
    assert.deepEqual(await client.call('outputHistory', [info.id]),
      { kind: 'reply', id: 4, ok: true, result: { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } } }, 'a file has no program output');
    assert.deepEqual(await client.call('openRecording', [{ path: 'x.clrscope' }]),
      { kind: 'reply', id: 5, ok: false, error: 'The recording path must be an absolute path, not "x.clrscope".' });
    ws!.close();
  });

  it('closes a connection that sends something other than a JSON request', async () => {
    for (const [payload, code] of [['not json', 1007], ['[1,2]', 1008], ['{"op":"listSessions","args":[]}', 1008]] as const) {
      const { ws } = await upgrade(`${server.wsUrl}?token=${server.token}`);
      const client = new Client(ws!);
      ws!.send(payload);
      assert.equal((await client.closed).code, code, payload);
    }
    const { ws } = await upgrade(`${server.wsUrl}?token=${server.token}`);
    const client = new Client(ws!);
    ws!.send(Buffer.from([1, 2, 3]), { binary: true });
    assert.equal((await client.closed).code, 1003);
  });
});
