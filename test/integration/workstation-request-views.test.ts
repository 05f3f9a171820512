// The Requests tab's views of single requests and latency ranges, in real Chromium on a real
// recording of RequestWeb (test/targets/RequestWeb) under one connection of /cpu/150 (150 ms in
// Work.Burn), /delay/150 (an await of Task.Delay(150)) and /vary/10 (10 ms in Work.Burn, every
// tenth request 80 ms more in Work.SlowPath). The slowest /delay request's flame graph must weigh
// exactly the wall time of the samples that request holds, counted here from the file by the rule
// of structs/analysis/requests.ts written out again; a /cpu request's timeline must show it on a
// CPU for at least 90% of its latency and a /delay request's suspended for 90% of its; "slow vs
// typical" of /vary must name Work.SlowPath as what grew most.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import type { Recording } from '../../structs/profile/recording.js';
import { REQUESTS } from '../../structs/wire/timeline/requests.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { PROFILER, ROOT } from './support/paths.js';
import { WEB_DLL, recordedRequestWeb } from './support/starved-pool.js';
import { appState, checkedScreenshot, flameNodes, hookReady, missingForPage, until } from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'request-views');

function missingPrerequisites(): string[] {
  const m = missingForPage();
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(WEB_DLL)) m.push('RequestWeb.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-request-views: SKIPPED, missing: ${missing.join('; ')}\n`);

function load(url: string): void {
  const r = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '8', '--parallel', '1', '--paths', '/cpu/150,/delay/150,/vary/10,/vary/10'], { encoding: 'utf8', timeout: 90_000 });
  assert.equal(r.status, 0, r.stderr);
}

interface Request { index: number; endpoint: string; start: number; end: number; osTid: number }

/** The recording's ended requests with their endpoints, in the order recorded. */
function requestsIn(rec: Recording): Request[] {
  const strings = rec.strings();
  const text = (id: number): string => strings.get(id) ?? '';
  return rec.timeline(REQUESTS).map((r, index) => ({ index, endpoint: `${text(r.method)} ${text(r.endpoint)}`, start: r.mono, end: r.endMono, osTid: r.startTid }))
    .filter((r) => r.end !== 0);
}

/**
 * The wall ns of the samples request `r` holds: on the thread that began it, from its start to its
 * end or that thread's next request's start, whichever is first.
 */
function wallOf(rec: Recording, r: Request): number {
  const next = rec.timeline(REQUESTS).filter((o) => o.startTid === r.osTid && o.mono > r.start).reduce((m, o) => Math.min(m, o.mono), Infinity);
  const until = Math.min(r.end, next);
  const threads = new Set(rec.threads().filter((t) => t.osTid === r.osTid).map((t) => t.id));
  const { mono, threadId, wallNs } = rec.sampleColumns();
  let sum = 0;
  for (let i = 0; i < mono.length; i++) if (threads.has(threadId[i]) && mono[i] >= r.start && mono[i] < until) sum += wallNs[i];
  return sum;
}

