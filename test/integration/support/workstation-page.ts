// Driving the workstation's page in Chromium: the renderer's `?test` hook (a read-only view of
// what the UI shows), polling until the live views reach a condition, and checked screenshots.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { pngColors } from './png-colors.js';
import { ROOT } from './paths.js';

export const ARTIFACTS = join(ROOT, 'test-artifacts', 'workstation');
export const CHROMIUM = '/usr/bin/chromium';
export const RENDERER = join(ROOT, 'renderer', 'dist');

/** What a page of the workstation needs that may be missing, each with how to get it. */
export function missingForPage(): string[] {
  const missing: string[] = [];
  if (!existsSync(CHROMIUM)) missing.push(`Chromium (${CHROMIUM}: apt-get install chromium)`);
  for (const f of ['index.html', 'app.js', 'worker.js', 'theme.css', 'styles.css']) {
    if (!existsSync(join(RENDERER, f))) missing.push(`renderer/dist/${f} (npm run build)`);
  }
  return missing;
}

export interface OpenedPage {
  browser: Browser;
  page: Page;
  /** Uncaught errors and console errors of the page, so a test can assert there were none. */
  errors: string[];
}

/** Debian's Chromium, headless, with one page of the workstation's size (and `args` for Chromium); the caller closes `browser`. */
export async function openPage(args: readonly string[] = []): Promise<OpenedPage> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { browser, page, errors };
}

/** The parts of the renderer's test hook (renderer/src/views/diagnostics-hook.ts) the test reads. */
export interface HookNode {
  index: number;
  label: string;
  kind: number;
  parent: number;
  depth: number;
  total: number;
  self: number;
}

export interface HookParallelNode extends HookNode {
  threads: number[];
}

export interface HookThread {
  id: number;
  osTid: number;
  name: string;
  ended: boolean;
  cpuNs: number;
  wallNs: number;
}

export interface HookSession {
  id: string;
  pid: number | null;
  label: string;
  state: string;
  attached: boolean;
  source: 'launch' | 'attach' | 'file';
  approximateCpu: boolean;
  message: string | null;
}

export interface HookState {
  tab: string;
  selectedSessionId: string | null;
  sessions: HookSession[];
  summary: { sampleCount: number; durationMs: number; threads: HookThread[]; pauses: unknown[]; ended: boolean; error: string | null } | null;
  streamBytes: number;
  error: string | null;
  flameOptions: { metric: string; window: { kind: string; fromMs?: number; toMs?: number }; groupByThread: boolean; search: string };
  /** The folding every view applies. */
  fold: { runtime: boolean; myCode: boolean; groupBy: string };
  /** The flame graph's zoom: labels from the root's child down (empty: not zoomed). */
  flameZoom: string[];
  /** The flame tree on screen answers the current options (false while a changed query is out). */
  flameCurrent: boolean;
  opening: { path: string; phase: string; done: number; total: number } | null;
  exports: Record<string, { format: string; state: string; phase?: string; done: number; total: number; path: string | null; bytes: number | null; message: string | null }>;
}

export interface HookOutput {
  lines: { seq: number; stream: 'stdout' | 'stderr'; text: string }[];
  partial: { stdout: string; stderr: string };
  droppedLines: number;
  loaded: boolean;
}

export interface TestHook {
  state(): HookState;
  flameNodes(): HookNode[];
  parallelNodes(): HookParallelNode[];
  flameCanvas(): { width: number; height: number } | null;
  flameVisible(): { top: number; height: number } | null;
  flameHitIndex(x: number, y: number): number;
  flamePath(node: number): string[];
  counterPoints(): number;
  output(): HookOutput;
}

type HookGlobal = { __clrscopeTest?: TestHook };

export async function hookReady(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as HookGlobal).__clrscopeTest !== undefined, undefined, { timeout: 15000 });
}

export function appState(page: Page): Promise<HookState> {
  return page.evaluate(() => (globalThis as unknown as Required<HookGlobal>).__clrscopeTest.state());
}

export function programOutput(page: Page): Promise<HookOutput> {
  return page.evaluate(() => (globalThis as unknown as Required<HookGlobal>).__clrscopeTest.output());
}

export function flameNodes(page: Page): Promise<HookNode[]> {
  return page.evaluate(() => (globalThis as unknown as Required<HookGlobal>).__clrscopeTest.flameNodes());
}

export function parallelNodes(page: Page): Promise<HookParallelNode[]> {
  return page.evaluate(() => (globalThis as unknown as Required<HookGlobal>).__clrscopeTest.parallelNodes());
}

/** The nodes below `root` (the hook's trees are in preorder: a subtree is the run of deeper nodes right after its root). */
export function descendants(nodes: readonly HookNode[], root: number): HookNode[] {
  const out: HookNode[] = [];
  for (let i = root + 1; i < nodes.length && nodes[i].depth > nodes[root].depth; i++) out.push(nodes[i]);
  return out;
}

/**
 * The widest frame under `root` that is not a caller of a `target` frame (a caller is at least
 * as wide as what it calls, so "target is the widest" means: wider than everything else).
 */
