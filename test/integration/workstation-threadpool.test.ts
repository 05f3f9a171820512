// The Thread pool tab in real Chromium on a real recording of a starved pool (RequestWeb's
// sync-over-async endpoint under 16 connections, support/starved-pool.ts): the tab must show the
// figures `clrscope report --blocking` prints for the same file (the diagnosis, the ranked sites
// with their wait, share and threads), the pool's workers over time with its shortages, and a
// clicked site's stacks, the heaviest as the report gives it. A recording of a program that is no
// server says in one sentence that it has no pool story.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import type { BlockingReport } from '../../electron/cli/report-blocking.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { PROFILER, ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { WEB_DLL, recordStarved } from './support/starved-pool.js';
import { appState, checkedScreenshot, hookReady, missingForPage, until } from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'threadpool');

function missingPrerequisites(): string[] {
  const m = missingForPage();
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(WEB_DLL)) m.push('RequestWeb.dll (npm run build:targets)');
  if (!existsSync(join(ROOT, 'test', 'targets', 'Demo', 'bin', 'out', 'Demo.dll'))) m.push('Demo.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-threadpool: SKIPPED, missing: ${missing.join('; ')}\n`);

async function openFile(page: Page, file: string): Promise<void> {
  await page.getByTestId('tab-processes').click();
  if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
  await page.getByTestId('open-path').fill(file);
  await page.getByTestId('open-submit').click();
  const before = (await appState(page)).selectedSessionId;
  await until('the recording to open', () => appState(page), (s) => s.opening === null && s.selectedSessionId !== null && s.selectedSessionId !== before, 60000);
  const samples = (await readRecordingFile(file)).recording.sampleCount;
  await until('the whole recording in the worker', () => appState(page), (s) => s.summary !== null && s.summary.sampleCount === samples, 30000);
}

describe('the Thread pool tab', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let starved: string;
  let plain: string;
  let report: BlockingReport;
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the thread-pool tab test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-pool-tab-'));
    starved = await recordStarved(dir, 'dotnet', [WEB_DLL]);
    const json = await runCli(['report', starved, '--blocking', '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    report = JSON.parse(json.stdout) as BlockingReport;
    plain = join(dir, 'plain.clrscope');
    const r = await runCli(['record', '-o', plain, '--', 'dotnet', join(ROOT, 'test', 'targets', 'Demo', 'bin', 'out', 'Demo.dll'), '--seconds', '2'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    ({ server, page, errors: pageErrors } = ui);
    await page.goto(`${server.url}&test`);
    await hookReady(page);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the diagnosis, the shortages and the ranked sites as report --blocking does; a clicked site shows its stacks', { timeout: 120000 }, async () => {
    await openFile(page, starved);
    await page.getByTestId('tab-threadpool').click();
    const diagnosis = await until('the diagnosis', () => page.getByTestId('pool-diagnosis').innerText().catch(() => ''), (t) => t !== '', 30000);
    assert.equal(diagnosis, report.starvation.diagnosis);
    assert.match(diagnosis, /^The thread pool was short of threads for/);
    assert.equal(await page.getByTestId('pool-shortage').count(), report.starvation.shortages.length);
    assert.ok(report.starvation.shortages.length >= 1);
    const rows = page.getByTestId('pool-site-row');
    assert.equal(await rows.count(), report.blocking.length);
    for (let i = 0; i < Math.min(3, report.blocking.length); i++) {
      const b = report.blocking[i];
      const row = rows.nth(i);
      assert.equal(await row.getByTestId('pool-site').innerText(), b.site);
      assert.equal(await row.getByTestId('pool-waiting-on').innerText(), b.waitingOn);
      assert.equal(Number(await row.getByTestId('pool-wait-ms').innerText()), Number(b.waitMs.toFixed(1)));
      // The tab shows a share to 0.1% (0.01% below 10%), the report to 0.01%.
      const shown = Number((await row.getByTestId('pool-share').innerText()).replace('%', ''));
      assert.ok(Math.abs(shown - 100 * b.share) <= 0.051, `${b.site}: ${shown}% shown, ${100 * b.share}% reported`);
      assert.equal(Number(await row.getByTestId('pool-threads').innerText()), b.threads);
    }
    await rows.first().click();
    const frames = await page.getByTestId('pool-stack').first().locator('li').allInnerTexts();
    assert.deepEqual(frames, report.blocking[0].stack);
    await checkedScreenshot(page, 'threadpool-tab', { dir: ARTIFACTS });
    assert.deepEqual(pageErrors, []);
  });

  it('says in one sentence that a recording of a program that is no server has no pool story', { timeout: 120000 }, async () => {
    await openFile(page, plain);
    await page.getByTestId('tab-threadpool').click();
    const diagnosis = await until('the diagnosis', () => page.getByTestId('pool-diagnosis').innerText().catch(() => ''), (t) => t.startsWith('This recording'), 30000);
    assert.match(diagnosis, /^This recording has no thread-pool events/);
    assert.equal(await page.getByTestId('pool-no-events').count(), 1);
    assert.deepEqual(pageErrors, []);
  });
});
