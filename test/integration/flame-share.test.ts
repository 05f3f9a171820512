// Sharing a flame graph (issue 30): `clrscope convert REC -o flame.html` writes one page that
// Chromium opens from a file:// URL with every network request refused, whose figures are
// report's (the total and the hottest function's total, `--fold none`), and whose frames zoom
// on a click, search, go to the next match and reset, by mouse and by keys; `-o flame.svg` is an
// SVG that an XML parser reads, with a frame per function whose tooltip carries the same figures.
// The recording is a real one: Scenarios' cpu-ratio under `clrscope record`.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PROFILER, ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { CHROMIUM, missingForPage, openPage, until } from './support/workstation-page.js';

const scenarios = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = existsSync(CHROMIUM) ? [] : missingForPage();
if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
if (!existsSync(scenarios)) missing.push('Scenarios.dll (npm run build:targets)');
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`flame-share: SKIPPED, missing: ${missing.join('; ')}\n`);

interface ReportJson {
  totalValue: number;
  functions: { name: string; self: number; total: number }[];
}

/** Evaluates `body` in the page with `f` the page's test hook (window.__flame: zoomed(), matches(), total(), metric()). */
function hook<T>(page: Page, body: string): Promise<T> {
  return page.evaluate(`(() => { const f = globalThis.__flame; return ${body}; })()`) as Promise<T>;
}

