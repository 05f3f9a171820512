// The workstation's export menu and "Open recording…", end to end: browser mode started
// in-process, its page in Debian's Chromium (playwright-core), a real .NET target recorded
// through the UI (GcLoad, for its GC pauses and counters). Its .clrscope, .speedscope.json and
// .nettrace exports are checked by readers that are not the writers' own code paths (speedscope's
// schema, our NettraceReader, TraceEvent through test/tools/TraceCheck); the .clrscope is
// opened again through the UI and must show the live session's flame graph, GC pauses and
// counters; a dotnet-trace file opens with CpuWork.Heavy on top and its CPU marked approximate;
// a truncated file is one sentence in the error bar. Screenshots go to
// test-artifacts/workstation-files/ and are checked not to be blank.
//
// Without its prerequisites (Chromium, the built renderer, the profiler, the targets, dotnet) the
// suite is skipped with a message saying what is missing, except under CI, where that is a failure.
// TraceCheck alone does not skip the suite: without it the .nettrace is checked by our own reader
// only, which CI (whose setup builds TraceCheck) does not accept.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { NettraceReader } from '../../structs/formats/nettrace/index.js';
import { speedscopeSchemaProblems } from '../../structs/formats/speedscope/schema-check.js';
import { eventMetricsPresent, sumEventsByStack } from '../../structs/profile/event-metrics.js';
import { PROFILER, ROOT } from './support/paths.js';
import { TRACE_CHECK, traceCheck, traceCheckBuilt } from './support/trace-check.js';
import {
  appState, checkedScreenshot, flameNodes, hookReady, missingForPage, until, widestBesidesCallers, type HookNode, type HookSession,
} from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'workstation-files');
const HEAVY = 'Clrscope.Targets.Scenarios.CpuWork.Heavy';
const DOTNET_TRACE_FIXTURE = join(ROOT, 'structs', 'formats', 'nettrace', 'fixtures', 'dotnet-trace-cpu-ratio.nettrace.gz');
const dll = (name: string): string => join(ROOT, 'test', 'targets', name, 'bin', 'out', `${name}.dll`);

