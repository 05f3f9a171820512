// Every tab of the workstation at 1280×800 and 1920×1080 with a real recording (Scenarios'
// gc-churn, allocations on), saved under test-artifacts/workstation/screens/ for a person to look
// at, and checked for what a person would see at once: a tab that draws nothing (one colour), a
// page that scrolls sideways, a control whose text is cut (wider than its box).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { churnInWorkstation, missingForChurn, type ChurnInWorkstation } from './support/churn-in-workstation.js';
import { ARTIFACTS, checkedScreenshot } from './support/workstation-page.js';
import { TABS } from '../../renderer/src/state/app-state.js';

const missing = missingForChurn();
const skip = missing.length > 0 && !process.env.CI;

const SIZES = [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }];

/** Buttons, selects, labels, tables' headers and figures whose text is wider than their box (cut), by their text. */
function cutControls(page: Page): Promise<string[]> {
  return page.evaluate(`(() => [...document.querySelectorAll('button, select, .chip, .badge, .tab, label.check, .vhead .vcell, .vrow .vcell.num')]
    .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
    .map((el) => (el.tagName === 'SELECT' ? el.options[el.selectedIndex]?.text : el.textContent) ?? ''))()`);
}

describe('every tab at 1280×800 and 1920×1080 with a real recording', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let opened: ChurnInWorkstation;
  let page: Page;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    opened = await churnInWorkstation('clrscope-screens-');
    page = opened.page;
  });

  after(async () => {
    await opened?.close();
  });

  for (const size of SIZES) {
    it(`draws every tab at ${size.width}×${size.height}, nothing cut, no sideways scroll`, { timeout: 120000 }, async () => {
      await page.setViewportSize(size);
      const problems: string[] = [];
      for (const tab of TABS) {
        await page.getByTestId(`tab-${tab}`).click();
        await page.waitForTimeout(700);
        await checkedScreenshot(page, `${size.width}x${size.height}-${tab}`, { dir: join(ARTIFACTS, 'screens'), minColors: 8 });
        const sideways = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
        if (sideways === true) problems.push(`${tab}: the page scrolls sideways`);
        for (const text of await cutControls(page)) problems.push(`${tab}: "${text.trim()}" is cut`);
      }
      assert.deepEqual([...new Set(problems)], []);
      await page.getByTestId('tab-gc').click();
      await page.getByTestId('gc-show-collections').click();
      await page.waitForTimeout(300);
      await checkedScreenshot(page, `${size.width}x${size.height}-gc-collections`, { dir: join(ARTIFACTS, 'screens'), minColors: 8 });
      await page.getByTestId('gc-show-timeline').click();
    });
  }
});
