// The workstation's switch for where async call stacks come from (issue 26): Attach offers "async
// stacks: off / from events / from the heap" and passes the choice to the profiler as `record
// --async-source` does. An attach reading them from the heap cannot detach (the box probe's ReJIT
// cannot be undone): stopping it must say that clrscope's library stays loaded, leave the probe
// doing nothing, and the program must run on to its end with every value it checks right
// (AsyncChain churn: every call's value checked by its caller) and its awaits still resuming.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { targetDll } from './support/paths.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, hookReady, until, attachFromPicker } from './support/workstation-page.js';

const SECONDS = 30;

describe('workstation: async stacks from the heap, chosen in Attach', () => {
  let dir: string;
  let ui: WorkstationInChromium | undefined;
  let page: Page;
  let target: ChildProcess;
  let stdout = '';
  const log = (): string => join(dir, 'profiler.log');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-async-source-'));
    target = spawn('dotnet', [targetDll('AsyncChain'), 'churn', '--seconds', String(SECONDS), '--parallel', '4'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CLRSCOPE_LOG: log() },
    });
    target.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    page = ui.page;
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
  });

  after(async () => {
    await ui?.close();
    if (target !== undefined && target.exitCode === null) target.kill('SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('attaches with "from the heap", records [await] chains, and on Stop says the library stays loaded while the program runs on right', { timeout: (SECONDS + 120) * 1000 }, async (t) => {
    const pid = target.pid!;
    await page.getByTestId('tab-processes').click();
    const select = page.getByTestId('attach-async');
    assert.equal(await select.inputValue(), 'auto', "Attach's async stacks are left to the process's await rate by default");
    assert.deepEqual(await select.locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))), ['auto', 'off', 'events', 'heap']);
    await select.selectOption('heap');
    await attachFromPicker(page, pid);
    // The profiler took the switch: its log says the probe was asked for, and walks are kept.
    await until('the box probe in the profiler log', async () => { try { return readFileSync(log(), 'utf8'); } catch { return ''; } }, (text) => /ReJIT requested for AsyncStateMachineBox/.test(text), 30_000, 500);
    await until('samples', () => appState(page), (s) => (s.summary?.sampleCount ?? 0) > 200, 60_000);
    await page.getByTestId('tab-flame').click();
    await page.getByTestId('session-stop').click();
    const stopped = await until('the session stopped', () => appState(page), (s) => s.sessions.some((x) => x.pid === pid && x.state === 'stopped'), 30_000);
    const message = stopped.sessions.find((x) => x.pid === pid)?.message ?? '';
    t.diagnostic(`session message: ${message}`);
    assert.match(message, /stays loaded/);
    assert.equal(target.exitCode, null, 'the program still runs after the session ended');

    // The program runs on to its end with every value right; the probe did nothing after the stop.
    const code = await new Promise<number | null>((resolve) => { if (target.exitCode !== null) resolve(target.exitCode); else target.on('exit', (c) => resolve(c)); });
    assert.equal(code, 0, stdout);
    const result = JSON.parse(/RESULT (\{.*\})/.exec(stdout)![1]) as { calls: number; wrong: number };
    assert.equal(result.wrong, 0, 'the program found a wrong value');
    const text = readFileSync(log(), 'utf8');
    t.diagnostic(text.split('\n').filter((l) => /async heap|quiet|stays|staying/.test(l)).join('\n'));
    const walks = /async heap: (\d+) walks \((\d+) to the root/.exec(text);
    assert.ok(walks !== null && Number(walks[2]) > 0, 'walks reached the root while recording');
    assert.match(text, /staying quiet/);
    assert.ok(result.calls > 10000, `only ${result.calls} calls`);
  });
});
