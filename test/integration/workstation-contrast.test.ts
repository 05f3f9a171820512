// The light and the dark theme, each as the system's setting picks it (Playwright's colour-scheme
// emulation is prefers-color-scheme to the page): every tab with a real recording (Scenarios'
// gc-churn, allocations on), every visible piece of text measured against the background it is
// drawn on (WCAG 2: 4.5:1, 3:1 for large text), the canvases' text against theirs, and the page
// and the flame graph's canvas light in the light theme and dark in the dark one.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ROOT } from './support/paths.js';
import { churnInWorkstation, missingForChurn, type ChurnInWorkstation } from './support/churn-in-workstation.js';
import { TABS } from '../../renderer/src/state/app-state.js';

const missing = missingForChurn();
const skip = missing.length > 0 && !process.env.CI;

const SCHEMES = ['dark', 'light'] as const;
const PAGE_SCRIPT = readFileSync(join(ROOT, 'test', 'integration', 'support', 'text-contrast-page.js'), 'utf8');

interface LowContrast { text: string; where: string; ratio: number; needed: number; color: string; background: string }

function measure(page: Page): Promise<{ checked: number; low: LowContrast[] }> {
  return page.evaluate(`${PAGE_SCRIPT}\nmeasureTextContrast()`);
}

function canvasText(page: Page, strip: { selector: string; x: number; y: number; w: number; h: number }): Promise<{ ratio: number; background: string } | null> {
  return page.evaluate(`${PAGE_SCRIPT}\ncanvasTextContrast(${JSON.stringify(strip)})`);
}

/** Relative luminance (0 black, 1 white) of an element's background colour, or of a canvas's pixel. */
function luminanceOf(page: Page, what: { css: string } | { canvas: string; x: number; y: number }): Promise<number> {
  return page.evaluate(`${PAGE_SCRIPT}\nluminanceOf(${JSON.stringify(what)})`);
}

describe('light and dark themes: every tab readable in both', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let opened: ChurnInWorkstation;
  let page: Page;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    opened = await churnInWorkstation('clrscope-contrast-');
    page = opened.page;
  });

  after(async () => {
    await opened?.close();
  });

  for (const scheme of SCHEMES) {
    it(`${scheme}: the page follows the system's setting, text at 4.5:1 (3:1 large) on every tab, canvases too`, { timeout: 180000 }, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId('tab-processes').click();
      const body = await luminanceOf(page, { css: 'body' });
      assert.ok(scheme === 'light' ? body > 0.8 : body < 0.05, `the page's background has luminance ${body.toFixed(3)} in the ${scheme} scheme`);
      const problems: string[] = [];
      for (const tab of TABS) {
        await page.getByTestId(`tab-${tab}`).click();
        await page.waitForTimeout(600);
        const { checked, low } = await measure(page);
        assert.ok(checked >= 5, `${tab}: only ${checked} pieces of text measured`);
        for (const l of low) problems.push(`${tab}: "${l.text}" (${l.where}) ${l.ratio}:1 < ${l.needed}:1, ${l.color} on ${l.background}`);
      }
      // Canvases: the flame graph's background, the threads' names on the timeline, the GC axis.
      await page.getByTestId('tab-flame').click();
      await page.waitForTimeout(600);
      const flameBg = await luminanceOf(page, { canvas: '.flame-box canvas', x: 1, y: 1 });
      assert.ok(scheme === 'light' ? flameBg > 0.8 : flameBg < 0.05, `the flame graph's background has luminance ${flameBg.toFixed(3)}`);
      await page.getByTestId('tab-timeline').click();
      await page.waitForTimeout(600);
      const lanes = await canvasText(page, { selector: '[data-testid="timeline-canvas"]', x: 4, y: 22, w: 160, h: 40 });
      assert.ok(lanes !== null && lanes.ratio >= 4.5, `threads' names on the timeline: ${JSON.stringify(lanes)}`);
      await page.getByTestId('tab-gc').click();
      await page.waitForTimeout(600);
      const axis = await canvasText(page, { selector: 'canvas.gc-timeline', x: 0, y: 162, w: 400, h: 17 });
      assert.ok(axis !== null && axis.ratio >= 4.5, `the GC timeline's axis labels: ${JSON.stringify(axis)}`);
      assert.deepEqual([...new Set(problems)], []);
    });
  }
});
