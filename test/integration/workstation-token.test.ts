// Browser mode's token and Launch, in Debian's Chromium: opened with the printed address, the
// page ends up at the same address without the token (a cookie holds it; nothing with the
// token stays in the address bar or the history); its Launch form shows the exact command line
// before it runs, and only that form can launch: a client holding the token but not the page's
// nonce is refused.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { cookieName } from '../../electron/browser-mode/access.js';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { LAUNCH_NEEDS_PAGE } from '../../electron/browser-mode/ws-bridge.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { BrowserModeClient } from './support/browser-mode-client.js';
import { PROFILER } from './support/paths.js';
import { appState, hookReady, missingForPage, openPage, RENDERER, until } from './support/workstation-page.js';

const missing = missingForPage();
const skip = missing.length > 0 && !process.env.CI ? `missing: ${missing.join('; ')}` : false;
if (skip) process.stderr.write(`workstation-token: SKIPPED, ${skip}\n`);

describe('browser mode: the token leaves the address, and only the page\'s form launches', { skip }, () => {
  let dir: string;
  let workstation: WorkstationService;
  let server: BrowserMode;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-token-test-'));
    workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports'), connectTimeoutMs: 500 });
    server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    ({ browser, page, errors } = await openPage());
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await workstation?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the printed address redirects to itself without the token, which a cookie now holds', { timeout: 60000 }, async () => {
    const statuses: string[] = [];
    page.on('response', (r) => statuses.push(`${r.status()} ${r.url()}`));
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    assert.equal(page.url(), `${server.origin}/?test`);
    assert.equal(statuses[0], `303 ${server.url}&test`);
    assert.ok(statuses.every((s, i) => i === 0 || !s.includes(server.token)), statuses.join('\n'));
    const cookies = await page.context().cookies(server.origin);
    const cookie = cookies.find((c) => c.name === cookieName(server.port));
    assert.equal(cookie?.value, server.token);
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    // Nothing a script on the page can read carries the token: not the address, not the history, not the cookie.
    const seen = await page.evaluate(() => {
      const w = globalThis as unknown as { location: { href: string }; document: { referrer: string; cookie: string } };
      return `${w.location.href} ${w.document.referrer} ${w.document.cookie}`;
    });
    assert.ok(!seen.includes(server.token), seen);
    // Back goes where the browser was before, not to an address with the token.
    await page.goBack();
    assert.ok(!page.url().includes(server.token), page.url());
    await page.goForward();
    await hookReady(page);
    assert.equal(page.url(), `${server.origin}/?test`);
    // Reloading works on the cookie alone.
    await page.reload();
    await hookReady(page);
    assert.equal((await appState(page)).error, null);
  });

  it('the Launch form shows the exact command line, and its launch runs it', { timeout: 60000 }, async () => {
    await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-command').fill('sh');
    await page.getByTestId('launch-args').fill(`-c 'echo "a b"; exit 3'`);
    await page.getByTestId('launch-cwd').fill(dir);
    const preview = await page.getByTestId('launch-preview').innerText();
    assert.equal(preview, `Runs: sh -c 'echo "a b"; exit 3' (in ${dir})`);
    await page.getByTestId('launch-submit').click();
    const state = await until('the launched command to end', () => appState(page), (s) => s.sessions.some((x) => x.label === `sh -c 'echo "a b"; exit 3'` && x.state === 'failed'), 30000);
    const session = state.sessions.find((x) => x.label === `sh -c 'echo "a b"; exit 3'`);
    assert.match(session?.message ?? '', /exited with code 3 before a \.NET runtime connected/);
    assert.deepEqual(errors, []);
  });

  it('a client with the token but not the page\'s nonce cannot launch', async () => {
    const noPage = await BrowserModeClient.connect(server.wsUrl, server.token, false);
    try {
      await assert.rejects(noPage.call('launch', { command: 'sh', args: ['-c', 'exit 0'] }), new Error(LAUNCH_NEEDS_PAGE));
      await assert.rejects(noPage.call('launchDemo'), new Error(LAUNCH_NEEDS_PAGE));
      // Everything else still answers.
      assert.ok(Array.isArray(await noPage.call('listSessions')));
    } finally {
      noPage.close();
    }
  });
});
