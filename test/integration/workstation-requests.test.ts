// The Requests and Thread pool tabs in real Chromium on a real recording of an ASP.NET Core program
// with a starved pool (RequestWeb's sync-over-async /block/300 and a CPU-bound /cpu/5 under 16
// connections, support/starved-pool.ts). The Requests tab must show the figures `clrscope report
// --requests` prints for the same file (count, p50/p90/p99/max, CPU per request, errors) with a
// latency histogram holding every request, and its "Flame graph" must show only the samples the
// endpoint's requests hold (their CPU is the report's CPU of the endpoint, Work.Burn in it). The
// Thread pool tab must show what `report --blocking` prints (the diagnosis, the ranked sites with
// their wait, share and threads), the pool's workers over time with its shortages, its queue as
// report --blocking gives it, and a clicked site's stacks, the heaviest as the report gives it. A
// recording of a program that is no server says in one sentence that it has neither. A recording
// past the requests' rate budget (4 connections of cheap requests: the profiler listened part of
// the time) says so above the table in the sentence `report --requests` prints after it; the
// starved recording, heard whole, does not.

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
import { WEB_DLL, recordStarved, recordedRequestWeb } from './support/starved-pool.js';
import { appState, checkedScreenshot, flameNodes, hookReady, missingForPage, until } from './support/workstation-page.js';
import type { EndpointRow } from '../../structs/analysis/requests.js';

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

