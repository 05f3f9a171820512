// Visual regression: every tab at 1280×800 and 1920×1080 in the dark theme, and at 1280×800 in
// the light one, with a real recording (test/integration/visual/gc-churn.clrscope: Scenarios'
// gc-churn recorded with allocations, kept so the pixels do not move with a new run), compared
// with the references in test/integration/visual/references/. What changes by itself is masked:
// the live process list, the status bar, the sessions' times, the files found on this machine. A pixel counts as changed past a
// tolerance per channel (a rasterizer's antialiasing), a screen as changed past a share of them.
// After a change meant to be seen: bash scripts/update-visual-references.sh, then look at the
// new references before committing them. Fonts and Chromium come from Debian's packages
// (scripts/setup.sh installs them), so CI on a fresh clone draws what this machine drew.

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ROOT } from './support/paths.js';
import { diffPng } from './support/png-diff.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { ARTIFACTS, CHROMIUM, appState, hookReady, missingForPage, until } from './support/workstation-page.js';
import { TABS } from '../../renderer/src/state/app-state.js';

const VISUAL = join(ROOT, 'test', 'integration', 'visual');
const REFERENCES = join(VISUAL, 'references');
const RECORDING = join(VISUAL, 'gc-churn.clrscope');
const UPDATE = process.env.CLRSCOPE_UPDATE_VISUAL === '1';
const SCREENS = [
  { scheme: 'dark', width: 1280, height: 800 },
  { scheme: 'dark', width: 1920, height: 1080 },
  { scheme: 'light', width: 1280, height: 800 },
] as const;
/** A channel may differ by this much (of 255) and the pixel still count as the same. */
const CHANNEL_TOLERANCE = 24;
/** A screen may have this share of its pixels changed and still pass. */
const MAX_CHANGED = 0.002;
/** What differs from run to run or machine to machine by itself. */
// The session's note names the folder the file was opened from.
const MASKS = ['.process-list', '.statusbar', '.session-meta', '.session-message', '.session-note'];
// The Source column names files found through the PDBs at the paths of the machine that recorded
// (a worktree long gone): hidden rather than masked, since a mask takes the cell's box, and an empty
// cell's box is a thin line where a filled one's is the row.
const HIDDEN = '.functions-table .vcell:nth-child(2) { visibility: hidden; }';
// Text drawn the same on every machine: no hinting, greyscale antialiasing, one colour profile.
const STABLE_TEXT = ['--font-render-hinting=none', '--disable-lcd-text', '--force-color-profile=srgb', '--hide-scrollbars'];

const missing = missingForPage();
if (!existsSync(RECORDING)) missing.push(`the recording ${RECORDING}`);
const skip = missing.length > 0 && !process.env.CI;

/** Chromium's version and the fonts the page's families resolve to: what the references were drawn with. */
function drawnWith(): { chromium: string; fonts: string[] } {
  const chromium = execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim();
  const fonts = ['system-ui', 'sans-serif', 'monospace'].map((f) => `${f}: ${execFileSync('fc-match', [f], { encoding: 'utf8' }).trim()}`);
  return { chromium, fonts };
}

/** A screenshot once two in a row are the same (nothing is still drawing), with the masks. */
async function steadyShot(page: Page): Promise<Buffer> {
  const mask = MASKS.map((m) => page.locator(m));
  const shoot = () => page.screenshot({ mask, animations: 'disabled', caret: 'hide', style: HIDDEN });
  let last = await shoot();
  for (let i = 0; i < 10; i++) {
    await page.waitForTimeout(250);
    const next = await shoot();
    if (next.equals(last)) return next;
    last = next;
  }
  return last;
}

describe('visual regression: every tab against its reference', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let page: Page;
  let dir: string;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    // A fixed path: the session's label and the Open form show it.
    dir = join(tmpdir(), 'clrscope-visual');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    copyFileSync(RECORDING, join(dir, 'gc-churn.clrscope'));
    ui = await openWorkstationInChromium({ exportsDir: mkdtempSync(join(tmpdir(), 'clrscope-visual-exports-')) }, undefined, STABLE_TEXT);
    page = ui.page;
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(join(dir, 'gc-churn.clrscope'));
    await page.getByTestId('open-submit').click();
    await until('the recording', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.opening === null, 60000);
    await page.mouse.move(0, 0);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('draws with the Chromium and fonts the references were drawn with', () => {
    const now = drawnWith();
    const file = join(REFERENCES, 'drawn-with.json');
    if (UPDATE) {
      mkdirSync(REFERENCES, { recursive: true });
      writeFileSync(file, `${JSON.stringify(now, null, 2)}\n`);
    }
    const then = JSON.parse(readFileSync(file, 'utf8')) as { chromium: string; fonts: string[] };
    assert.deepEqual(now.fonts, then.fonts, 'the fonts differ from the references\' (scripts/setup.sh installs fonts-dejavu-core)');
    assert.equal(now.chromium.split('.')[0], then.chromium.split('.')[0], 'another major version of Chromium: its drawing may differ (bash scripts/update-visual-references.sh)');
  });

  for (const screen of SCREENS) {
    const name = `${screen.scheme}-${screen.width}x${screen.height}`;
    it(`${name}: every tab as its reference`, { timeout: 240000 }, async () => {
      await page.emulateMedia({ colorScheme: screen.scheme });
      await page.setViewportSize({ width: screen.width, height: screen.height });
      const changed: string[] = [];
      for (const tab of TABS) {
        await page.getByTestId(`tab-${tab}`).click();
        await page.mouse.move(0, 0);
        await until('the views to settle', () => appState(page), (s) => s.flameCurrent, 20000);
        const shot = await steadyShot(page);
        const file = join(REFERENCES, `${name}-${tab}.png`);
        if (UPDATE) {
          writeFileSync(file, shot);
          continue;
        }
        assert.ok(existsSync(file), `no reference ${file}: bash scripts/update-visual-references.sh`);
        const diff = diffPng(shot, readFileSync(file), CHANNEL_TOLERANCE);
        if (diff.sizeMismatch !== null || diff.share > MAX_CHANGED) {
          const out = join(ARTIFACTS, 'visual');
          mkdirSync(out, { recursive: true });
          writeFileSync(join(out, `${name}-${tab}.png`), shot);
          writeFileSync(join(out, `${name}-${tab}.diff.png`), diff.image);
          changed.push(`${tab}: ${diff.sizeMismatch ?? `${(diff.share * 100).toFixed(2)}% of pixels changed`} (test-artifacts/workstation/visual/${name}-${tab}.diff.png)`);
        }
      }
      assert.deepEqual(changed, [], 'screens changed; if meant, bash scripts/update-visual-references.sh and look at them');
    });
  }
});
