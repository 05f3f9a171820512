// The workstation end to end: browser mode started in-process, its page in Debian's Chromium
// (playwright-core), real .NET targets (test/targets). The picker finds a running program and
// attaches to it; a launched one fills the flame graph (Heavy the widest frame under its
// thread), the parallel stacks (the three lock waiters on one trunk), the counters (GC counts
// rising), the GC timeline and its own output (READY on stdout; the view follows new lines until
// the user scrolls up); the export is read back by go tool pprof. Every view is
// screenshotted into test-artifacts/workstation/ and checked not to be blank.
//
// Without its prerequisites (Chromium, the built renderer and worker, the profiler, the targets,
// Go) the suite is skipped with a message saying what is missing, except under CI, where that
// is a failure.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { PROFILER, ROOT } from './support/paths.js';
import { startPlainTarget, type PlainTarget } from './support/plain-target.js';
import {
  appState, checkedScreenshot, flameNodes, flamePixelWidths, flamePointOf, flameVisibleBottom, hookReady, missingForPage, openPage, parallelNodes,
  pathKey, RENDERER, programOutput, until, widestBesidesCallers, type HookState,
} from './support/workstation-page.js';

const NS = 'Clrscope.Targets.Scenarios.';
const HEAVY = `${NS}CpuWork.Heavy`;
const LIGHT = `${NS}CpuWork.Light`;
const dll = (name: string): string => join(ROOT, 'test', 'targets', name, 'bin', 'out', `${name}.dll`);

