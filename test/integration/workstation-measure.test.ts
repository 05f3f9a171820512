// "Measure exactly" in the workstation (issue 15), in Chromium against a real .NET program: a
// right-click on a flame graph frame measures its method, the Measure view counts its calls live
// with a latency histogram, and Revert stops the counting.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { PROFILER, targetDll } from './support/paths.js';
import { appState, checkedScreenshot, flameNodes, flamePointOf, hookReady, missingForPage, until, type HookNode } from './support/workstation-page.js';

const LOOP = 'Clrscope.Targets.Measure.Bench.Loop';

function missingPrerequisites(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  try {
    targetDll('Measure');
  } catch {
    missing.push('Measure.dll (npm run build:targets)');
  }
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  return missing;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-measure: SKIPPED, missing: ${missing.join('; ')}\n`);

/** The measure table's rows as the page shows them. */
async function rows(page: Page): Promise<{ name: string; calls: number; state: string }[]> {
  return page.getByTestId('measure-row').evaluateAll((trs) => trs.map((tr) => ({
    name: tr.getAttribute('data-name') ?? '',
    calls: Number(tr.getAttribute('data-calls')),
    state: tr.getAttribute('data-state') ?? '',
  })));
}

function pathOf(nodes: readonly HookNode[], node: HookNode): string[] {
  const path: string[] = [];
  for (let n: HookNode | undefined = node; n !== undefined && n.parent >= 0; n = nodes.find((x) => x.index === n?.parent)) path.unshift(n.label);
  return path;
}

describe('Measure exactly, from the flame graph', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];
  let exportsDir: string;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    exportsDir = mkdtempSync(join(tmpdir(), 'clrscope-measure-e2e-'));
    ui = await openWorkstationInChromium({ exportsDir });
    ({ server, page, errors: pageErrors } = ui);
  });

  after(async () => {
    await ui?.close();
    if (exportsDir !== undefined) rmSync(exportsDir, { recursive: true, force: true });
  });

  it('measures a frame\'s method live, shows its histogram, and stops counting on Revert', { timeout: 120000 }, async () => {
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-command').fill('dotnet');
    await page.getByTestId('launch-args').fill(`${targetDll('Measure')} --do spin:40`);
    await page.getByTestId('launch-submit').click();
    await until('the flame graph tab', () => appState(page), (s) => s.tab === 'flame' && s.selectedSessionId !== null);
    const nodes = await until('the spinning loop in the flame graph', () => flameNodes(page), (n) => n.some((x) => x.label === LOOP && x.total > 2e8), 30000);
    const loop = nodes.filter((x) => x.label === LOOP).sort((a, b) => b.total - a.total)[0];
    const point = await flamePointOf(page, pathOf(nodes, loop));
    const canvas = await page.getByTestId('flame-canvas').boundingBox();
    assert.ok(point !== null && canvas !== null, 'the loop\'s frame is in view');
    await page.mouse.click(canvas.x + point.x, canvas.y + point.y, { button: 'right' });
    const item = page.getByTestId('measure-exactly');
    assert.match(await item.innerText(), /Measure exactly: Clrscope\.Targets\.Measure\.Bench\.Loop/);
    await item.click();

    await until('the Measure tab', () => appState(page), (s) => s.tab === 'measure');
    const counted = await until('calls of the loop', () => rows(page), (r) => r.some((x) => x.name === LOOP && x.state === 'active' && x.calls > 100), 20000);
    const first = counted.find((x) => x.name === LOOP)?.calls ?? 0;
    await until('more calls, live', () => rows(page), (r) => (r.find((x) => x.name === LOOP)?.calls ?? 0) > first, 10000);
    assert.match(await page.getByTestId('measure-notice').innerText(), /1 method matches Clrscope\.Targets\.Measure\.Bench\.Loop/);
    assert.equal(await page.locator('svg.measure-histogram rect').count() > 0, true, 'a latency histogram is drawn');
    await checkedScreenshot(page, 'measure', { minColors: 6 });

    await page.getByTestId('measure-revert').click();
    const reverted = await until('the revert', () => rows(page), (r) => r.find((x) => x.name === LOOP)?.state === 'reverted', 20000);
    // Calls that were inside the wrapped code at the revert still finish and are counted.
    await new Promise((r) => setTimeout(r, 2500));
    const settled = (await rows(page)).find((x) => x.name === LOOP)?.calls ?? 0;
    await new Promise((r) => setTimeout(r, 1500));
    const later = (await rows(page)).find((x) => x.name === LOOP)?.calls ?? 0;
    assert.ok(settled >= (reverted.find((x) => x.name === LOOP)?.calls ?? 0));
    assert.equal(later, settled, 'no call is counted once the original code is back');
    assert.deepEqual(pageErrors, []);
  });
});