describe('the Requests tab: one request, a latency range, its timeline, slow vs typical', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let file: string;
  let rec: Recording;
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the request views test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-request-views-'));
    file = join(dir, 'web.clrscope');
    await recordedRequestWeb(file, 'dotnet', [WEB_DLL], load);
    rec = (await readRecordingFile(file)).recording;
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    ({ server, page, errors: pageErrors } = ui);
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
    await until('the recording to open', () => appState(page), (s) => s.opening === null && s.selectedSessionId !== null, 60000);
    await until('the whole recording in the worker', () => appState(page), (s) => s.summary !== null && s.summary.sampleCount === rec.sampleCount, 30000);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** The Requests tab with `endpoint`'s row picked. */
  async function showEndpoint(endpoint: string): Promise<void> {
    await page.getByTestId('tab-requests').click();
    const row = page.getByTestId('requests-row').filter({ has: page.getByTestId('requests-endpoint').getByText(endpoint, { exact: true }) });
    await until(`the ${endpoint} row`, () => row.count(), (n) => n === 1, 30000);
    await row.click();
    await until(`${endpoint}'s requests`, () => page.getByTestId('request-list').innerText(), (t) => t.includes(endpoint), 10000);
  }

  it('a clicked request\'s flame graph weighs exactly the samples it holds', { timeout: 120000 }, async () => {
    const delays = requestsIn(rec).filter((r) => r.endpoint === 'GET /delay/{ms}').sort((a, b) => (b.end - b.start) - (a.end - a.start));
    assert.ok(delays.length >= 5, `${delays.length} /delay requests`);
    const slowest = delays[0];
    const expected = wallOf(rec, slowest);
    assert.ok(expected > 0, 'the slowest /delay request holds wall samples');
    await showEndpoint('GET /delay/{ms}');
    const first = page.getByTestId('request-row').first();
    assert.equal(Number(await first.getAttribute('data-index')), slowest.index);
    assert.equal(await first.getByTestId('request-latency').innerText(), ((slowest.end - slowest.start) / 1e6).toFixed(2));
    await first.getByTestId('request-flame').click();
    await until('the flame tab', () => appState(page), (s) => s.tab === 'flame', 10000);
    await page.getByTestId('metric-wall').click();
    assert.match(await page.getByTestId('requests-clear').innerText(), /GET \/delay\/\{ms\} request/);
    const nodes = await until('the request\'s flame graph', () => flameNodes(page), (n) => n.length > 0 && Math.abs(n[0].total - expected) <= 1, 30000);
    assert.ok(Math.abs(nodes[0].total - expected) <= 1, `the flame graph weighs ${nodes[0].total} ns, the request's samples ${expected} ns`);
    await checkedScreenshot(page, 'request-flame', { dir: ARTIFACTS });
    await page.getByTestId('requests-clear').click();
    await page.getByTestId('metric-cpu').click();
    assert.deepEqual(pageErrors, []);
  });

  it('a request\'s timeline: a /cpu request on a CPU, a /delay request suspended', { timeout: 120000 }, async () => {
    for (const [endpoint, measure] of [['GET /cpu/{ms}', 'data-cpu-ms'], ['GET /delay/{ms}', 'data-suspended-ms']] as const) {
      await showEndpoint(endpoint);
      const rows = page.getByTestId('request-row');
      // The median request, the typical one.
      const row = rows.nth(Math.floor((await rows.count()) / 2));
      await row.getByTestId('request-timeline-open').click();
      const timeline = page.getByTestId('request-timeline');
      const shown = await row.getByTestId('request-latency').innerText();
      await until(`${endpoint}'s timeline`, () => timeline.getAttribute('data-latency-ms', { timeout: 1000 }).catch(() => null), (v) => v !== null && Number(v).toFixed(2) === shown, 10000);
      const latency = Number(await timeline.getAttribute('data-latency-ms'));
      const part = Number(await timeline.getAttribute(measure));
      assert.ok(latency > 100, `${endpoint}: a ${latency} ms request`);
      assert.ok(part >= 0.9 * latency, `${endpoint}: ${measure} ${part} of ${latency} ms`);
      if (endpoint === 'GET /cpu/{ms}') assert.ok(await timeline.getByTestId('request-timeline-thread').count() >= 1);
      await checkedScreenshot(page, `timeline-${endpoint.split('/')[1]}`, { dir: ARTIFACTS, of: timeline });
    }
    assert.deepEqual(pageErrors, []);
  });

  it('slow vs typical of /vary names Work.SlowPath', { timeout: 120000 }, async () => {
    await showEndpoint('GET /vary/{ms}');
    await page.getByTestId('requests-slow-vs-typical').click();
    await until('the diff tab', () => appState(page), (s) => s.tab === 'diff', 10000);
    type Diff = { rows: { name: string; beforeTotal: number; afterTotal: number }[]; beforeValue: number; afterValue: number };
    const diff = await until('the diff', () => page.evaluate('window.__clrscopeTest.diff()') as Promise<Diff | null>, (d) => d !== null && d.afterValue > 0 && d.beforeValue > 0, 30000);
    assert.ok(diff !== null);
    const grew = diff.rows.map((r) => ({ name: r.name, change: r.afterTotal / diff.afterValue - r.beforeTotal / diff.beforeValue })).sort((a, b) => b.change - a.change);
    assert.match(grew[0].name, /Work\.SlowPath$/, JSON.stringify(grew.slice(0, 5)));
    assert.ok(grew[0].change > 0.3, `Work.SlowPath grew by ${grew[0].change} of the total`);
    assert.match(await page.getByTestId('diff-after').innerText(), /slowest 10%/);
    await checkedScreenshot(page, 'slow-vs-typical', { dir: ARTIFACTS });
    assert.deepEqual(pageErrors, []);
  });
});
