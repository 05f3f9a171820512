// Sharing the flame graph from the workstation (issue 30), in Chromium: "Copy as SVG" puts the
// view as it is on the clipboard (read back with the page's clipboard permissions, parsed as
// XML), whose frames and totals are `clrscope report --tree`'s for the same metric and folding,
// zoomed and searched where the view is; "Save as HTML" downloads the view as one page that
// opens from a file:// URL with every network request refused, at the view's zoom and search;
// the Export view writes flame.html and flame.svg of the whole recording with report's figures.
// The recording is a real one: Scenarios' cpu-ratio under `clrscope record` with allocations on.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PROFILER, ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, hookReady, missingForPage, until } from './support/workstation-page.js';

const scenarios = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = missingForPage();
if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
if (!existsSync(scenarios)) missing.push('Scenarios.dll (npm run build:targets)');
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-flame-share: SKIPPED, missing: ${missing.join('; ')}\n`);

interface ReportNode { name: string; total: number; children: ReportNode[] }
interface ReportJson { totalValue: number; tree?: ReportNode; functions?: { name: string; total: number }[] }
interface SvgFrame { name: string; depth: number; total: number; width: number; fill: string }
interface ParsedSvg { error: string | null; frames: SvgFrame[]; caption: string }

/** Reads an SVG document in the page (an XML parser, not a pattern): its frames in preorder and the line under them. */
async function parseSvg(page: Page, svg: string): Promise<ParsedSvg> {
  return await page.evaluate(`(() => {
    const doc = new DOMParser().parseFromString(${JSON.stringify(svg)}, 'image/svg+xml');
    const error = doc.querySelector('parsererror');
    const frames = [...doc.querySelectorAll('g.frame')].map((g) => ({
      name: g.querySelector('title').textContent.replace(/ \\([^()]*\\)$/, ''),
      depth: Number(g.getAttribute('data-depth')), total: Number(g.getAttribute('data-total')),
      width: Number(g.querySelector('rect').getAttribute('width')), fill: g.querySelector('rect').getAttribute('fill'),
    }));
    const texts = [...doc.documentElement.children].filter((e) => e.nodeName === 'text').map((e) => e.textContent);
    return { error: error === null ? null : error.textContent, frames, caption: texts[texts.length - 1] ?? '' };
  })()`) as ParsedSvg;
}

/** Each frame's path of names from the root's child, and its total. */
function svgPaths(frames: readonly SvgFrame[]): Map<string, number> {
  const out = new Map<string, number>();
  const path: string[] = [];
  for (const f of frames) {
    path.length = f.depth;
    path.push(f.name);
    if (f.depth > 0) out.set(path.slice(1).join(' > '), f.total);
  }
  return out;
}

/** Report's tree as paths (nodes of minPercent and up) with their totals. */
function reportPaths(root: ReportNode): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: ReportNode, path: string[]): void => {
    for (const c of n.children) {
      const p = [...path, c.name];
      out.set(p.join(' > '), c.total);
      walk(c, p);
    }
  };
  walk(root, []);
  return out;
}

/** The SVG's frames are report's: its root total, every node of report's tree, and every frame of 1% and up. */
function assertReportFrames(parsed: ParsedSvg, report: ReportJson, what: string): void {
  assert.equal(parsed.error, null, what);
  assert.ok(report.tree !== undefined);
  assert.equal(parsed.frames[0]?.name, 'all');
  assert.equal(parsed.frames[0].total, report.totalValue, `${what}: the root's total is report's`);
  const svg = svgPaths(parsed.frames);
  const expected = reportPaths(report.tree);
  assert.ok(expected.size > 3, `${what}: report's tree has ${expected.size} nodes`);
  for (const [path, total] of expected) assert.equal(svg.get(path), total, `${what}: ${path}`);
  const min = report.totalValue / 100;
  const wide = [...svg].filter(([, total]) => total >= min);
  for (const [path, total] of wide) assert.equal(expected.get(path), total, `${what}: the SVG's ${path} is in report's tree`);
}