function missingPrerequisites(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  for (const t of ['Scenarios', 'GcLoad']) if (!existsSync(dll(t))) missing.push(`${t}.dll (npm run build:targets)`);
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  if (!goAvailable()) missing.push('go (for go tool pprof)');
  return missing;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-e2e: SKIPPED, missing: ${missing.join('; ')}\n`);

function session(state: HookState, id: string | null): HookState['sessions'][number] | undefined {
  return state.sessions.find((s) => s.id === id);
}

describe('the workstation in browser mode, driven in Chromium against real .NET programs', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let workstation: WorkstationService;
  let server: BrowserMode;
  let browser: Browser;
  let page: Page;
  let plain: PlainTarget | undefined;
  let exportsDir: string;
  let cpuSession = '';
  let gcSession = '';
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the end-to-end test lacks: ${missing.join('; ')}`);
    exportsDir = mkdtempSync(join(tmpdir(), 'clrscope-e2e-'));
    workstation = createWorkstationService({ exportsDir, countersIntervalMs: 200 });
    server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    ({ browser, page, errors: pageErrors } = await openPage());
  });

  after(async () => {
    await browser?.close();
    await plain?.stop();
    await server?.close();
    await workstation?.shutdown();
    if (exportsDir !== undefined) rmSync(exportsDir, { recursive: true, force: true });
  });

  it('lists a running .NET program in the picker and filters as the user types', { timeout: 60000 }, async () => {
    plain = await startPlainTarget(dll('Scenarios'), ['cpu-ratio', '--seconds', '60']);
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    const pid = plain.pid;
    const row = page.locator(`[data-testid="process-row"][data-pid="${pid}"]`);
    await until(`pid ${pid} in the process list`, async () => {
      const shown = await page.getByTestId('process-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pid')));
      const refresh = page.getByTestId('process-refresh');
      if (!shown.includes(String(pid)) && await refresh.isEnabled()) await refresh.click();
      return { shown, error: (await appState(page)).error };
    }, (s) => s.shown.includes(String(pid)), 30000, 1000);
    assert.match(await row.innerText(), /Scenarios/);
    await page.getByTestId('process-filter').fill(String(plain.pid));
    await until('the filter to leave one row', () => page.getByTestId('process-row').count(), (n) => n === 1);
    await page.getByTestId('process-filter').fill('');
    await checkedScreenshot(page, '1-processes');
  });

  it('attaches to the running program and samples it', { timeout: 60000 }, async () => {
    assert.ok(plain !== undefined);
    await page.locator(`[data-testid="process-row"][data-pid="${plain.pid}"] [data-testid="process-attach"]`).click();
    const state = await until('samples from the attached program', () => appState(page), (s) => (s.summary?.sampleCount ?? 0) > 50 && s.error === null, 30000);
    const attached = session(state, state.selectedSessionId);
    assert.equal(attached?.attached, true);
    assert.equal(attached?.pid, plain.pid);
    const nodes = await until('Heavy in the attached program\'s flame graph', () => flameNodes(page), (n) => n.some((x) => x.label === HEAVY));
    assert.ok(nodes.length > 3);
    // An attached process's output is its own: the Output tab says so rather than showing nothing.
    await page.getByTestId('tab-output').click();
    assert.match(await page.getByTestId('output-empty').innerText(), /attached to/);
    await page.getByTestId('session-stop').click();
    await until('the attached session to stop', () => appState(page), (s) => session(s, s.selectedSessionId)?.state === 'stopped');
    await plain.stop();
  });

  it('launches a program whose flame graph shows Heavy as the widest frame under its thread', { timeout: 90000 }, async () => {
    await page.getByTestId('tab-processes').click();
    await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-command').fill('dotnet');
    await page.getByTestId('launch-args').fill(`${dll('Scenarios')} cpu-ratio lock --seconds 20`);
    await page.getByTestId('launch-interval').fill('5');
    await page.getByTestId('launch-submit').click();
    await until('the flame graph tab', () => appState(page), (s) => s.tab === 'flame' && s.selectedSessionId !== null);
    cpuSession = (await appState(page)).selectedSessionId ?? '';

    // Live: the views re-query at least twice a second while the recording runs (measured once
    // the program's startup is past, over 3 s).
    await until('samples', () => appState(page), (s) => (s.summary?.sampleCount ?? 0) > 500, 20000);
    const seen = new Set<number>();
    const t0 = Date.now();
    while (Date.now() - t0 < 3000) {
      const s = await appState(page);
      seen.add(s.summary?.sampleCount ?? 0);
      await new Promise((r) => setTimeout(r, 40));
    }
    assert.ok(seen.size >= 6, `the summary changed ${seen.size} times in 3 s`);

    await page.getByTestId('group-by-thread').check();
    // Wait until burn-heavy has a second of CPU, so the 3:1 split is settled.
    const nodes = await until('a second of CPU on burn-heavy', () => flameNodes(page), (n) => {
      const t = n.find((x) => x.depth === 1 && x.label === 'burn-heavy');
      return t !== undefined && t.total > 1e9 && n.some((x) => x.label === HEAVY);
    }, 30000);
    const thread = nodes.find((x) => x.depth === 1 && x.label === 'burn-heavy');
    assert.ok(thread !== undefined);
    // Frames that are not callers of Heavy: Heavy must be the widest of them.
    const widest = widestBesidesCallers(nodes, thread.index, HEAVY);
    assert.equal(widest?.label, HEAVY, `widest frame under burn-heavy in the tree: ${widest?.label}`);

    // And on screen: the renderer's own hit test finds Heavy wider than any other such frame.
    const px = await flamePixelWidths(page);
    const shown = Object.entries(px).map(([key, width]) => ({ path: key.split('\n'), width })).filter((f) => f.path[0] === 'burn-heavy');
    const threadPx = px[pathKey(['burn-heavy'])] ?? 0;
    const heavyPaths = shown.filter((f) => f.path[f.path.length - 1] === HEAVY);
    const callerKeys = new Set(heavyPaths.flatMap((f) => f.path.slice(1, -1).map((_, i) => pathKey(f.path.slice(0, i + 2)))));
    const byPixels = shown.filter((f) => f.path.length > 1 && !callerKeys.has(pathKey(f.path))).sort((a, b) => b.width - a.width);
    assert.ok(byPixels.length > 0, 'the canvas shows frames under burn-heavy');
    const top = byPixels[0];
    assert.equal(top.path[top.path.length - 1], HEAVY, `widest on the canvas: ${byPixels.slice(0, 3).map((f) => `${f.path[f.path.length - 1]} ${f.width}px`).join(', ')}`);
    const lightPx = Math.max(0, ...shown.filter((f) => f.path[f.path.length - 1] === LIGHT).map((f) => f.width));
    assert.ok(top.width > 2 * lightPx, `Heavy ${top.width}px against Light ${lightPx}px`);
    // Not squeezed: burn-heavy's bar spans a good part of the width (it has about half the CPU or more).
    const canvasSize = await page.getByTestId('flame-canvas').boundingBox();
    assert.ok(canvasSize !== null);
    assert.ok(threadPx > 0.3 * canvasSize.width, `burn-heavy is ${threadPx} px of ${canvasSize.width}`);
    assert.equal(await flameVisibleBottom(page), 0, 'the flame\'s root row is in view at the bottom of its box');
    await checkedScreenshot(page, '2-flame-canvas', { of: page.getByTestId('flame-box'), minColors: 8 });

    // Search highlights Heavy and gives its share of the CPU (3/4 of both burn threads).
    await page.getByTestId('flame-search').fill('CpuWork.Heavy');
    const share = await page.getByTestId('search-share').innerText();
    const percent = Number(/([\d.]+)%/.exec(share)?.[1]);
    assert.ok(percent > 40 && percent < 95, `search share ${share}`);
    // The tooltip over Heavy names it with its time and share.
    const point = await flamePointOf(page, top.path);
    const canvasBox = await page.getByTestId('flame-canvas').boundingBox();
    assert.ok(point !== null && canvasBox !== null, 'Heavy is in view');
    await page.mouse.move(canvasBox.x + point.x, canvasBox.y + point.y);
    const tip = await page.getByTestId('flame-tooltip').innerText();
    assert.match(tip, /CpuWork\.Heavy/);
    assert.match(tip, /total[\s\S]*%/);
    await checkedScreenshot(page, '2-flame');
    await page.getByTestId('flame-search').fill('');
  });

  it('lists the launched program\'s own output in the Output tab, its READY line first among stdout\'s', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-output').click();
    const isReady = (text: string): boolean => text.startsWith('READY {"pid":');
    const output = await until('the READY line in the Output tab', () => programOutput(page), (o) => o.loaded && o.lines.some((l) => isReady(l.text)));
    const ready = output.lines.find((l) => isReady(l.text));
    assert.equal(ready?.stream, 'stdout');
    assert.equal(JSON.parse(ready.text.slice('READY '.length)).pid, session(await appState(page), cpuSession)?.pid, 'the pid the session profiles');
    assert.deepEqual(output.lines.map((l) => l.seq), output.lines.map((_, i) => i), 'every line from the first, once, in order');
    assert.equal(output.droppedLines, 0);
    // On screen: a stdout row with that text, in the followed box.
    const row = page.locator('[data-testid="output-line"][data-stream="stdout"]').filter({ hasText: /^READY \{"pid":/ });
    await until('the READY row on screen', () => row.count(), (n) => n === 1);
    assert.equal(await row.innerText(), ready.text);
    assert.equal(await page.getByTestId('output-box').getAttribute('data-following'), 'true');
    assert.equal(await page.getByTestId('output-dropped').count(), 0);
    await checkedScreenshot(page, '2-output', { minColors: 12 });
  });

  it('merges the three blocked lock waiters under one trunk in parallel stacks', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-parallel').click();
    const state = await appState(page);
    const waiterIds = (state.summary?.threads ?? []).filter((t) => /^lock-waiter-\d$/.test(t.name)).map((t) => t.id).sort((a, b) => a - b);
    assert.equal(waiterIds.length, 3, 'three lock waiters in the summary');
    const nodes = await until('one Monitor.Enter trunk under LockWork.Wait with the three waiters', () => parallelNodes(page), (n) => n.some((x) =>
      x.label === 'System.Threading.Monitor.Enter' && n[x.parent]?.label === `${NS}LockWork.Wait` && JSON.stringify(x.threads) === JSON.stringify(waiterIds)));
    assert.equal(nodes.filter((x) => x.label === `${NS}LockWork.Wait`).length, 1, 'LockWork.Wait appears once: the waiters share it');

    // On screen: a block of 3 threads whose frames include LockWork.Wait, and chips for the waiters.
    // Open every folded chain (clicking one re-renders the others, so always take the first).
    const unfold = page.getByTestId('pstack-unfold');
    for (let i = 0; i < 50 && await unfold.count() > 0; i++) await unfold.first().click();
    const block = page.locator('[data-testid="pstack-block"][data-thread-count="3"]').filter({ hasText: 'LockWork.Wait' });
    await until('the waiters\' block', () => block.count(), (n) => n >= 1);
    const chips = await block.first().getByTestId('pstack-thread').allInnerTexts();
    for (const name of ['lock-waiter-1', 'lock-waiter-2', 'lock-waiter-3']) assert.ok(chips.some((c) => c.includes(name)), `${name} in ${chips.join(', ')}`);
    await block.first().getByTestId('pstack-thread').first().click();
    const stack = await page.getByTestId('thread-stack-frames').innerText();
    assert.match(stack, /LockWork\.Wait/);
    assert.match(stack, /Monitor\.Enter/);
    await checkedScreenshot(page, '3-parallel-stacks');
  });

  it('shows GC counts rising in the counters panel', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-processes').click();
    const form = page.getByTestId('launch-form');
    if (await form.count() === 0) await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-args').fill(`${dll('GcLoad')} --gen0 50 --duration 10 --repeat-every 200`);
    await page.getByTestId('launch-submit').click();
    await until('the new session', () => appState(page), (s) => s.selectedSessionId !== null && s.selectedSessionId !== cpuSession);
    gcSession = (await appState(page)).selectedSessionId ?? '';
    await page.getByTestId('tab-counters').click();
    const gen0 = page.getByTestId('counter-gen0');
    const value = async (): Promise<number> => ((await gen0.count()) === 0 ? 0 : Number(await gen0.getAttribute('data-value')));
    const first = await until('a first GC count', value, (v) => v > 0, 30000);
    const later = await until('the GC count to rise', value, (v) => v >= first + 20, 10000);
    assert.ok(later > first);
    // System.Runtime's figures (the block's extras) chart beside them: GcLoad allocates all along.
    const extra = async (id: string): Promise<number> => {
      const el = page.getByTestId(`counter-${id}`);
      return (await el.count()) === 0 ? 0 : Number(await el.getAttribute('data-value'));
    };
    await until('an allocation rate', () => extra('alloc-rate'), (v) => v > 0, 10000);
    await until('a working set', () => extra('working-set'), (v) => v > 1e6, 10000);
    await until('GC committed bytes', () => extra('gc-committed'), (v) => v > 0, 10000);
    await checkedScreenshot(page, '4-counters');
  });

  it('follows the output at its bottom while the program writes, and stays where the user scrolled up to', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-output').click();
    const box = page.getByTestId('output-box');
    const metrics = (): Promise<{ top: number; height: number; client: number; following: string | null }> => box.evaluate((b) => ({
      top: b.scrollTop, height: b.scrollHeight, client: b.clientHeight, following: b.getAttribute('data-following'),
    }));
    const atBottom = (m: { top: number; height: number; client: number }): boolean => m.height - m.top - m.client <= 4;
    // GcLoad writes a TICK line every 200 ms: a few seconds of them overflow the box.
    await until('more output than the box shows', metrics, (m) => m.height > m.client + 100, 20000);
    await until('the box following at its bottom', metrics, (m) => m.following === 'true' && atBottom(m));
    // As a user does it: the wheel, over the box, while lines keep coming.
    await box.hover();
    await page.mouse.wheel(0, -400);
    const up = await until('following to stop once scrolled up', metrics, (m) => m.following === 'false' && !atBottom(m));
    await new Promise((r) => setTimeout(r, 600));
    const later = await metrics();
    assert.equal(later.following, 'false', 'still reading above');
    assert.equal(later.top, up.top, 'new lines do not pull the box down while the user reads above');
    await page.getByTestId('output-follow').click();
    await until('the box back at its bottom, following', metrics, (m) => m.following === 'true' && atBottom(m));
    const shown = await programOutput(page);
    assert.ok(shown.lines.some((l) => l.text.startsWith('TICK ')), 'GcLoad\'s TICK lines');
  });

  it('puts every pause on the GC timeline, and a dragged range becomes the flame graph\'s window', { timeout: 60000 }, async () => {
    await page.getByTestId('tab-gc').click();
    await until('GC pauses in the table', async () => Number(await page.getByTestId('gc-count-gc').innerText()), (n) => n >= 20, 20000);
    const canvas = page.getByTestId('gc-timeline');
    const box = await canvas.boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    const state = await until('a range window', () => appState(page), (s) => s.flameOptions.window.kind === 'range');
    const w = state.flameOptions.window;
    assert.ok(w.fromMs !== undefined && w.toMs !== undefined && w.toMs > w.fromMs, JSON.stringify(w));
    await checkedScreenshot(page, '5-gc-timeline');
    await page.getByTestId('gc-range-open').click();
    assert.match(await page.getByTestId('window-clear').innerText(), /range/);
    await page.getByTestId('window-clear').click();
    // GcLoad ends on its own after 10 s; stop it from the UI if it is still going (the attach test always does).
    // (It may end between looking and clicking: then the button is gone and the click gives up.)
    const stop = page.getByTestId('session-stop');
    if (await stop.count() > 0) await stop.click({ timeout: 2000 }).catch(() => undefined);
    await until('the GcLoad session to stop', () => appState(page), (s) => session(s, gcSession)?.state === 'stopped');
    await page.getByTestId('tab-gc').click();
    assert.ok(Number(await page.getByTestId('gc-count-gc').innerText()) >= 20, 'the timeline keeps its pauses after the stop');
  });

  it('exports the recording as pprof that go tool pprof reads', { timeout: 120000 }, async () => {
    await page.getByTestId('session-select').selectOption(cpuSession);
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-pprof').click();
    await until('the export to finish', async () => page.getByTestId('export-status').getAttribute('data-state'), (s) => s === 'done' || s === 'failed', 60000);
    const path = await page.getByTestId('export-path').innerText();
    assert.ok(existsSync(path), path);
    const top = parseTop(goPprof(['-top', '-sample_index=cpu'], path));
    assert.ok(top.some((r) => r.name.includes('CpuWork.Heavy')), 'go tool pprof lists CpuWork.Heavy');
    await checkedScreenshot(page, '6-export');
  });

  it('keeps every view usable after the recording stopped', { timeout: 60000 }, async () => {
    // Stop it from the UI if it is still running (on a busy machine the burn threads take longer than their 20 s).
    if (session(await appState(page), cpuSession)?.state !== 'stopped') await page.getByTestId('session-stop').click({ timeout: 2000 }).catch(() => undefined);
    await until('the launched program to stop', () => appState(page), (s) => session(s, cpuSession)?.state === 'stopped', 30000, 500);
    await page.getByTestId('tab-flame').click();
    const cpu = await until('the flame graph', () => flameNodes(page), (n) => n.length > 3);
    await page.getByTestId('metric-wall').click();
    const wall = await until('the wall-time tree', () => flameNodes(page), (n) => n.length > 3 && n[0].total !== cpu[0].total);
    assert.ok(wall[0].total > cpu[0].total, 'wall time exceeds CPU time (the lock waiters and sleepers)');
    await page.getByTestId('tab-parallel').click();
    await page.getByTestId('parallel-mode-window').click();
    await until('the window-mode parallel stacks', () => parallelNodes(page), (n) => n.some((x) => x.label === `${NS}LockWork.Wait`));
    const state = await appState(page);
    assert.equal(state.error, null, `no error shown: ${state.error}`);
    assert.deepEqual(pageErrors, [], 'no errors in the page');
  });
});
