// Cancel on the long work of the workstation, in Chromium: opening a large recording and
// exporting it. The large recording is a real one (Scenarios' gc-churn) repeated as many
// processes of one file (mergeProcesses), so opening and writing it take seconds here. A cancel
// must stop the work while its progress shows it mid-way, and leave what was there before: the
// sessions and the shown recording unchanged, no error, no file (nor a partial one) written.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { mergeProcesses } from '../../structs/profile/merge-processes.js';
import type { Recording } from '../../structs/profile/recording.js';
import { PROFILER, ROOT } from './support/paths.js';
import { recordTarget } from './support/record-target.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, hookReady, missingForPage, until, type HookState } from './support/workstation-page.js';

const scenarios = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = missingForPage();
if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
if (!existsSync(scenarios)) missing.push('Scenarios.dll (npm run build:targets)');
const skip = missing.length > 0 && !process.env.CI;

/** Copies of the recording in the large file: enough for seconds of reading and writing here. */
const COPIES = Number(process.env.CLRSCOPE_CANCEL_COPIES ?? 60);

describe('cancelling an open and an export of a large recording', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let page: Page;
  let dir: string;
  let exportsDir: string;
  let small: Recording;
  let smallFile: string;
  let largeFile: string;
  let largeSamples: number;

  /** Types `file` into Open recording… (on the processes tab, the form opened when it is not) and submits it. */
  const openFile = async (file: string): Promise<void> => {
    await page.getByTestId('tab-processes').click();
    if (!(await page.getByTestId('open-path').isVisible())) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
  };

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-cancel-'));
    exportsDir = join(dir, 'exports');
    mkdirSync(exportsDir, { mode: 0o700 });
    const env = { ...process.env, CLRSCOPE_ALLOC: '1', DOTNET_gcServer: '0', DOTNET_gcConcurrent: '0', DOTNET_GCgen0size: '0x400000' };
    small = (await recordTarget(scenarios, ['gc-churn', '--seconds', '2'], { env, intervalMs: 1 })).rec;
    smallFile = join(dir, 'small.clrscope');
    writeFileSync(smallFile, saveRecording(small));
    const large = mergeProcesses(Array.from({ length: COPIES }, (_, i) => ({ process: { pid: 100000 + i, name: `copy${i}` }, recording: small })));
    largeSamples = large.sampleCount;
    largeFile = join(dir, 'large.clrscope');
    writeFileSync(largeFile, saveRecording(large));
    ui = await openWorkstationInChromium({ exportsDir });
    page = ui.page;
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await openFile(smallFile);
    await until('the small recording', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount === small.sampleCount, 60000);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('Cancel stops an open mid-way: no new session, the shown recording and its views as they were, no error', { timeout: 120000 }, async () => {
    const before = await appState(page);
    assert.equal(before.sessions.length, 1);
    await openFile(largeFile);
    // Progress is shown and moves before the cancel.
    const moving = await until('the open under way', () => appState(page), (s) => s.opening !== null && s.opening.done > 0, 30000, 50);
    await page.getByTestId('open-progress').waitFor({ state: 'visible', timeout: 5000 });
    const opening = moving.opening as NonNullable<HookState['opening']>;
    assert.ok(opening.phase === 'reading' || opening.done < opening.total, `the open was already over: ${JSON.stringify(opening)}`);
    const clicked = Date.now();
    await page.getByTestId('open-cancel').click();
    const after = await until('the open to end', () => appState(page), (s) => s.opening === null, 15000, 50);
    const tookMs = Date.now() - clicked;
    assert.deepEqual(after.sessions.map((s) => s.id), before.sessions.map((s) => s.id), 'no session was added');
    assert.deepEqual((await ui.workstation.listSessions()).map((s) => s.id), before.sessions.map((s) => s.id), 'the workstation holds no new session');
    assert.equal(after.selectedSessionId, before.selectedSessionId);
    assert.equal(after.summary?.sampleCount, small.sampleCount, 'the shown recording is the small one still');
    assert.equal(after.error, null);
    assert.ok(tookMs < 5000, `the cancel took ${tookMs} ms`);
  });

  it('Cancel stops an export mid-way: no file and no partial file in the exports folder, the status says so', { timeout: 300000 }, async () => {
    // The large recording opened whole this time: what is exported.
    await openFile(largeFile);
    await until('the large recording', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount === largeSamples && s.opening === null, 240000, 250);
    const sessionId = (await appState(page)).selectedSessionId as string;
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-speedscope').click();
    const running = await until('the export reading the recording back', () => appState(page), (s) => {
      const e = s.exports[sessionId];
      return e !== undefined && (e.state !== 'running' || (e.phase === 'reading' && e.done > 0));
    }, 120000, 50);
    assert.equal(running.exports[sessionId].state, 'running', `the export ended before it could be cancelled: ${JSON.stringify(running.exports[sessionId])}`);
    await page.getByTestId('export-progress').waitFor({ state: 'visible', timeout: 5000 });
    await page.getByTestId('export-cancel').click();
    const ended = await until('the export to end', () => appState(page), (s) => s.exports[sessionId]?.state !== 'running', 30000, 50);
    assert.equal(ended.exports[sessionId].state, 'cancelled', JSON.stringify(ended.exports[sessionId]));
    assert.equal(ended.error, null);
    assert.deepEqual(readdirSync(exportsDir), [], 'nothing was left in the exports folder');
    assert.ok(await page.getByTestId('export-cancelled').isVisible());
    // The session is as it was, and the export can be asked again.
    assert.equal(ended.selectedSessionId, sessionId);
    assert.equal(ended.summary?.sampleCount, largeSamples);
    assert.ok(await page.getByTestId('export-pprof').isEnabled());
  });
});