describe('the Requests and Thread pool tabs', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let starved: string;
  let plain: string;
  let sampled: string;
  let report: BlockingReport;
  let requests: EndpointRow[];
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the thread-pool tab test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-pool-tab-'));
    starved = (await recordStarved(dir, 'dotnet', [WEB_DLL])).file;
    const json = await runCli(['report', starved, '--blocking', '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    report = JSON.parse(json.stdout) as BlockingReport;
    const table = await runCli(['report', starved, '--requests', '--format', 'json']);
    assert.equal(table.code, 0, table.stderr);
    requests = (JSON.parse(table.stdout) as { requests: EndpointRow[] }).requests;
    sampled = join(dir, 'sampled.clrscope');
    await recordedRequestWeb(sampled, 'dotnet', [WEB_DLL], (url) => {
      const load = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '4', '--parallel', '4', '--paths', '/cpu/0,/fail'], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(load.status, 0, load.stderr);
    });
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

  it('Requests: the table report --requests prints, a histogram of every request, and an endpoint\'s own flame graph', { timeout: 120000 }, async () => {
    await openFile(page, starved);
    await page.getByTestId('tab-requests').click();
    const rows = page.getByTestId('requests-row');
    await until('the requests table', () => rows.count(), (n) => n > 0, 30000);
    assert.equal(await rows.count(), requests.length);
    assert.ok(requests.length >= 2, JSON.stringify(requests));
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i];
      const row = rows.nth(i);
      assert.equal(await row.getByTestId('requests-endpoint').innerText(), r.endpoint);
      assert.equal(Number(await row.getByTestId('requests-count').innerText()), r.count);
      for (const [id, v] of [['requests-p50', r.p50Ms], ['requests-p90', r.p90Ms], ['requests-p99', r.p99Ms], ['requests-max', r.maxMs], ['requests-cpu', r.count === 0 ? 0 : r.cpuMs / r.count]] as const) {
        assert.equal(await row.getByTestId(id).innerText(), v.toFixed(2), `${r.endpoint} ${id}`);
      }
      assert.equal(Number(await row.getByTestId('requests-errors').innerText()), r.errors);
      await row.click();
      const bars = await page.getByTestId('requests-histogram-bar').evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-count'))));
      assert.equal(bars.reduce((s, n) => s + n, 0), r.count, `${r.endpoint}: the histogram holds every request`);
    }
    const cpu = requests.find((r) => r.endpoint === 'GET /cpu/{ms}');
    assert.ok(cpu !== undefined && cpu.cpuMs > 50, JSON.stringify(cpu));
    await rows.nth(requests.indexOf(cpu)).getByTestId('requests-flame').click();
    await until('the flame tab', () => appState(page), (s) => s.tab === 'flame', 10000);
    assert.match(await page.getByTestId('endpoint-clear').innerText(), /GET \/cpu\/\{ms\}/);
    const nodes = await until('the endpoint\'s flame graph', () => flameNodes(page), (n) => n.length > 0 && Math.abs(n[0].total / 1e6 - cpu.cpuMs) <= 0.01 * cpu.cpuMs + 1, 30000);
    const burn = nodes.filter((n) => n.label.includes('Work.Burn')).reduce((s, n) => s + n.total, 0);
    assert.ok(burn > 0.5 * nodes[0].total, `Work.Burn holds ${burn} of the endpoint's ${nodes[0].total} ns`);
    assert.equal(nodes.some((n) => n.label.includes('Work.BlockOn')), false, 'no sample of the /block endpoint');
    await checkedScreenshot(page, 'endpoint-flame', { dir: ARTIFACTS });
    await page.getByTestId('endpoint-clear').click();
    await page.getByTestId('tab-requests').click();
    await checkedScreenshot(page, 'requests-tab', { dir: ARTIFACTS });
    assert.deepEqual(pageErrors, []);
  });

  it('Thread pool: shows the diagnosis, the shortages and the ranked sites as report --blocking does; a clicked site shows its stacks', { timeout: 120000 }, async () => {
    await openFile(page, starved);
    await page.getByTestId('tab-threadpool').click();
    const diagnosis = await until('the diagnosis', () => page.getByTestId('pool-diagnosis').innerText().catch(() => ''), (t) => t !== '', 30000);
    assert.equal(diagnosis, report.starvation.diagnosis);
    assert.match(diagnosis, /^The thread pool was short of threads for/);
    assert.equal(await page.getByTestId('pool-shortage').count(), report.starvation.shortages.length);
    // The queue's chart says the report's figure: up to N work items waiting.
    const queue = await page.getByTestId('pool-queue').getAttribute('aria-label');
    assert.ok(queue !== null && queue.includes(`up to ${report.starvation.maxQueueLength} work items waiting`), `${queue}`);
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

  it('Requests: a recording past the rate budget says it is a sample, in report --requests\'s words', { timeout: 120000 }, async () => {
    const text = await runCli(['report', sampled, '--requests']);
    assert.equal(text.code, 0, text.stderr);
    const sentence = text.stdout.split('\n').find((l) => l.startsWith('Sampled: '));
    assert.ok(sentence !== undefined, `report --requests says it sampled:\n${text.stdout}`);
    await openFile(page, sampled);
    await page.getByTestId('tab-requests').click();
    assert.equal(await until('the sampled note', () => page.getByTestId('requests-sampled').innerText().catch(() => ''), (t) => t !== '', 30000), sentence);
    await openFile(page, starved);
    await page.getByTestId('tab-requests').click();
    await until('the requests table', () => page.getByTestId('requests-row').count(), (n) => n > 0, 30000);
    assert.equal(await page.getByTestId('requests-sampled').count(), 0, 'every request of the starved recording was heard');
    assert.deepEqual(pageErrors, []);
  });

  it('says in one sentence that a recording of a program that is no server has no requests and no pool story', { timeout: 120000 }, async () => {
    await openFile(page, plain);
    await page.getByTestId('tab-requests').click();
    assert.match(await until('the empty table', () => page.getByTestId('requests-empty').innerText().catch(() => ''), (t) => t !== '', 30000), /^No HTTP requests in this recording/);
    await page.getByTestId('tab-threadpool').click();
    const diagnosis = await until('the diagnosis', () => page.getByTestId('pool-diagnosis').innerText().catch(() => ''), (t) => t.startsWith('This recording'), 30000);
    assert.match(diagnosis, /^This recording has no thread-pool events/);
    assert.equal(await page.getByTestId('pool-no-events').count(), 1);
    assert.deepEqual(pageErrors, []);
  });
});
