// The workstation's analysis views against `clrscope report`, in Chromium: one recording of
// the Demo service (made by `clrscope record`) opened through "Open recording…" shows the same
// functions table, sandwich and diff as the report of the same file, number for number, under
// default folding and under "my code only" picked in the UI; the folding choice survives a
// reload (saved settings); the table keeps only the visible rows in the DOM; the thread
// timeline sets the window by a drag and shows a stack on a click; a folded pprof export
// holds the folded stacks. Screenshots go to test-artifacts/workstation-analysis/.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import type { Report, ReportNode } from '../../structs/analysis/report-model.js';
import { toCollapsed } from '../../structs/formats/collapsed/to-collapsed.js';
import { PROFILER, ROOT, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { appState, checkedScreenshot, flameNodes, hookReady, missingForPage, until } from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'workstation-analysis');

interface FunctionRow { name: string; kind: number; self: number; total: number; selfSamples: number; totalSamples: number }
interface HookTreeNode { index: number; label: string; parent: number; depth: number; total: number; self: number }
interface AnalysisHook {
  state(): { fold: { runtime: boolean; myCode: boolean; groupBy: string; patterns: unknown[] }; selectedFunction: string | null; timelineStack: { threadId: number; atMs: number; frames: string[] } | null; flameOptions: { window: { kind: string; fromMs?: number; toMs?: number } } };
  functions(): { rows: FunctionRow[]; totalValue: number; sampleCount: number } | null;
  sandwich(): { self: number; total: number; callers: HookTreeNode[]; callees: HookTreeNode[] } | null;
  diff(): { rows: { name: string; beforeSelf: number; afterSelf: number; beforeTotal: number; afterTotal: number }[]; beforeValue: number; afterValue: number } | null;
  timeline(): { threads: { id: number; name: string; cpuNs: number }[]; buckets: number; fromMs: number; toMs: number; cpuBusy: number[] } | null;
}

/** Runs `read` in the page on the renderer's test hook (its source is sent: a function cannot cross). */
const hook = <T>(page: Page, read: (h: AnalysisHook) => T): Promise<T> => page.evaluate(`(${read.toString()})(globalThis.__clrscopeTest)`) as Promise<T>;

