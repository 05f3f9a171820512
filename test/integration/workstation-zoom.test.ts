// The flame graph's zoom in Chromium (renderer/src/canvas/flame-zoom.ts): a click zooms to a
// frame and the app state holds its path, a switch of tabs keeps it, a filter that takes the
// zoomed frame away leaves the zoom on the deepest frame of its path still there (and the
// frame zoomed again when it comes back; a new renderer, back from another tab, follows the
// same rule), a click on the root or a double-click zooms out.
// The recording is a small speedscope file opened through the UI: two threads, alpha with
// Main;Work;{Hot,Cold} and Main;Idle, beta with Main;Idle only.
//
// Without Chromium or the built renderer the suite is skipped with a message saying what is
// missing, except under CI, where that is a failure.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, flameNodes, flamePointOf, hookReady, missingForPage, until } from './support/workstation-page.js';

const missing = missingForPage();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-zoom: SKIPPED, missing: ${missing.join('; ')}\n`);

const RECORDING = {
  $schema: 'https://www.speedscope.app/file-format-schema.json',
  name: 'zoom',
  exporter: 'workstation-zoom.test',
  activeProfileIndex: 0,
  shared: { frames: [{ name: 'Main' }, { name: 'Work' }, { name: 'Hot' }, { name: 'Cold' }, { name: 'Idle' }] },
  profiles: [
    { type: 'sampled', name: 'alpha', unit: 'milliseconds', startValue: 0, endValue: 100, samples: [[0, 1, 2], [0, 1, 3], [0, 4]], weights: [60, 20, 20] },
    { type: 'sampled', name: 'beta', unit: 'milliseconds', startValue: 0, endValue: 50, samples: [[0, 4]], weights: [50] },
  ],
};

/** The path of the frame the flame renderer shows zoomed, and the path the app state asks for. */
function zoom(page: Page): Promise<{ shown: string[] | null; asked: string[] }> {
  return page.evaluate(() => {
    const hook = (globalThis as unknown as { __clrscopeTest: { flameZoomed(): string[] | null; state(): { flameZoom: string[] } } }).__clrscopeTest;
    return { shown: hook.flameZoomed(), asked: hook.state().flameZoom };
  });
}

const same = (a: readonly string[] | null, b: readonly string[]): boolean => a !== null && a.join('\n') === b.join('\n');

describe('the flame graph\'s zoom, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let page: Page;
  let dir: string;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the workstation-zoom test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-zoom-e2e-'));
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports') });
    ({ page, errors: pageErrors } = ui);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Clicks the middle of the frame with this path (the root for []). */
  async function clickFrame(path: readonly string[]): Promise<void> {
    const at = await until(`the frame ${path.join(';') || 'all'} on screen`, () => flamePointOf(page, path), (p) => p !== null);
    await page.getByTestId('flame-canvas').click({ position: at ?? { x: 0, y: 0 } });
  }

  async function zoomIs(what: string, shown: readonly string[], asked: readonly string[] = shown): Promise<void> {
    await until(what, () => zoom(page), (z) => same(z.shown, shown) && same(z.asked, asked), 10000);
    // The renderer animates a zoom for 180 ms: frames are where a click finds them after it.
    await page.waitForTimeout(400);
  }

  async function threadChecked(name: string, checked: boolean): Promise<void> {
    if (await page.getByTestId('thread-filter-panel').count() === 0) await page.getByTestId('thread-filter').click();
    const box = page.locator(`[data-testid="thread-option"][data-thread-name="${name}"]`);
    if (checked) await box.check();
    else await box.uncheck();
    await until('the flame graph of the chosen threads', () => appState(page), (s) => s.flameCurrent);
  }

  it('zooms to a clicked frame and keeps the zoom across a switch of tabs', { timeout: 60000 }, async () => {
    const file = join(dir, 'zoom.speedscope.json');
    writeFileSync(file, JSON.stringify(RECORDING));
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
    await until('the flame graph of the file', () => flameNodes(page), (nodes) => nodes.some((n) => n.label === 'Cold'), 30000);
    await zoomIs('no zoom at first', []);
    assert.equal(await page.getByTestId('zoom-reset').isDisabled(), true);

    await clickFrame(['Main', 'Work']);
    await zoomIs('Work zoomed', ['Main', 'Work']);
    assert.equal(await page.getByTestId('zoom-reset').isDisabled(), false);

    await page.getByTestId('tab-functions').click();
    await page.getByTestId('tab-flame').click();
    await zoomIs('Work still zoomed in a new renderer', ['Main', 'Work']);
  });

  it('shows the deepest frame of the path still there while the zoomed one is filtered away, and the frame again when it is back', { timeout: 60000 }, async () => {
    await threadChecked('alpha', false);
    assert.ok(!(await flameNodes(page)).some((n) => n.label === 'Work'), 'beta alone has no Work');
    await zoomIs('Main shown, Work still asked for', ['Main'], ['Main', 'Work']);
    // A new renderer (back from another tab) follows the same rule: not the whole tree.
    await page.keyboard.press('Escape');
    await page.getByTestId('tab-functions').click();
    await page.getByTestId('tab-flame').click();
    await zoomIs('Main shown by a new renderer, Work still asked for', ['Main'], ['Main', 'Work']);
    await threadChecked('alpha', true);
    await zoomIs('Work zoomed again', ['Main', 'Work']);
    await page.keyboard.press('Escape');
    await page.getByTestId('flame-caption').click();
  });

  it('zooms out on a click on the root, on a double-click and with the reset button', { timeout: 60000 }, async () => {
    await clickFrame([]);
    await zoomIs('the root zooms out', []);
    await clickFrame(['Main', 'Work', 'Hot']);
    await zoomIs('Hot zoomed', ['Main', 'Work', 'Hot']);
    await page.getByTestId('flame-canvas').dblclick({ position: { x: 5, y: 5 } });
    await zoomIs('a double-click zooms out', []);
    await clickFrame(['Main', 'Idle']);
    await zoomIs('Idle zoomed', ['Main', 'Idle']);
    await page.getByTestId('zoom-reset').click();
    await zoomIs('the reset button zooms out', []);
    assert.deepEqual(pageErrors, [], 'no errors in the page');
  });
});
