// A session launched from the page with "keep only the last 5 min in the views", in Chromium:
// the program is a small Node program playing a recorded stream into the real collector's socket
// (12 minutes of target time, then 6 more once the test says so). The page says "last 5 min
// kept"; the flame graph, the functions table and the GC timeline lose the old minutes' frames
// and pauses as new minutes arrive, the summary counts only the kept samples; switching the live
// session to the whole recording brings everything back (the page reads the stream again); the
// export still writes the whole recording.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { STREAM_PLAYER_PROGRAM } from '../../electron/services/workstation/replayed-stream.test-support.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { WireEncoder } from '../../structs/wire/encoder.js';
import { FunctionKind, SampleFlags } from '../../structs/wire/records.js';
import { ARTIFACTS, appState, flameNodes, hookReady, missingForPage, openPage, RENDERER, until, type HookState } from './support/workstation-page.js';

const missing = missingForPage();
const skip = missing.length > 0 && !process.env.CI;

const START = 3_000_000_000;
const MIN = 60e9;
const THREADS = 2;
const PER_SECOND = 5;

/** Minutes [from, to) of samples on 2 threads, 5 a second each, under the phase's own method; a GC pause each minute. */
function minutes(enc: WireEncoder, from: number, to: number, stackOf: (minute: number) => number): number {
  let n = 0;
  for (let m = from; m < to; m++) {
    for (let tick = 0; tick < 60 * PER_SECOND; tick++) {
      const mono = START + m * MIN + tick * (1e9 / PER_SECOND);
      for (let t = 1; t <= THREADS; t++) {
        enc.stackSample(mono + t, t, SampleFlags.Cpu | SampleFlags.Wall, 150_000_000, 200_000_000, stackOf(m));
        n++;
      }
    }
    enc.suspension({ mono: START + m * MIN + 30e9, durationNs: 2_000_000 + m, suspendNs: 10_000, reason: 1, generation: m % 3, flags: 0 });
  }
  return n;
}

/** Old.Work for minutes 0-5, Mid.Work for 6-11 (part one), New.Work for 12-17 (part two), all under App.Main. */
function phasedStream(): { first: Uint8Array; second: Uint8Array; samples: number } {
  const enc = new WireEncoder(1 << 20).preamble().hello({
    pid: 4321, flags: 3, mono: START, unixNs: 1_760_000_000_000_000_000n, intervalNs: 200_000_000, wallThreadsPerTick: THREADS, runtimeVersion: '10.0.0', profilerVersion: 'test',
  });
  for (let t = 1; t <= THREADS; t++) enc.thread({ threadId: t, osTid: 100 + t, clrThreadId: t, mono: START, name: `worker-${t}` });
  ['App.Main', 'Old.Work', 'Mid.Work', 'New.Work'].forEach((name, i) => {
    enc.function({ functionId: i + 1, kind: FunctionKind.Managed, name, module: 'App.dll', file: '' });
    enc.frame({ frameId: i + 1, functionId: i + 1, offsetKind: 0, offset: 0 });
    if (i > 0) enc.stack(i, 0, Uint32Array.from([i + 1, 1]));
  });
  const phase = (m: number): number => (m < 6 ? 1 : m < 12 ? 2 : 3);
  let samples = minutes(enc, 0, 12, phase);
  const first = enc.bytes().slice();
  samples += minutes(enc, 12, 18, phase);
  enc.end({ mono: START + 18 * MIN, reason: 0 });
  const all = enc.bytes().slice();
  return { first, second: all.subarray(first.length), samples };
}

type KeptSummary = Omit<NonNullable<HookState['summary']>, 'pauses'> & { keepMinutes: number | null; keptFromMs: number | null; pauses: { startNs: number }[] };
const summaryOf = (s: HookState): KeptSummary | null => s.summary as KeptSummary | null;

async function frames(page: Page): Promise<Set<string>> {
  return new Set((await flameNodes(page)).map((n) => n.label));
}

