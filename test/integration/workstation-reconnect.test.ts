// Browser mode's page in Chromium survives a dropped WebSocket: the server drops every socket
// (as a network, or the server's own "fell too far behind" limit, would) while a live session is
// shown; the page reconnects with its cookie, asks for the stream from the byte it holds (not
// from 0), and ends up with every sample of the session; the Close button works over the new
// socket and frees the session's spool file. The "profiler" is a small Node program launched as
// the program, sending a wire stream to the real collector's socket in two parts, the second
// once the test says so.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { STREAM_PLAYER_PROGRAM, twoPartStream } from '../../electron/services/workstation/replayed-stream.test-support.js';
import { appState, hookReady, missingForPage, openPage, RENDERER, until } from './support/workstation-page.js';

const missing = missingForPage();
const skip = missing.length > 0 && !process.env.CI;

const FIXTURE_SAMPLES = 8;


describe('browser mode reconnects and resumes after its socket drops, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false, timeout: 120000 }, () => {
  let dir: string;
  let spool: string;
  let workstation: WorkstationService;
  let server: BrowserMode;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  /** Every subscribe the page made, as `id@offset`. */
  const subscribes: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the reconnect test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-reconnect-'));
    spool = join(dir, 'spool');
    mkdirSync(spool);
    chmodSync(spool, 0o700);
    // Any existing file stands in for the profiler library: Node does not load it.
    workstation = createWorkstationService({ spoolDir: spool, libraryPath: process.execPath, listProcesses: async () => [] });
    // The page's calls are seen on their way in, to tell a resume from a start over.
    const watched: WorkstationService = {
      ...workstation,
      connect: () => {
        const client = workstation.connect();
        return {
          ...client,
          subscribe: (id, from) => {
            subscribes.push(`${id}@${from ?? 0}`);
            return client.subscribe(id, from);
          },
        };
      },
    };
    server = await startBrowserMode({ workstation: watched, rendererDir: RENDERER });
    ({ browser, page, errors: pageErrors } = await openPage());
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await workstation?.shutdown();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('resumes a live session from the bytes it holds, then closes it over the new socket', async () => {
    const samples = 200_000;
    const { first, second, all: { length } } = twoPartStream(samples, { wall: false });
    const go = join(dir, 'go');
    writeFileSync(join(dir, 'first.bin'), first);
    writeFileSync(join(dir, 'second.bin'), second);
    writeFileSync(join(dir, 'program.mjs'), STREAM_PLAYER_PROGRAM);

    await page.goto(`${server.url}&test`);
    await hookReady(page);
    const info = await workstation.launch({ command: process.execPath, args: [join(dir, 'program.mjs'), join(dir, 'first.bin'), join(dir, 'second.bin'), go] });
    await page.locator(`[data-testid=session-row][data-session-id=${info.id}]`).click();
    // The summary comes from the worker's refresh, which can trail the bytes: one taken while only
    // the stream's header had arrived said 0 samples with every byte of part one already in.
    const partOne = await until('the first part in the page', () => appState(page), (s) => s.streamBytes === first.length && (s.summary?.sampleCount ?? 0) > 0);
    assert.ok((partOne.summary?.sampleCount ?? 0) > 0);
    assert.deepEqual(subscribes, [`${info.id}@0`]);

    server.dropConnections();
    // The rest of the stream arrives while the page is away or coming back.
    writeFileSync(go, '');
    const done = await until('the whole stream in the page', () => appState(page),
      (s) => s.streamBytes === length && s.summary?.sampleCount === FIXTURE_SAMPLES + samples && s.sessions.some((x) => x.id === info.id && x.state === 'stopped'), 30000);
    assert.equal(done.error, null, 'no error shown: the drop was repaired');
    assert.deepEqual(subscribes, [`${info.id}@0`, `${info.id}@${first.length}`], 'resumed from the byte it held, not from 0');

    // The new socket carries requests: Close frees the session and its file.
    const path = workstation.streamStorage(info.id).path;
    assert.ok(path !== undefined && existsSync(path));
    await page.getByTestId('tab-processes').click();
    await page.locator('[data-testid=session-close]').click();
    await until('the session to go', () => appState(page), (s) => s.sessions.length === 0 && s.selectedSessionId === null);
    assert.equal(workstation.hasSession(info.id), false);
    assert.equal(existsSync(path), false);
    assert.deepEqual(readdirSync(spool), []);
    // Chromium logs the dropped socket itself; nothing else went wrong in the page.
    assert.deepEqual(pageErrors.filter((e) => !/WebSocket/.test(e)), []);
  });
});