function missingPrerequisites(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  if (!existsSync(dll('GcLoad'))) missing.push('GcLoad.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  if (process.env.CI && !traceCheckBuilt()) missing.push(`TraceCheck (${TRACE_CHECK}: bash scripts/build-targets.sh)`);
  return missing;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-files: SKIPPED, missing: ${missing.join('; ')}\n`);

const shot = (page: Page, name: string, minColors?: number): Promise<string> => checkedScreenshot(page, name, { dir: ARTIFACTS, minColors });

/** The flame graph as its frames and their totals, in the order the worker built it. */
const treeText = (nodes: readonly HookNode[]): string[] => nodes.map((n) => `${'  '.repeat(n.depth)}${n.label} ${n.total}`);

/** The root's widest child: the widest frame of the graph. */
function widestFrame(nodes: readonly HookNode[]): HookNode {
  const top = nodes.filter((n) => n.depth === 1);
  assert.ok(top.length > 0, 'the flame graph has frames');
  return top.reduce((a, b) => (b.total > a.total ? b : a));
}

describe('the workstation exports every format and opens recording files, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let server: BrowserMode;
  let page: Page;
  let dir: string;
  let pageErrors: string[] = [];
  let liveId = '';
  const live = { sampleCount: 0, tree: [] as string[], widest: '', widestTotal: 0, gcPauses: 0, counterPoints: 0 };
  const exported: Record<string, string> = {};

  const session = async (id: string): Promise<HookSession | undefined> => (await appState(page)).sessions.find((s) => s.id === id);

  /** Types the path into "Open recording…" and waits for the new session to be shown, or for an error. */
  async function openThroughUi(path: string): Promise<{ id: string | null; error: string | null }> {
    const before = (await appState(page)).sessions.length;
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(path);
    await page.getByTestId('open-submit').click();
    const state = await until(`${path} to open`, () => appState(page), (s) => s.opening === null && (s.error !== null || s.sessions.length > before), 60000);
    if (state.error !== null) return { id: null, error: state.error };
    return { id: state.selectedSessionId, error: null };
  }

  /** Waits until the worker has decoded the whole stream of the selected (stopped) session. */
  async function wholeRecording(sampleCount?: number): Promise<void> {
    await until('the whole recording in the worker', () => appState(page), (s) => s.summary !== null && s.summary.ended && (sampleCount === undefined || s.summary.sampleCount === sampleCount), 30000);
  }

  async function gcPauseCount(): Promise<number> {
    await page.getByTestId('tab-gc').click();
    const count = page.getByTestId('gc-count-gc');
    await until('the pause table', () => count.count(), (n) => n > 0, 10000);
    return Number(await count.innerText());
  }

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the workstation-files test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-files-e2e-'));
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), countersIntervalMs: 200 });
    ({ server, page, errors: pageErrors } = ui);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('records GcLoad through the UI until it ends', { timeout: 90000 }, async () => {
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-command').fill('dotnet');
    await page.getByTestId('launch-args').fill(`${dll('GcLoad')} --gen0 20 --gen1 3 --gen2 2 --allocate-mb 100 --exceptions 50 --duration 3`);
    await page.getByTestId('launch-interval').fill('5');
    await page.getByTestId('launch-submit').click();
    const started = await until('the flame graph tab', () => appState(page), (s) => s.tab === 'flame' && s.selectedSessionId !== null);
    liveId = started.selectedSessionId ?? '';
    const ended = await until('GcLoad to end', () => session(liveId), (s) => s?.state === 'stopped' || s?.state === 'failed', 60000);
    assert.equal(ended?.state, 'stopped', ended?.message ?? '');
    assert.equal(ended?.source, 'launch');
    assert.equal(ended?.approximateCpu, false);
    await wholeRecording();

    const state = await appState(page);
    live.sampleCount = state.summary?.sampleCount ?? 0;
    assert.ok(live.sampleCount > 100, `${live.sampleCount} samples`);
    const nodes = await until('the flame graph', () => flameNodes(page), (n) => n.length > 3 && n[0].total > 0);
    live.tree = treeText(nodes);
    const widest = widestFrame(nodes);
    live.widest = widest.label;
    live.widestTotal = widest.total;
    live.gcPauses = await gcPauseCount();
    assert.ok(live.gcPauses >= 20, `${live.gcPauses} GC pauses (GcLoad induces 25 or more)`);
    await shot(page, '1-live-gc');
    await page.getByTestId('tab-counters').click();
    await until('counters', () => page.evaluate(() => (globalThis as unknown as { __clrscopeTest: { counterPoints(): number } }).__clrscopeTest.counterPoints()), (n) => n > 0);
    live.counterPoints = await page.evaluate(() => (globalThis as unknown as { __clrscopeTest: { counterPoints(): number } }).__clrscopeTest.counterPoints());
  });

  it('lists every export format with what it keeps, and exports .clrscope, .speedscope.json and .nettrace', { timeout: 120000 }, async () => {
    await page.getByTestId('tab-export').click();
    for (const f of ['pprof', 'clrscope', 'speedscope', 'nettrace', 'etlx']) assert.equal(await page.getByTestId(`export-${f}`).count(), 1, `a button for ${f}`);
    assert.match(await page.getByTestId('export-note-clrscope').innerText(), /Everything/);
    assert.match(await page.getByTestId('export-note-speedscope').innerText(), /GC pauses and counters are left out/);
    assert.match(await page.getByTestId('export-note-nettrace').innerText(), /sample-profiler events.*GC events.*no counters/);

    for (const format of ['clrscope', 'speedscope', 'nettrace']) {
      await page.getByTestId(`export-${format}`).click();
      const state = await until(`the ${format} export`, () => appState(page), (s) => {
        const e = s.exports[liveId];
        return e !== undefined && e.format === format && (e.state === 'done' || e.state === 'failed');
      }, 60000);
      const status = state.exports[liveId];
      assert.equal(status.state, 'done', status.message ?? '');
      assert.equal(await page.getByTestId('export-path').innerText(), status.path);
      exported[format] = status.path ?? '';
      assert.ok(existsSync(exported[format]), exported[format]);
    }
    await shot(page, '2-export');

    assert.match(exported.speedscope, /\.speedscope\.json$/);
    assert.deepEqual(speedscopeSchemaProblems(JSON.parse(readFileSync(exported.speedscope, 'utf8'))), []);

    const reader = new NettraceReader();
    reader.push(readFileSync(exported.nettrace));
    assert.equal(reader.finish().sampleCount, live.sampleCount, 'our nettrace reader reads back every sample');
    if (traceCheckBuilt()) {
      assert.equal(traceCheck(exported.nettrace).samples, live.sampleCount, 'TraceEvent reads back every sample');
    } else {
      process.stderr.write('workstation-files: test/tools/TraceCheck is not built; the .nettrace is checked by our own reader only\n');
    }

    const saved = await readRecordingFile(exported.clrscope);
    assert.equal(saved.recording.sampleCount, live.sampleCount);
    assert.ok(saved.counters.length >= live.counterPoints, `${saved.counters.length} counters points saved, ${live.counterPoints} shown live`);
  });

  it('offers the recording\'s event types beside CPU and wall, and draws the exceptions per stack', { timeout: 60000 }, async () => {
    const saved = (await readRecordingFile(exported.clrscope)).recording;
    const present = eventMetricsPresent(saved);
    assert.ok(present.includes('exceptions'), `event types in the recording: ${present.join(', ')}`);
    await page.getByTestId('tab-flame').click();
    const select = page.getByTestId('metric-events');
    await until('the event type selector', () => select.count(), (n) => n > 0, 10000);
    const offered = await select.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value).filter((v) => v !== ''));
    assert.deepEqual(offered, present);
    await select.selectOption('exceptions');
    const thrown = sumEventsByStack(saved, 'exceptions').sums.reduce((a, b) => a + b, 0);
    assert.ok(thrown >= 50, `${thrown} exceptions with stacks; GcLoad threw 50`);
    await until('the exceptions flame graph', () => flameNodes(page), (n) => n.length > 1 && n[0].total === thrown);
    assert.match(await page.getByTestId('flame-caption').innerText(), new RegExp(`^Exceptions: ${thrown} in [\\d,]+ events`));
    await shot(page, '2b-exceptions-flame');
    await page.getByTestId('metric-cpu').click();
    await until('the CPU flame graph again', () => appState(page), (st) => st.flameOptions.metric === 'cpu');
  });

  it('opens the exported .clrscope through the UI with the live session\'s flame graph, GC pauses and counters', { timeout: 90000 }, async () => {
    const opened = await openThroughUi(exported.clrscope);
    assert.equal(opened.error, null);
    assert.ok(opened.id !== null && opened.id !== liveId);
    const info = await session(opened.id ?? '');
    assert.equal(info?.source, 'file');
    assert.equal(info?.state, 'stopped');
    assert.equal(info?.pid, null);
    assert.equal(info?.approximateCpu, false);
    assert.equal(info?.label, exported.clrscope.slice(exported.clrscope.lastIndexOf('/') + 1));
    assert.equal((await appState(page)).tab, 'flame');
    assert.equal(await page.getByTestId('session-source').innerText(), 'file');
    assert.equal(await page.getByTestId('session-approximate-cpu').count(), 0);
    await wholeRecording(live.sampleCount);

    const nodes = await until('the opened flame graph', () => flameNodes(page), (n) => n.length > 3 && n[0].total > 0);
    const widest = widestFrame(nodes);
    assert.equal(widest.label, live.widest, 'the widest frame');
    assert.equal(widest.total, live.widestTotal);
    assert.deepEqual(treeText(nodes), live.tree, 'the whole flame graph');
    await shot(page, '3-opened-flame');

    assert.equal(await gcPauseCount(), live.gcPauses, 'the GC pause count');
    await shot(page, '4-opened-gc');

    await page.getByTestId('tab-counters').click();
    const points = await until('the saved counters', () => page.evaluate(() => (globalThis as unknown as { __clrscopeTest: { counterPoints(): number } }).__clrscopeTest.counterPoints()), (n) => n > 0);
    assert.ok(points >= live.counterPoints, `${points} points from the file, ${live.counterPoints} live`);
    assert.ok(Number(await page.getByTestId('counter-gen0').getAttribute('data-value')) >= 20, 'the gen0 count at the end of the recording');
    await shot(page, '5-opened-counters');
  });

  it('opens a dotnet-trace .nettrace: Heavy is the widest frame under its thread, and the CPU is marked approximate', { timeout: 60000 }, async () => {
    const path = join(dir, 'dotnet-trace-cpu-ratio.nettrace');
    writeFileSync(path, gunzipSync(readFileSync(DOTNET_TRACE_FIXTURE)));
    const opened = await openThroughUi(path);
    assert.equal(opened.error, null);
    const info = await session(opened.id ?? '');
    assert.equal(info?.approximateCpu, true);
    assert.equal(info?.label, 'dotnet-trace-cpu-ratio.nettrace');
    const badge = page.getByTestId('session-approximate-cpu');
    assert.ok(await badge.isVisible(), 'the approximate-CPU badge is shown');
    assert.match(await badge.innerText(), /CPU estimated/i);
    assert.match(await badge.getAttribute('title') ?? '', /estimates/);
    await wholeRecording();

    await page.getByTestId('group-by-thread').check();
    const nodes = await until('Heavy under a thread', () => flameNodes(page), (n) => n.some((x) => x.label === HEAVY) && n.some((x) => x.depth === 1));
    // The thread that spent the most in Heavy (cpu-ratio's burn-heavy; the file has no thread names).
    const heavy = nodes.filter((n) => n.label === HEAVY).reduce((a, b) => (b.total > a.total ? b : a));
    let thread = heavy;
    while (thread.depth > 1) thread = nodes[thread.parent];
    const widest = widestBesidesCallers(nodes, thread.index, HEAVY);
    assert.equal(widest?.label, HEAVY, `the widest frame under ${thread.label}: ${widest?.label}`);
    await shot(page, '6-nettrace-flame');
    await page.getByTestId('group-by-thread').uncheck();
  });

  it('opens a recording by its content whatever its name ends in', { timeout: 60000 }, async () => {
    const renamed = join(dir, 'saved-run.data');
    writeFileSync(renamed, readFileSync(exported.clrscope));
    const opened = await openThroughUi(renamed);
    assert.equal(opened.error, null);
    const info = await session(opened.id ?? '');
    assert.equal(info?.source, 'file');
    assert.equal(info?.label, 'saved-run.data');
    await wholeRecording(live.sampleCount);
    const nodes = await until('the renamed file\'s flame graph', () => flameNodes(page), (n) => n.length > 3 && n[0].total > 0);
    assert.deepEqual(treeText(nodes), live.tree, 'the same flame graph as the live session');

    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'not a recording\n');
    const refused = await openThroughUi(notes);
    assert.equal(refused.id, null);
    assert.match(refused.error ?? '', /^The file "notes\.txt" is not a recording clrscope reads: its content is none of the formats it knows and its name does not end in \.clrscope, .* or \.pprof\.$/);
    await page.getByTestId('error-banner').getByRole('button').click();
  });

  it('says in one sentence why a truncated file or a relative path cannot be opened', { timeout: 60000 }, async () => {
    const whole = readFileSync(exported.clrscope);
    const cut = join(dir, 'truncated.clrscope');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const sessionsBefore = (await appState(page)).sessions.length;

    const failed = await openThroughUi(cut);
    assert.equal(failed.id, null);
    assert.match(failed.error ?? '', /^Cannot read \/\S*truncated\.clrscope: the clrscope file is truncated: it ends at byte \d+, inside the record that starts at byte \d+\.$/);
    assert.equal(await page.getByTestId('error-text').innerText(), failed.error);
    assert.equal((await appState(page)).sessions.length, sessionsBefore, 'no session for a file that could not be read');
    await shot(page, '7-open-error');

    await page.getByTestId('error-banner').getByRole('button').click();
    const relative = await openThroughUi('traces/app.nettrace');
    assert.equal(relative.error, 'The recording path must be an absolute path, not "traces/app.nettrace".');
    assert.deepEqual(pageErrors, [], 'no errors in the page');
  });
});
