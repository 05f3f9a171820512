// The GC timeline links a pause to the allocations before it (issue 12, "GC CPU"), in Chromium:
// a real program recorded with allocation sampling on is opened through "Open recording…"; a
// CPU flame graph has the collections' [GC] frame under the allocating method; a
// click on a GC pause offers "Allocations before it", which shows the flame graph of allocated
// bytes from the previous GC's end to that pause's start. The window is checked against the
// pause list and the flame graph's total against the recording's own allocation events in it.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { eventMetricInfo, eventSelector } from '../../structs/profile/event-metrics.js';
import { pauseEntries, type PauseEntry } from '../../structs/profile/pause-summary.js';
import type { Recording } from '../../structs/profile/recording.js';
import { PROFILER, ROOT } from './support/paths.js';
import { recordTarget } from './support/record-target.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, checkedScreenshot, flameNodes, hookReady, missingForPage, until, type HookNode } from './support/workstation-page.js';

const scenarios = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = missingForPage();
if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
if (!existsSync(scenarios)) missing.push('Scenarios.dll (npm run build:targets)');
const skip = missing.length > 0 && !process.env.CI;

/** Allocated bytes of the recording's allocation events with mono in [fromMs, toMs] of the recording. */
function allocatedBetween(rec: Recording, fromMs: number, toMs: number, open: boolean): number {
  const info = eventMetricInfo('alloc-space');
  const e = rec.events();
  const selected = eventSelector(rec, info);
  const lo = (rec.meta?.startMono ?? 0) + fromMs * 1e6;
  const hi = (rec.meta?.startMono ?? 0) + toMs * 1e6;
  let sum = 0;
  for (let i = 0; i < e.kind.length; i++) {
    if (!selected(i) || e.stackId[i] < 0) continue;
    const inside = open ? e.mono[i] > lo && e.mono[i] < hi : e.mono[i] >= lo && e.mono[i] <= hi;
    if (inside) sum += info.value(e.value1[i], e.value2[i]);
  }
  return sum;
}

describe('the GC timeline offers the allocations before a pause, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let page: Page;
  let dir: string;
  let rec: Recording;
  let file: string;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-alloc-'));
    // Blocking workstation GCs with a small gen0: many pauses, each after a few MB of allocations.
    const env = { ...process.env, CLRSCOPE_ALLOC: '1', DOTNET_gcServer: '0', DOTNET_gcConcurrent: '0', DOTNET_GCgen0size: '0x400000' };
    rec = (await recordTarget(scenarios, ['gc-churn', '--seconds', '2'], { env })).rec;
    file = join(dir, 'churn.clrscope');
    writeFileSync(file, saveRecording(rec));
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports') });
    page = ui.page;
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('sets the flame graph to allocated bytes from the previous GC\'s end to the clicked pause', { timeout: 90000 }, async (t) => {
    const gcPauses = pauseEntries(rec.suspensions(), (rec.meta?.startMono ?? 0)).filter((p) => p.generation !== null);
    assert.ok(gcPauses.length >= 5, `${gcPauses.length} GC pauses`);
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
    await until('the recording, whole', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount === rec.sampleCount, 60000);
    // The CPU flame graph shows what the collections cost, under the allocating method.
    await page.getByTestId('tab-flame').click();
    const cpu = await until('the CPU flame graph', () => flameNodes(page), (n) => n.length > 1 && n[0].total > 0, 20000);
    const gcNodes = cpu.filter((n) => n.label === '[GC]');
    assert.ok(gcNodes.length > 0, 'a [GC] frame in the CPU flame graph');
    assert.ok(gcNodes.every((n) => cpu[n.parent]?.label.endsWith('ChurnWork.Churn')), `[GC] under: ${gcNodes.map((n) => cpu[n.parent]?.label).join(', ')}`);
    await page.getByTestId('tab-gc').click();
    const state = await appState(page);
    const pauses = state.summary?.pauses as PauseEntry[];
    const durationMs = state.summary?.durationMs ?? 0;
    // A GC pause in the middle of the recording, clicked where the canvas draws it.
    const target = gcPauses[Math.floor(gcPauses.length / 2)];
    const canvas = page.getByTestId('gc-timeline');
    const box = await canvas.boundingBox();
    assert.ok(box !== null);
    let spanMs = durationMs;
    for (const p of pauses) spanMs = Math.max(spanMs, (p.startNs + p.durationNs) / 1e6);
    const x = box.x + 8 + ((target.startNs + target.durationNs / 2) / 1e6 / spanMs) * (box.width - 16);
    await page.mouse.click(x, box.y + box.height - 24);
    const button = page.getByTestId('gc-pause-allocations');
    await until('the pause picked', () => button.count(), (n) => n === 1, 10000);
    await checkedScreenshot(page, 'gc-pause-picked', { dir: join(dir, 'shots') });
    await button.click();
    const after = await until('the allocations window', () => appState(page), (s) => s.tab === 'flame' && s.flameOptions.metric === 'alloc-space' && s.flameOptions.window.kind === 'range');
    const w = after.flameOptions.window as { fromMs: number; toMs: number };
    // The pause picked (the nearest to the click; neighbours may lie within a pixel) starts where
    // the window ends, and the window starts at the end of the last GC pause before it.
    const picked = gcPauses.find((p) => Math.abs(p.startNs / 1e6 - w.toMs) < 1e-6);
    assert.ok(picked !== undefined, `the window ends at a GC pause's start: ${JSON.stringify(w)}`);
    const previous = gcPauses.filter((p) => p.startNs + p.durationNs <= picked.startNs).reduce((a, p) => Math.max(a, p.startNs + p.durationNs), 0);
    assert.ok(Math.abs(w.fromMs - previous / 1e6) < 1e-6, `window from ${w.fromMs} ms, previous GC ended at ${previous / 1e6} ms`);
    const inner = allocatedBetween(rec, w.fromMs, w.toMs, true);
    const outer = allocatedBetween(rec, w.fromMs, w.toMs, false);
    assert.ok(inner > 0, 'allocations before the pause');
    // The tree shown until the worker answers the new query is the CPU one (its total in ns): wait
    // for the window's, which must come within the bounds.
    const inBounds = (n: HookNode[]): boolean => n.length > 1 && n[0].total >= inner - 1 && n[0].total <= outer + 1;
    const nodes = await until(`the allocations flame graph of ${inner}..${outer} bytes`, () => flameNodes(page), inBounds, 20000);
    t.diagnostic(`window ${w.fromMs.toFixed(1)}–${w.toMs.toFixed(1)} ms: flame total ${nodes[0].total} bytes; the recording's events there: ${inner}–${outer}`);
    assert.ok(nodes.some((n) => n.label.includes('ChurnWork.Churn')), 'the allocating method is in it');
  });
});