describe('the flame graph shared from the workstation: Copy as SVG, Save as HTML, the Export view', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let rec: string;
  let cpu: ReportJson;
  let wallNamespaces: ReportJson;
  let unfolded: ReportJson;
  let ui: WorkstationInChromium;
  let page: Page;
  let browser: Browser;

  async function report(...args: string[]): Promise<ReportJson> {
    const printed = await runCli(['report', rec, '--format', 'json', '--min-percent', '1', ...args]);
    assert.equal(printed.code, 0, printed.stderr);
    return JSON.parse(printed.stdout) as ReportJson;
  }

  /** Copies the view and reads the clipboard back: its text, and the types it offers. */
  async function copy(): Promise<{ svg: string; types: string[] }> {
    await until('the view ready to copy', () => page.getByTestId('flame-copy-svg').isEnabled(), (on) => on, 30000);
    const before = await page.getByTestId('flame-share-said').count() > 0 ? await page.getByTestId('flame-share-said').innerText() : '';
    await page.evaluate('navigator.clipboard.writeText("")');
    await page.getByTestId('flame-copy-svg').click();
    await until('copied', () => page.evaluate('navigator.clipboard.readText()') as Promise<string>, (t) => t.length > 0);
    const said = await page.getByTestId('flame-share-said').innerText();
    assert.match(said, /^Copied the flame graph as SVG \([\d,]+ KB\)\.$/, `${before} → ${said}`);
    const svg = await page.evaluate('navigator.clipboard.readText()') as string;
    const types = await page.evaluate('navigator.clipboard.read().then((items) => items.flatMap((i) => [...i.types]))') as string[];
    return { svg, types };
  }

  /** Opens `file` from disk in a fresh page whose every request but file:// is refused; returns the page and what was refused. */
  async function offline(file: string): Promise<{ page: Page; refused: string[] }> {
    const p = await browser.newPage();
    const refused: string[] = [];
    await p.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) await route.continue();
      else {
        refused.push(url);
        await route.abort();
      }
    });
    await p.goto(pathToFileURL(file).href);
    await until('the graph drawn', () => p.locator('#graph [data-node]').count(), (n) => n > 3);
    return { page: p, refused };
  }

  const flame = <T>(p: Page, body: string): Promise<T> => p.evaluate(`(() => { const f = globalThis.__flame; return ${body}; })()`) as Promise<T>;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-flame-share-ws-'));
    rec = join(dir, 'cpu-ratio.clrscope');
    const recorded = await runCli(['record', '-o', rec, '--alloc', 'on', '--', 'dotnet', scenarios, 'cpu-ratio', '--seconds', '2']);
    assert.equal(recorded.code, 0, recorded.stderr);
    cpu = await report('--tree');
    wallNamespaces = await report('--tree', '--sample-type', 'wall', '--fold', 'namespace');
    unfolded = await report('--tree', '--fold', 'none', '--top', '5');
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    ({ page, browser } = ui);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.server.url).origin });
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(rec);
    await page.getByTestId('open-submit').click();
    await until('the recording', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount > 0, 60000);
    await page.getByTestId('tab-flame').click();
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('copies the view as SVG: report\'s frames and totals for CPU, and for wall grouped by namespace', { timeout: 90000 }, async () => {
    const copied = await copy();
    assert.ok(copied.types.includes('text/plain'), copied.types.join(', '));
    // Chromium takes the picture's type beside the text where it supports it.
    const svgType = await page.evaluate('typeof ClipboardItem.supports === "function" && ClipboardItem.supports("image/svg+xml")') as boolean;
    if (svgType) assert.ok(copied.types.includes('image/svg+xml'), copied.types.join(', '));
    const parsed = await parseSvg(page, copied.svg);
    assertReportFrames(parsed, cpu, 'CPU');
    assert.match(parsed.caption, /^CPU time: [\d,.]+ ms in all$/);

    await page.getByTestId('metric-wall').click();
    await page.getByTestId('fold-group').selectOption('namespace');
    await until('the wall tree by namespace', () => appState(page), (s) => s.flameOptions.metric === 'wall' && s.fold.groupBy === 'namespace');
    const wall = await parseSvg(page, (await copy()).svg);
    assertReportFrames(wall, wallNamespaces, 'wall by namespace');
    assert.match(wall.caption, /^Wall time: /);
    await page.getByTestId('metric-cpu').click();
    await page.getByTestId('fold-group').selectOption('none');
  });

  it('copies a zoomed and searched view: the zoomed frame fills the width, the matches magenta and counted', { timeout: 90000 }, async () => {
    const hottest = [...(cpu.functions ?? unfolded.functions ?? [])].sort((a, b) => b.total - a.total).find((f) => f.name.includes('Scenarios'));
    assert.ok(hottest !== undefined);
    const word = hottest.name.split('.').pop()?.replace(/\(.*$/, '') ?? hottest.name;
    await page.getByTestId('flame-search').fill(word);
    await page.getByTestId('flame-search').press('Enter');
    const zoomed = await until('zoomed to the first match', () => appState(page), (s) => s.flameZoom.length > 0 && s.flameOptions.metric === 'cpu' && s.fold.groupBy === 'none');
    const shares = await page.getByTestId('search-share').innerText();
    const matched = Number(/^([\d,]+) matching/.exec(shares)?.[1].replace(/,/g, ''));
    const parsed = await parseSvg(page, (await copy()).svg);
    assert.equal(parsed.error, null);
    const depth = zoomed.flameZoom.length;
    const spanning = parsed.frames.filter((f) => f.depth <= depth);
    assert.deepEqual(spanning.map((f) => f.name), ['all', ...zoomed.flameZoom], 'the zoomed frame and its callers, nothing beside them');
    for (const f of spanning) assert.equal(f.width, 1180, `${f.name} spans the graph`);
    // Every other frame is one of the zoomed frame's callees, drawn after it.
    assert.ok(parsed.frames.slice(0, spanning.length).every((f) => f.depth <= depth));
    const magenta = parsed.frames.filter((f) => f.fill === 'rgb(230,0,230)');
    assert.ok(magenta.length > 0);
    for (const f of magenta) assert.ok(f.name.toLowerCase().includes(word.toLowerCase()), f.name);
    for (const f of parsed.frames.filter((x) => x.fill !== 'rgb(230,0,230)' && x.depth > 0)) assert.ok(!f.name.toLowerCase().includes(word.toLowerCase()), `${f.name} matches but is not marked`);
    assert.ok(parsed.caption.includes(`zoomed to ${zoomed.flameZoom[zoomed.flameZoom.length - 1]}; matched ${matched} ${matched === 1 ? 'frame' : 'frames'}, `), parsed.caption);
    // The zoomed frame's total is report's for the same path.
    const path = zoomed.flameZoom.join(' > ');
    const reportTotal = reportPaths(cpu.tree as ReportNode).get(path);
    if (reportTotal !== undefined) assert.equal(svgPaths(parsed.frames).get(path), reportTotal, path);
  });

  it('saves the view as one HTML page that opens from disk with no network, at the view\'s zoom and search', { timeout: 60000 }, async () => {
    const state = await appState(page);
    assert.ok(state.flameZoom.length > 0, 'still zoomed from the test before');
    const download = page.waitForEvent('download');
    await page.getByTestId('flame-save-html').click();
    const saved = join(dir, 'view.html');
    const file = await download;
    assert.match(file.suggestedFilename(), /^flame-[\w.-]*\.html$/);
    await file.saveAs(saved);
    assert.match(await page.getByTestId('flame-share-said').innerText(), /^Saved flame-.*\.html \([\d,]+ KB\)/);
    const text = readFileSync(saved, 'utf8');
    assert.doesNotMatch(text, /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/, 'nothing is fetched');
    const opened = await offline(saved);
    try {
      assert.deepEqual(opened.refused, []);
      assert.equal(await flame<number>(opened.page, 'f.total()'), cpu.totalValue, 'the CPU total is report\'s');
      assert.deepEqual(await flame<string[]>(opened.page, 'f.zoomed()'), state.flameZoom, 'it opens where the view was zoomed');
      assert.ok(await flame<number>(opened.page, 'f.matches()') > 0, 'with the view\'s search');
      assert.equal(await opened.page.locator('#search').inputValue(), state.flameOptions.search);
    } finally {
      await opened.page.close();
    }
    await page.getByTestId('flame-search').fill('');
    await page.keyboard.press('Home');
  });

  it('writes flame.html and flame.svg from the Export view: report\'s figures, opened from disk with no network', { timeout: 90000 }, async () => {
    await page.getByTestId('tab-export').click();
    const written: Record<string, string> = {};
    for (const format of ['flame-html', 'flame-svg']) {
      await page.getByTestId(`export-${format}`).click();
      const s = await until(`${format} written`, () => appState(page), (x) => Object.values(x.exports).some((e) => e.format === format && e.state === 'done'), 60000);
      const done = Object.values(s.exports).find((e) => e.format === format && e.state === 'done');
      assert.ok(done?.path != null && existsSync(done.path), JSON.stringify(done));
      written[format] = done.path;
    }
    assert.match(written['flame-html'], /\.html$/);
    const opened = await offline(written['flame-html']);
    try {
      assert.deepEqual(opened.refused, []);
      assert.equal(await flame<string>(opened.page, 'f.metric()'), 'cpu');
      assert.equal(await flame<number>(opened.page, 'f.total()'), unfolded.totalValue, 'the CPU total is report\'s (--fold none)');
      const hottest = [...(unfolded.functions ?? [])].sort((a, b) => b.total - a.total).find((f) => f.name.includes('Scenarios'));
      assert.ok(hottest !== undefined);
      const tip = await opened.page.locator('#graph [data-node]').filter({ hasText: hottest.name }).first().getAttribute('title');
      assert.ok(tip?.startsWith(hottest.name), `${tip}`);
      const metrics = await opened.page.locator('#metric option').allInnerTexts();
      assert.ok(metrics.includes('CPU time') && metrics.includes('Wall time') && metrics.includes('Allocated bytes'), metrics.join(', '));
    } finally {
      await opened.page.close();
    }
    const svg = await parseSvg(page, readFileSync(written['flame-svg'], 'utf8'));
    assertReportFrames(svg, unfolded, 'the exported SVG');
  });
});