function missingPrerequisites(): string[] {
  const m = missingForPage();
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(targetDll('Demo'))) m.push('Demo.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-analysis: SKIPPED, missing: ${missing.join('; ')}\n`);

async function report(args: string[]): Promise<Report> {
  const run = await runCli(['report', ...args, '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Report;
}

/** A tree as `path total` lines (paths below its root), for comparing the UI's and the report's. */
function reportPaths(root: ReportNode): string[] {
  const out: string[] = [];
  const walk = (n: ReportNode, path: string): void => {
    out.push(`${path} ${n.total}`);
    for (const c of n.children) walk(c, `${path};${c.name}`);
  };
  walk(root, root.name);
  return out.sort();
}

function hookPaths(nodes: readonly HookTreeNode[]): string[] {
  const path: string[] = [];
  const out: string[] = [];
  // Node 0 is the tree's 'all'; node 1 the function the sandwich is of.
  for (const n of nodes) {
    if (n.index === 0) continue;
    path[n.depth] = n.label;
    out.push(`${path.slice(1, n.depth + 1).join(';')} ${n.total}`);
  }
  return out.sort();
}

describe('the workstation\'s analysis shows what clrscope report shows', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let file: string;
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the workstation-analysis test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-analysis-'));
    file = join(dir, 'demo.clrscope');
    const run = await runCli(['record', '-o', file, '--duration', '4', '--', 'dotnet', targetDll('Demo')], { timeoutMs: 90000 });
    assert.equal(run.code, 0, run.stderr);
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    ({ server, page, errors: pageErrors } = ui);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function openFile(): Promise<void> {
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
    const opened = await until('the recording to open', () => appState(page), (s) => s.opening === null && s.selectedSessionId !== null, 60000);
    assert.equal(opened.error, null);
    // All of it in the worker: the file's samples, as the report reads them.
    const samples = (await readRecordingFile(file)).recording.sampleCount;
    await until('the whole recording in the worker', () => appState(page), (s) => s.summary !== null && s.summary.sampleCount === samples, 30000);
  }

  async function functionsNow(): Promise<FunctionRow[]> {
    await page.getByTestId('tab-functions').click();
    const t = await until('the functions table', () => hook(page, (h) => h.functions()), (x) => x !== null && x.rows.length > 0);
    return t!.rows;
  }

  function sameTable(ui: FunctionRow[], rep: Report): void {
    const kinds: Record<string, number> = { managed: 0, native: 1, synthetic: 2 };
    assert.deepEqual(
      ui.map((r) => [r.name, r.kind, r.self, r.total, r.selfSamples, r.totalSamples]),
      rep.functions!.map((f) => [f.name, kinds[f.kind], f.self, f.total, f.selfSamples, f.totalSamples]),
    );
  }

  it('the functions table has the report\'s rows and numbers, under default folding', { timeout: 120000 }, async () => {
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    await openFile();
    const ui = await functionsNow();
    const rep = await report([file, '--top', '0']);
    assert.equal(rep.fold.runtime, true);
    sameTable(ui, rep);
    assert.ok(ui.some((r) => r.name === '[runtime]'));
    assert.ok(!ui.some((r) => r.name === '[libcoreclr.so]'), 'runtime frames are folded by default');
    await checkedScreenshot(page, 'functions', { dir: ARTIFACTS });
  });

  it('names each function\'s hottest source line, as report --lines finds it', { timeout: 60000 }, async () => {
    // The report per line: the own-code function with the most self time on one line, and that line.
    const perLine = (await report([file, '--lines', '--top', '0', '--fold', 'none'])).functions!;
    const lined = perLine.filter((f) => / \[[^\]]+\.cs:\d+\]$/.test(f.name));
    assert.ok(lined.length > 0, 'the Demo\'s frames have lines (Demo.pdb beside Demo.dll)');
    const top = lined[0];
    const name = top.name.slice(0, top.name.lastIndexOf(' ['));
    const place = top.name.slice(top.name.lastIndexOf(' [') + 2, -1);
    const rival = lined.find((f) => f !== top && f.name.startsWith(`${name} [`));
    assert.ok(rival === undefined || rival.self < top.self, 'a line that is the hottest alone');
    await page.getByTestId('flame-search').fill(name.slice(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1));
    const row = page.locator('[data-testid=functions-table] .vrow').filter({ hasText: name }).first();
    const cell = row.getByTestId('function-source');
    await until('the source column', () => cell.count(), (n) => n === 1, 30000);
    assert.equal(await cell.innerText(), place);
    assert.match(await cell.getAttribute('title') ?? '', new RegExp(`/test/targets/Demo/.*${place.replace('.', '\\.')}$`));
    await checkedScreenshot(page, 'functions-source', { dir: ARTIFACTS });
    await page.getByTestId('flame-search').fill('');
  });

  it('keeps only the visible rows in the DOM and scrolls to the last one', async () => {
    const table = page.getByTestId('functions-table');
    const rows = Number(await table.getAttribute('data-rows'));
    assert.ok(rows > 50, `${rows} rows`);
    assert.ok(await table.locator('.vrow').count() < 80, 'a window of rows, not all of them');
    await page.getByTestId('functions-table-body').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await until('the last row drawn', () => table.locator(`.vrow[data-row="${rows - 1}"]`).count(), (n) => n === 1);
  });

  it('selecting a function shows the report\'s callers and callees and highlights it in the flame graph', { timeout: 60000 }, async () => {
    const name = 'Clrscope.Targets.Demo.OrderService.Run';
    await page.getByTestId('flame-search').fill('OrderService.Run');
    await until('the filtered table', () => page.getByTestId('functions-table').getAttribute('data-rows'), (n) => Number(n) >= 1 && Number(n) < 5);
    await page.locator('[data-testid=functions-table] .vrow').filter({ hasText: name }).first().click();
    const s = await until('the sandwich', () => hook(page, (h) => h.sandwich()), (x) => x !== null);
    const callers = await report([file, '--callers', name, '--min-percent', '0']);
    const callees = await report([file, '--callees', name, '--min-percent', '0']);
    assert.equal(s!.total, callers.callers!.total);
    assert.equal(s!.self, callers.callers!.self);
    assert.deepEqual(hookPaths(s!.callers), reportPaths(callers.callers!.tree));
    assert.deepEqual(hookPaths(s!.callees), reportPaths(callees.callees!.tree));
    await checkedScreenshot(page, 'sandwich', { dir: ARTIFACTS });
    await page.getByTestId('flame-search').fill('');
    await page.getByTestId('tab-flame').click();
    assert.match(await page.getByTestId('flame-selected').innerText(), /OrderService\.Run/);
    assert.match(await page.getByTestId('search-share').innerText(), /^\d+ matching frames?: /);
    await checkedScreenshot(page, 'flame-selected', { dir: ARTIFACTS });
    await page.getByTestId('flame-selected').click();
    assert.equal((await hook(page, (h) => h.state())).selectedFunction, null);
  });

  it('"my code only" picked in the UI: the views and the report agree, and the choice survives a reload', { timeout: 60000 }, async () => {
    await page.getByTestId('fold-mycode').check();
    await until('the folding', () => hook(page, (h) => h.state().fold.myCode), (v) => v);
    await page.getByTestId('tab-functions').click();
    const rep = await report([file, '--top', '0', '--fold', 'mycode']);
    const ui = await until('the folded table', () => hook(page, (h) => h.functions()?.rows ?? []), (rows) => rows.length === rep.functions!.length && !rows.some((r) => r.name === 'System.Threading.Thread.StartCallback'));
    sameTable(ui, rep);
    await page.getByTestId('tab-flame').click();
    const roots = await until('the folded flame graph', () => flameNodes(page), (nodes) => nodes.length > 1 && !nodes.some((n) => n.label === 'System.Threading.Thread.StartCallback'));
    assert.ok(roots.filter((n) => n.depth === 1).some((n) => n.label === 'Clrscope.Targets.Demo.OrderService.Run'), 'my own code at the root');
    const settings = join(dir, 'settings', 'settings.json');
    await until('the settings file', async () => existsSync(settings), (v) => v);
    assert.equal(statSync(settings).mode & 0o777, 0o600);
    await page.reload();
    await hookReady(page);
    await until('the saved folding after a reload', () => hook(page, (h) => h.state().fold), (f) => f.myCode && f.runtime);
    // A reloaded page selects only live sessions by itself: pick the file's again.
    const id = (await until('the sessions', () => appState(page), (st) => st.sessions.length > 0)).sessions[0].id;
    await page.getByTestId('session-select').selectOption(id);
    const samples = (await readRecordingFile(file)).recording.sampleCount;
    await until('the whole recording in the worker', () => appState(page), (st) => st.summary !== null && st.summary.sampleCount === samples, 30000);
    await page.getByTestId('tab-flame').click();
    await page.getByTestId('fold-mycode').uncheck();
    await until('default folding again', () => hook(page, (h) => h.state().fold.myCode), (v) => !v);
  });

  it('diff of the first and second half: the report\'s numbers, window for window', { timeout: 60000 }, async () => {
    const state = await appState(page);
    await page.getByTestId('tab-diff').click();
    await page.getByTestId('diff-halves').click();
    const d = await until('the diff', () => hook(page, (h) => h.diff()), (x) => x !== null);
    const half = state.summary!.durationMs / 2;
    const end = state.summary!.durationMs;
    const rep = await report([file, '--diff', file, '--base-window', `0:${half / 1000}`, '--window', `${half / 1000}:${end / 1000}`, '--top', '0']);
    assert.equal(d!.beforeValue, rep.diff!.beforeTotal);
    assert.equal(d!.afterValue, rep.diff!.afterTotal);
    assert.deepEqual(
      d!.rows.map((r) => [r.name, r.beforeSelf, r.afterSelf, r.beforeTotal, r.afterTotal]),
      rep.diff!.functions.map((f) => [f.name, f.before.self, f.after.self, f.before.total, f.after.total]),
    );
    await checkedScreenshot(page, 'diff', { dir: ARTIFACTS });
    await page.getByTestId('window-clear').click();
  });

  it('the thread timeline: a lane per thread, a drag sets the window, a click shows that thread\'s stack', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-timeline').click();
    const t = await until('the timeline', () => hook(page, (h) => h.timeline()), (x) => x !== null && x.threads.length > 0);
    const names = t!.threads.map((x) => x.name);
    for (const n of ['order-worker-1', 'order-worker-2', 'stock-poller', 'notifier']) assert.ok(names.includes(n), `${n} has a lane: ${names.join(', ')}`);
    const lane = names.indexOf('order-worker-1');
    assert.ok(t!.cpuBusy[lane] > 0, 'order-worker-1 is on a CPU somewhere');
    const canvas = page.getByTestId('timeline-canvas');
    const box = (await canvas.boundingBox())!;
    // The names' column as the canvas says it, AXIS 20, lanes 16 + 3 pixels apart.
    const labels = Number(await canvas.getAttribute('data-label-width'));
    assert.ok(labels >= 200, `${labels}`);
    const plotLeft = box.x + labels;
    const plotWidth = box.width - labels - 8;
    await page.mouse.move(plotLeft + plotWidth * 0.25, box.y + 30);
    await page.mouse.down();
    await page.mouse.move(plotLeft + plotWidth * 0.5, box.y + 30, { steps: 5 });
    await page.mouse.up();
    const w = await until('the window from the drag', () => hook(page, (h) => h.state().flameOptions.window), (x) => x.kind === 'range');
    const span = t!.toMs - t!.fromMs;
    assert.ok(Math.abs(w.fromMs! - (t!.fromMs + 0.25 * span)) < span * 0.02, `from ${w.fromMs}`);
    assert.ok(Math.abs(w.toMs! - (t!.fromMs + 0.5 * span)) < span * 0.02, `to ${w.toMs}`);
    await page.mouse.click(plotLeft + plotWidth * 0.6, box.y + 20 + lane * 19 + 8);
    const stack = await until('the stack at that moment', () => hook(page, (h) => h.state().timelineStack), (x) => x !== null);
    assert.equal(stack!.threadId, t!.threads[lane].id);
    assert.deepEqual(stack!.frames.slice(0, 3), ['[runtime]', 'System.Threading.Thread.StartCallback', 'Clrscope.Targets.Demo.OrderService.Run']);
    assert.ok(Math.abs(stack!.atMs - (t!.fromMs + 0.6 * span)) < 100, `a sample near the click: ${stack!.atMs}`);
    assert.deepEqual(await page.getByTestId('timeline-stack-frames').locator('li').allInnerTexts(), stack!.frames);
    await checkedScreenshot(page, 'timeline', { dir: ARTIFACTS });
    await page.getByTestId('timeline-range-clear').click();
  });

  it('a folded pprof export holds the folded stacks', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-folded').check();
    await page.getByTestId('export-pprof').click();
    await until('the export', () => appState(page), (s) => Object.values(s.exports).some((e) => e.state === 'done'));
    const path = Object.values((await appState(page)).exports).find((e) => e.state === 'done')!.path!;
    const rec = (await readRecordingFile(path)).recording;
    const text = toCollapsed(rec, { metric: 'cpu' });
    assert.match(text, /^\[runtime\];System\.Threading\.Thread\.StartCallback;Clrscope\.Targets\.Demo\.OrderService\.Run;/m);
    assert.doesNotMatch(text, /libcoreclr\.so/);
    assert.deepEqual(pageErrors, []);
  });
});