export function widestBesidesCallers(nodes: readonly HookNode[], root: number, target: string): HookNode | undefined {
  const under = descendants(nodes, root);
  const callers = new Set<number>();
  for (const t of under.filter((n) => n.label === target)) {
    for (let p = t.parent; p !== root && p >= 0; p = nodes[p].parent) callers.add(p);
  }
  const candidates = under.filter((n) => !callers.has(n.index));
  return candidates.length === 0 ? undefined : candidates.reduce((a, b) => (b.total > a.total ? b : a));
}

/** A frame by its labels from below the root (indices change with every live update; paths do not). */
export const pathKey = (path: readonly string[]): string => path.join('\n');

/**
 * Scans the flame canvas with the renderer's own hit test (every 2nd pixel across, every 3rd
 * down) and returns, per frame (by pathKey), the widest run of pixels it covers in one row.
 */
export function flamePixelWidths(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const hook = (globalThis as unknown as Required<HookGlobal>).__clrscopeTest;
    const size = hook.flameCanvas();
    const widest: Record<number, number> = {};
    if (size === null) return {};
    // One synchronous scan: the tree cannot change under it.
    for (let y = 1; y < size.height; y += 3) {
      const row: Record<number, number> = {};
      for (let x = 0; x < size.width; x += 2) {
        const i = hook.flameHitIndex(x, y);
        if (i >= 0) row[i] = (row[i] ?? 0) + 2;
      }
      for (const [i, w] of Object.entries(row)) widest[Number(i)] = Math.max(widest[Number(i)] ?? 0, w);
    }
    const byPath: Record<string, number> = {};
    for (const [i, w] of Object.entries(widest)) byPath[hook.flamePath(Number(i)).join('\n')] = w;
    return byPath;
  });
}

/** Polls `probe` until `done` says yes; fails with the last value described. */
export async function until<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20000, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > end) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    last = await probe();
  }
  return last;
}

/**
 * Writes test-artifacts/workstation/NAME.png (or DIR/NAME.png) and checks it is not blank (many
 * colours, no colour filling nearly all of it). A Locator is shot as the part of the page it
 * covers, as the user sees it: an element screenshot would scroll it into view first.
 */
export async function checkedScreenshot(page: Page, name: string, options: { of?: Locator; minColors?: number; dir?: string } = {}): Promise<string> {
  const dir = options.dir ?? ARTIFACTS;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  const clip = options.of === undefined ? null : await options.of.boundingBox();
  if (options.of !== undefined) assert.ok(clip !== null, `${name}: the element is not on screen`);
  const png = await page.screenshot({ path, ...(clip !== null ? { clip } : {}) });
  const minColors = options.minColors ?? 24;
  const colors = pngColors(png);
  assert.ok(colors.distinct >= minColors, `${name}.png has only ${colors.distinct} distinct colours`);
  assert.ok(colors.dominantShare < 0.98, `${name}.png is ${(colors.dominantShare * 100).toFixed(1)}% one colour`);
  return path;
}

/** The node the renderer has at the middle of the visible bottom row of the flame box (0 = the root). */
export function flameVisibleBottom(page: Page): Promise<number> {
  return page.evaluate(() => {
    const hook = (globalThis as unknown as Required<HookGlobal>).__clrscopeTest;
    const size = hook.flameCanvas();
    const seen = hook.flameVisible();
    if (size === null || seen === null) return -1;
    return hook.flameHitIndex(size.width / 2, seen.top + seen.height - 4);
  });
}

/** A canvas point (CSS pixels) in the visible part of the flame box on the frame with this label path, or null. */
export function flamePointOf(page: Page, path: readonly string[]): Promise<{ x: number; y: number } | null> {
  return page.evaluate((key) => {
    const hook = (globalThis as unknown as Required<HookGlobal>).__clrscopeTest;
    const size = hook.flameCanvas();
    const seen = hook.flameVisible();
    if (size === null || seen === null) return null;
    for (let y = seen.top + 2; y < seen.top + seen.height; y += 3) {
      for (let x = 0; x < size.width; x += 4) {
        const i = hook.flameHitIndex(x, y);
        if (i >= 0 && hook.flamePath(i).join('\n') === key) return { x: x + 6, y };
      }
    }
    return null;
  }, pathKey(path));
}

/** Attaches to `pid` from the Processes tab's picker (refreshing the list until it shows the process) and waits until its session records. */
export async function attachFromPicker(page: Page, pid: number): Promise<void> {
  await until(`pid ${pid} in the process list`, async () => {
    const shown = await page.getByTestId('process-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pid')));
    const refresh = page.getByTestId('process-refresh');
    if (!shown.includes(String(pid)) && await refresh.isEnabled()) await refresh.click();
    return shown;
  }, (shown) => shown.includes(String(pid)), 30_000, 1000);
  await page.locator(`[data-testid="process-row"][data-pid="${pid}"] [data-testid="process-attach"]`).click();
  await until('the attached session recording', () => appState(page), (s) => s.sessions.some((x) => x.pid === pid && x.state === 'recording') && s.selectedSessionId !== null, 30_000);
}