describe('the shared flame graph: one HTML file and an SVG', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let rec: string;
  let report: ReportJson;
  let browser: Browser | undefined;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-flame-share-'));
    rec = join(dir, 'cpu.clrscope');
    const recorded = await runCli(['record', '-o', rec, '--alloc', 'on', '--', 'dotnet', scenarios, 'cpu-ratio', '--seconds', '2']);
    assert.equal(recorded.code, 0, recorded.stderr);
    const printed = await runCli(['report', rec, '--format', 'json', '--fold', 'none', '--top', '5']);
    assert.equal(printed.code, 0, printed.stderr);
    report = JSON.parse(printed.stdout) as ReportJson;
  });

  after(async () => {
    await browser?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('writes a page that works from disk with no network: report\'s figures, zoom, search, next match, reset', { timeout: 90000 }, async () => {
    const html = join(dir, 'flame.html');
    const converted = await runCli(['convert', rec, '-o', html]);
    assert.equal(converted.code, 0, converted.stderr);
    const text = readFileSync(html, 'utf8');
    assert.doesNotMatch(text, /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/, 'nothing is fetched');
    const opened = await openPage();
    browser = opened.browser;
    const { page, errors } = opened;
    const requests: string[] = [];
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) await route.continue();
      else {
        requests.push(url);
        await route.abort();
      }
    });
    await page.goto(pathToFileURL(html).href);
    await until('the graph drawn', () => page.locator('#graph [data-node]').count(), (n) => n > 3);
    assert.deepEqual(requests, [], 'no request left the page');
    assert.deepEqual(errors, []);
    assert.equal(await hook<string>(page, 'f.metric()'), 'cpu');
    assert.equal(await hook<number>(page, 'f.total()'), report.totalValue, 'the CPU total is report\'s');
    // The hottest function's total: its frames' widths, counted once where it calls itself.
    const hottest = [...report.functions].sort((a, b) => b.total - a.total).find((f) => f.name.includes('Scenarios'));
    assert.ok(hottest !== undefined, JSON.stringify(report.functions));
    const frame = page.locator('#graph [data-node]').filter({ hasText: hottest.name }).first();
    const tip = await frame.getAttribute('title');
    assert.ok(tip !== null && tip.startsWith(hottest.name), `${tip}`);
    // Zoom on a click: the frame fills the width, its callers stay above.
    await frame.click();
    await until('zoomed to the frame', () => hook<string[]>(page, 'f.zoomed()'), (p) => p[p.length - 1] === hottest.name);
    const graphWidth = (await page.locator('#graph').boundingBox())?.width ?? 0;
    const zoomedWidth = (await page.locator('#graph .frame.zoomed').boundingBox())?.width ?? 0;
    assert.ok(zoomedWidth >= graphWidth - 2, `the zoomed frame is ${zoomedWidth} of ${graphWidth} px`);
    assert.equal(await page.locator('#reset').isDisabled(), false);
    await page.locator('#reset').click();
    assert.deepEqual(await hook<string[]>(page, 'f.zoomed()'), []);
    // Search: a part of the name, matches highlighted and counted; Enter goes to the first match.
    const word = hottest.name.split('.').pop()?.replace(/\(.*$/, '') ?? hottest.name;
    await page.locator('#search').fill(word);
    await until('matches', () => hook<number>(page, 'f.matches()'), (n) => n > 0);
    assert.ok(await page.locator('#graph .frame.match').count() > 0);
    assert.match(await page.locator('#status').innerText(), /matched \d+ frames, [\d.]+% of all/);
    await page.locator('#search').press('Enter');
    await until('zoomed to the first match', () => hook<string[]>(page, 'f.zoomed()'), (p) => (p[p.length - 1] ?? '').includes(word));
    // Keys: Esc resets, / focuses the search, n goes to the next match.
    await page.locator('#graph').click({ position: { x: 1, y: 1 } }).catch(() => undefined);
    await page.locator('body').press('Escape');
    assert.deepEqual(await hook<string[]>(page, 'f.zoomed()'), []);
    await page.locator('body').press('n');
    await until('n zooms to a match', () => hook<string[]>(page, 'f.zoomed()'), (p) => (p[p.length - 1] ?? '').includes(word));
    await page.locator('body').press('/');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'search');
    // Other metrics are there to pick: allocations were recorded.
    const metrics = await page.locator('#metric option').allInnerTexts();
    assert.ok(metrics.includes('CPU time') && metrics.includes('Wall time') && metrics.includes('Allocated bytes'), metrics.join(', '));
    assert.ok(statSync(html).size < 4 * 1024 * 1024, `${statSync(html).size} bytes`);
  });

  it('writes an SVG an XML parser reads, a frame per function with report\'s figures in its tooltip', { timeout: 60000 }, async () => {
    const svg = join(dir, 'flame.svg');
    const converted = await runCli(['convert', rec, '-o', svg]);
    assert.equal(converted.code, 0, converted.stderr);
    assert.ok(browser !== undefined);
    const page = await browser.newPage();
    const parsed = await page.evaluate(`(() => {
      const doc = new DOMParser().parseFromString(${JSON.stringify(readFileSync(svg, 'utf8'))}, 'image/svg+xml');
      const error = doc.querySelector('parsererror');
      const frames = [...doc.querySelectorAll('g.frame')].map((g) => ({ tip: g.querySelector('title').textContent, width: Number(g.querySelector('rect').getAttribute('width')) }));
      return { error: error === null ? null : error.textContent, root: doc.documentElement.nodeName, width: doc.documentElement.getAttribute('width'), frames };
    })()`) as { error: string | null; root: string; width: string; frames: { tip: string; width: number }[] };
    await page.close();
    assert.equal(parsed.error, null);
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.width, '1200');
    assert.ok(parsed.frames.length > 3);
    const all = parsed.frames.find((f) => f.tip.startsWith('all ('));
    assert.ok(all !== undefined);
    assert.equal(all.width, 1180, 'the root spans the graph');
    const ms = (report.totalValue / 1e6).toLocaleString('en-US', { maximumFractionDigits: report.totalValue < 1e7 ? 2 : 0 });
    assert.equal(all.tip, `all (${ms} ms, 100.00%)`);
    const hottest = [...report.functions].sort((a, b) => b.total - a.total).find((f) => f.name.includes('Scenarios'));
    assert.ok(hottest !== undefined);
    assert.ok(parsed.frames.some((f) => f.tip.startsWith(`${hottest.name} (`)), `a frame of ${hottest.name}`);
  });
});