describe('a session that keeps its last 5 minutes in the views, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false, timeout: 180000 }, () => {
  let dir: string;
  let workstation: WorkstationService;
  let server: BrowserMode;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the kept-window test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-kept-window-'));
    const spool = join(dir, 'spool');
    mkdirSync(spool);
    chmodSync(spool, 0o700);
    // Any existing file stands in for the profiler library: Node does not load it.
    workstation = createWorkstationService({ spoolDir: spool, libraryPath: process.execPath, listProcesses: async () => [], exportsDir: join(dir, 'exports') });
    server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    ({ browser, page, errors: pageErrors } = await openPage());
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await workstation?.shutdown();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('says so, drops the old minutes from every view as new ones come, and keeps all of it for the export', async () => {
    const { first, second, samples } = phasedStream();
    const go = join(dir, 'go');
    writeFileSync(join(dir, 'first.bin'), first);
    writeFileSync(join(dir, 'second.bin'), second);
    writeFileSync(join(dir, 'program.mjs'), STREAM_PLAYER_PROGRAM);

    await page.goto(`${server.url}&test`);
    await hookReady(page);
    // Launched from the page, with the window set in the start screen.
    await page.getByTestId('launch-open').click();
    await page.getByTestId('keep-window-on').check();
    await page.getByTestId('keep-window-minutes').fill('5');
    await page.getByTestId('launch-command').fill(process.execPath);
    await page.getByTestId('launch-args').fill([join(dir, 'program.mjs'), join(dir, 'first.bin'), join(dir, 'second.bin'), go].join(' '));
    await page.getByTestId('launch-submit').click();

    // Part one: 12 minutes; the page keeps 5 to 5.5 of them, so Old.Work (minutes 0-5) is gone.
    const one = await until('part one in the page, its oldest minutes let go', () => appState(page),
      (s) => s.streamBytes === first.length && (summaryOf(s)?.keptFromMs ?? 0) > 6 * 60_000, 60000);
    const id = one.selectedSessionId as string;
    assert.equal((one.sessions.find((s) => s.id === id) as { keepMinutes?: number }).keepMinutes, 5);
    await assert.doesNotReject(page.getByTestId('kept-window').filter({ hasText: 'last 5 min kept' }).waitFor({ timeout: 10000 }));
    const s1 = summaryOf(one) as KeptSummary;
    assert.equal(s1.keepMinutes, 5);
    const keptSpan = s1.durationMs - (s1.keptFromMs as number);
    assert.ok(keptSpan >= 5 * 60_000 && keptSpan <= 5.5 * 60_000 + 1000, `${keptSpan} ms kept`);
    // Two threads, 5 samples a second each, over what is kept.
    assert.ok(Math.abs(s1.sampleCount - (keptSpan / 1000) * THREADS * PER_SECOND) <= THREADS * 2, `${s1.sampleCount} samples`);
    const f1 = await until('the flame graph of the kept part', () => frames(page), (f) => f.has('Mid.Work') && !f.has('Old.Work'));
    assert.ok(f1.has('App.Main'));
    assert.ok(s1.pauses.every((p) => p.startNs / 1e6 >= (s1.keptFromMs as number)) && s1.pauses.length >= 5 && s1.pauses.length <= 6, `${s1.pauses.length} pauses`);
    await page.getByTestId('status-kept').filter({ hasText: 'kept from' }).waitFor({ timeout: 10000 });
    // The functions table shows the kept part too.
    await page.getByTestId('tab-functions').click();
    await page.getByText('Mid.Work').first().waitFor({ timeout: 20000 });
    assert.equal(await page.getByText('Old.Work').count(), 0);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'kept-window.png') });

    // Part two: 6 more minutes of New.Work; Mid.Work (minutes 6-11) leaves the views live.
    await page.getByTestId('tab-flame').click();
    writeFileSync(go, '');
    const two = await until('part two: the session stopped, Mid.Work gone', () => appState(page),
      (s) => s.streamBytes === first.length + second.length && s.sessions.some((x) => x.id === id && x.state === 'stopped') && (summaryOf(s)?.keptFromMs ?? 0) > 12 * 60_000, 60000);
    const f2 = await until('the flame graph of the newest minutes', () => frames(page), (f) => f.has('New.Work') && !f.has('Mid.Work') && !f.has('Old.Work'));
    assert.ok(f2.has('App.Main'));
    const s2 = summaryOf(two) as KeptSummary;
    assert.ok(s2.pauses.every((p) => p.startNs / 1e6 >= (s2.keptFromMs as number)));

    // The whole recording again, on the stopped session: the page reads the stream anew.
    await page.getByTestId('keep-window-select').selectOption('');
    const all = await until('the whole recording in the views', () => appState(page),
      (s) => summaryOf(s)?.keepMinutes === null && s.summary?.sampleCount === samples && s.streamBytes === first.length + second.length, 60000);
    assert.equal(summaryOf(all)?.keptFromMs, null);
    assert.equal(await page.getByTestId('kept-window').count(), 0);
    await until('every phase in the flame graph', () => frames(page), (f) => f.has('Old.Work') && f.has('Mid.Work') && f.has('New.Work'));
    assert.equal(summaryOf(all)?.pauses.length, 18);

    // Narrowed again; the export writes every sample either way (it reads the spool file).
    await page.getByTestId('keep-window-select').selectOption('1');
    await until('one minute kept', () => appState(page), (s) => summaryOf(s)?.keepMinutes === 1 && (summaryOf(s)?.keptFromMs ?? 0) > 16 * 60_000, 60000);
    const out = await workstation.exportRecording({ sessionId: id, format: 'clrscope', path: join(dir, 'all.clrscope') });
    const exported = await readRecordingFile(out.path);
    assert.equal(exported.recording.sampleCount, samples);
    assert.equal(exported.recording.suspensions().length, 18);
    assert.deepEqual(pageErrors, []);
  });
});
