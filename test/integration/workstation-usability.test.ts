// The workstation as a PerfView or dotTrace user meets it (issue 30), in Chromium: the header's
// selects show their whole text; long .NET names in Functions stay apart, read whole on hover and
// in the details line, and the name column drags wider; a search and a selected function do not
// carry over to another recording; Launch offers allocations (and Attach, locks and exceptions),
// and a program launched with it fills the Types view; a clicked GC pause says which collection
// it was, as the GC table (structs/analysis/gc-stats.ts, `report --gcs`) has it, and that table
// is a view beside the timeline.
// The real recording is Scenarios' gc-churn with allocation sampling on.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { recordingGcStats } from '../../structs/analysis/gc-stats.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { pauseEntries, type PauseEntry } from '../../structs/profile/pause-summary.js';
import type { Recording } from '../../structs/profile/recording.js';
import { PROFILER, ROOT } from './support/paths.js';
import { recordTarget } from './support/record-target.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, hookReady, missingForPage, until } from './support/workstation-page.js';

const scenarios = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');
const missing = missingForPage();
if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
if (!existsSync(scenarios)) missing.push('Scenarios.dll (npm run build:targets)');
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-usability: SKIPPED, missing: ${missing.join('; ')}\n`);

// Methods of generic types that differ only where a cut at either end hides it, as the
// recording names them (no parameter lists, no space after a comma).
const LONG_NAMES = [
  'Microsoft.EntityFrameworkCore.ChangeTracking.Internal.StateManager.GetOrCreateEntry<System.Collections.Immutable.ImmutableDictionary<System.Int32,System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>,Microsoft.EntityFrameworkCore.WarningBehavior>>>',
  'Microsoft.EntityFrameworkCore.ChangeTracking.Internal.StateManager.GetOrCreateEntry<System.Collections.Immutable.ImmutableDictionary<System.String,System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>,Microsoft.EntityFrameworkCore.WarningBehavior>>>',
  'Microsoft.EntityFrameworkCore.ChangeTracking.Internal.StateManager.GetOrCreateEntry<System.Collections.Generic.Dictionary<System.Int32,System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>,Microsoft.EntityFrameworkCore.WarningBehavior>>>',
  'Microsoft.EntityFrameworkCore.ChangeTracking.Internal.StateManager.GetOrCreateEntry<System.Collections.Generic.KeyValuePair<System.Int32,System.ValueTuple<System.Nullable<Microsoft.Extensions.Logging.LogLevel>,Microsoft.EntityFrameworkCore.WarningBehavior>>>',
  'MyCompany.Orders.Services.OrderService+<PlaceOrderAsync>d__12.MoveNext',
];

function speedscope(name: string, frames: readonly string[]): string {
  return JSON.stringify({
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    name,
    exporter: 'workstation-usability.test',
    activeProfileIndex: 0,
    shared: { frames: [{ name: 'Main' }, ...frames.map((f) => ({ name: f }))] },
    profiles: [{ type: 'sampled', name: 'main', unit: 'milliseconds', startValue: 0, endValue: 100, samples: frames.map((_, i) => [0, i + 1]), weights: frames.map((_, i) => 10 + i) }],
  });
}

/** How much wider the select's text is than the room it has (0 when it fits), for the select with this test id. */
function selectOverflow(page: Page, testId: string): Promise<{ text: string; overflow: number }> {
  // Run in the page (a string: this file is compiled without the DOM's types).
  return page.evaluate(`(() => {
    const select = document.querySelector('[data-testid="${testId}"]');
    if (select === null) throw new Error('no ${testId}');
    const text = select.options[select.selectedIndex]?.text ?? '';
    const ctx = document.createElement('canvas').getContext('2d');
    const style = getComputedStyle(select);
    ctx.font = style.fontSize + ' ' + style.fontFamily;
    // The room for the text: the select's inner width less its padding and the arrow (about 20 px).
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    return { text, overflow: Math.max(0, ctx.measureText(text).width - room) };
  })()`);
}

describe('the workstation as a new user meets it, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let page: Page;
  let dir: string;
  let rec: Recording;
  let churnFile: string;

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-usability-'));
    const env = { ...process.env, CLRSCOPE_ALLOC: '1', DOTNET_gcServer: '0', DOTNET_gcConcurrent: '0', DOTNET_GCgen0size: '0x400000' };
    rec = (await recordTarget(scenarios, ['gc-churn', '--seconds', '2'], { env })).rec;
    churnFile = join(dir, 'an-order-service-recorded-under-load-in-the-staging-environment.clrscope');
    writeFileSync(churnFile, saveRecording(rec));
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports') });
    page = ui.page;
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string, check: (s: Awaited<ReturnType<typeof appState>>) => boolean): Promise<void> {
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    await page.getByTestId('open-submit').click();
    await until(`${file} open`, () => appState(page), (s) => s.summary !== null && s.summary.ended && check(s), 60000);
  }

  it('shows the header\'s selects whole: the recording and what the views keep', { timeout: 90000 }, async () => {
    await open(churnFile, (s) => s.summary?.sampleCount === rec.sampleCount);
    for (const id of ['session-select', 'keep-window-select']) {
      const { text, overflow } = await selectOverflow(page, id);
      assert.ok(text.length > 10, `${id} shows "${text}"`);
      assert.equal(overflow, 0, `${id}'s text "${text}" is cut by ${overflow.toFixed(0)} px`);
    }
  });

  it('keeps long .NET names apart in Functions, whole on hover and in the details line; the column drags wider', { timeout: 60000 }, async () => {
    const file = join(dir, 'long-names.speedscope.json');
    writeFileSync(file, speedscope('long names', LONG_NAMES));
    await open(file, (s) => s.summary?.sampleCount !== rec.sampleCount);
    await page.getByTestId('tab-functions').click();
    const names = page.locator('[data-testid="functions-table"] [role="row"][data-row] [data-name]');
    await until('every function in the table', () => names.count(), (n) => n === LONG_NAMES.length + 1);
    const rows = await names.evaluateAll((els) => els.map((e) => ({ shown: e.textContent ?? '', whole: e.getAttribute('data-name') ?? '', title: e.getAttribute('title'), fits: e.parentElement === null ? false : e.parentElement.scrollWidth <= e.parentElement.clientWidth })));
    const long = rows.filter((r) => LONG_NAMES.includes(r.whole));
    assert.equal(long.length, LONG_NAMES.length, rows.map((r) => r.whole).join('\n'));
    assert.equal(new Set(long.map((r) => r.shown)).size, LONG_NAMES.length, `shown alike:\n${long.map((r) => r.shown).join('\n')}`);
    for (const r of long) {
      assert.ok(r.fits, `"${r.shown}" overflows its cell`);
      if (r.shown !== r.whole) assert.equal(r.title, r.whole, 'the whole name on hover');
    }
    assert.ok(long.some((r) => r.shown.includes('<PlaceOrderAsync>')), 'the async method\'s name stays');
    // The details line: the selected function's whole name.
    await page.locator('[data-testid="functions-table"] [role="row"][data-row]').filter({ has: page.locator(`[data-name="${LONG_NAMES[1]}"]`) }).click();
    await until('the whole name in the details line', () => page.getByTestId('functions-details').innerText(), (t) => t.includes(LONG_NAMES[1]));
    // Dragging the name column's edge widens it.
    const header = page.locator('[data-testid="functions-table"] [role="columnheader"][data-column="name"]');
    const widthBefore = (await header.boundingBox())?.width ?? 0;
    const handle = await page.getByTestId('functions-table-resize-name').boundingBox();
    assert.ok(handle !== null);
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + 150, handle.y + handle.height / 2, { steps: 5 });
    await page.mouse.up();
    const widened = (await header.boundingBox())?.width ?? 0;
    assert.ok(widened >= widthBefore + 120, `the name column went from ${widthBefore} to ${widened} px`);
  });

  it('forgets the search and the selected function when another recording opens', { timeout: 60000 }, async () => {
    await page.getByTestId('flame-search').fill('NothingCalledThis');
    await until('no function matches', () => page.getByTestId('functions-table').getAttribute('data-rows'), (n) => n === '0');
    await open(churnFile, (s) => s.summary?.sampleCount === rec.sampleCount);
    const state = await appState(page) as unknown as { flameOptions: { search: string }; selectedFunction?: string | null };
    assert.equal(state.flameOptions.search, '');
    await page.getByTestId('tab-functions').click();
    await until('the new recording\'s functions', () => page.getByTestId('functions-table').getAttribute('data-rows'), (n) => Number(n) > 3);
    assert.match(await page.getByTestId('functions-details').innerText(), /Select a row/);
    assert.equal(await page.getByTestId('flame-search').inputValue(), '');
  });

  it('says which collection a clicked GC pause was, as the GC table has it, and shows that table beside the timeline', { timeout: 60000 }, async () => {
    const gcs = recordingGcStats(rec).rows;
    assert.ok(gcs.length >= 5, `${gcs.length} collections in the recording`);
    const startMono = rec.meta?.startMono ?? 0;
    const gcPauses = pauseEntries(rec.suspensions(), startMono).filter((p) => p.generation !== null);
    await page.getByTestId('tab-gc').click();
    const state = await appState(page);
    const pauses = state.summary?.pauses as PauseEntry[];
    const durationMs = state.summary?.durationMs ?? 0;
    const target = gcPauses[Math.floor(gcPauses.length / 2)];
    const box = await page.getByTestId('gc-timeline').boundingBox();
    assert.ok(box !== null);
    let spanMs = durationMs;
    for (const p of pauses) spanMs = Math.max(spanMs, (p.startNs + p.durationNs) / 1e6);
    await page.mouse.click(box.x + 8 + ((target.startNs + target.durationNs / 2) / 1e6 / spanMs) * (box.width - 16), box.y + box.height - 24);
    const text = await until('the collection of the pause', () => page.getByTestId('gc-picked-collection').count().then(async (n) => (n === 0 ? '' : page.getByTestId('gc-picked-collection').innerText())), (t) => t !== '', 10000);
    const m = /^GC #(\d+), gen (\d) (blocking|background|foreground) \((\w+)\): heap (.+) → (.+), (.+) promoted, paused (.+)$/.exec(text);
    assert.ok(m !== null, text);
    const row = gcs.find((g) => g.number === Number(m[1]));
    assert.ok(row !== undefined, `GC #${m[1]} is in the recording's GC table`);
    assert.equal(Number(m[2]), row.generation);
    assert.equal(m[3], row.type);
    assert.equal(m[4], row.reason);
    assert.ok(row.heapBeforeBytes !== null && row.heapAfterBytes !== null && row.promotedBytes !== null, 'the table has the heap sizes');
    // The collection started inside a GC pause near the click.
    const pause = gcPauses.find((p) => row.startNs - startMono >= p.startNs - 1e6 && row.startNs - startMono <= p.startNs + p.durationNs + 1e6);
    assert.ok(pause !== undefined, 'the collection started in a GC pause');
    await page.getByTestId('gc-show-collections').click();
    await until('the GC table', () => page.getByTestId('gc-collections').getAttribute('data-rows'), (n) => Number(n) === gcs.length);
    const selected = page.locator('[data-testid="gc-collections"] [role="row"][aria-selected="true"]');
    await until('the picked collection selected in the table', () => selected.count(), (n) => n === 1, 10000);
    assert.match(await selected.innerText(), new RegExp(`^${row.number}\\b`));
  });

  it('works without a mouse: the flame graph\'s keys zoom, search, go to the next match and back; tables move and open; ? lists the keys', { timeout: 60000 }, async () => {
    const zoomOf = async (): Promise<string[]> => (await appState(page) as unknown as { flameZoom: string[] }).flameZoom;
    await page.getByTestId('tab-flame').click();
    await until('the flame graph', () => page.getByTestId('flame-empty').count(), (n) => n === 0);
    await page.locator('body').press('?');
    assert.equal(await page.getByTestId('shortcuts-help').count(), 1, '? opens the list of keys');
    assert.match(await page.getByTestId('shortcuts-help').innerText(), /Backspace[\s\S]*back to the zoom before/);
    await page.keyboard.press('Escape');
    assert.equal(await page.getByTestId('shortcuts-help').count(), 0, 'Esc closes it');
    await page.getByTestId('help-open').click();
    assert.equal(await page.getByTestId('shortcuts-help').count(), 1, 'the ? button opens it too');
    await page.getByTestId('shortcuts-close').click();
    await page.locator('body').press('ArrowUp');
    const one = await until('zoomed one level in', zoomOf, (z) => z.length === 1);
    await page.locator('body').press('ArrowUp');
    const two = await until('two levels in', zoomOf, (z) => z.length === 2);
    assert.deepEqual(two.slice(0, 1), one);
    await page.locator('body').press('ArrowDown');
    await until('out to the caller', zoomOf, (z) => z.length === 1);
    await page.locator('body').press('Backspace');
    await until('back to the zoom before', zoomOf, (z) => z.join(';') === two.join(';'));
    await page.locator('body').press('0');
    await until('zoomed out whole', zoomOf, (z) => z.length === 0);
    await page.locator('body').press('/');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("data-testid")'), 'flame-search');
    await page.keyboard.type('Churn');
    await page.keyboard.press('Enter');
    const matched = await until('zoomed to the first match', zoomOf, (z) => z.length > 0 && z[z.length - 1].includes('Churn'));
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.locator('body').press('0');
    await page.locator('body').press('n');
    await until('n: the same first match', zoomOf, (z) => z.join(';') === matched.join(';'));
    await page.getByTestId('flame-search').fill('');
    // A table: focus, End, Home, a row down, Enter opens the function in the flame graph.
    await page.getByTestId('tab-functions').click();
    await until('the functions', () => page.getByTestId('functions-table').getAttribute('data-rows'), (n) => Number(n) > 3);
    await page.getByTestId('functions-table-body').focus();
    await page.keyboard.press('End');
    const rows = Number(await page.getByTestId('functions-table').getAttribute('data-rows'));
    await until('the last row selected', () => page.locator('[data-testid="functions-table"] [role="row"][aria-selected="true"]').getAttribute('data-row'), (r) => Number(r) === rows - 1);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await until('the second row selected', () => page.locator('[data-testid="functions-table"] [role="row"][aria-selected="true"]').getAttribute('data-row'), (r) => r === '1');
    await page.keyboard.press('Enter');
    await until('the flame graph of it', () => appState(page), (st) => st.tab === 'flame');
  });

  it('says why an empty view is empty and what would fill it', { timeout: 60000 }, async () => {
    await open(join(dir, 'long-names.speedscope.json'), (s) => s.summary?.sampleCount !== rec.sampleCount);
    await page.getByTestId('tab-gc').click();
    assert.match(await page.getByTestId('gc-empty').innerText(), /No GC pauses .*speedscope/);
    await page.getByTestId('gc-show-collections').click();
    assert.match(await page.getByTestId('gc-collections').innerText(), /No collections yet/);
    await page.getByTestId('tab-functions').click();
    await page.getByTestId('flame-search').fill('NoSuchMethod');
    await until('the reason in the table', () => page.getByTestId('functions-table').innerText(), (t) => /No function matches "NoSuchMethod": clear the search box to see all 6/.test(t));
    await page.getByTestId('flame-search').fill('');
    await page.getByTestId('tab-types').click();
    await until('the reason in the Types table', () => page.getByTestId('types-table').innerText(), (t) => /No allocation samples: launch or attach with allocations ticked/.test(t));
  });

  it('offers allocations, locks and exceptions in Launch and Attach; a launch with allocations fills the Types view', { timeout: 120000 }, async () => {
    const earlier = (await appState(page)).selectedSessionId;
    await page.getByTestId('tab-processes').click();
    for (const id of ['attach-alloc', 'attach-locks', 'attach-exceptions']) assert.equal(await page.getByTestId(id).count(), 1, id);
    assert.equal(await page.getByTestId('attach-alloc').isChecked(), false);
    if (await page.getByTestId('launch-form').count() === 0) await page.getByTestId('launch-open').click();
    assert.equal(await page.getByTestId('launch-alloc').isChecked(), false, 'allocations are off by default, as record has them');
    assert.equal(await page.getByTestId('launch-locks').isChecked(), true);
    assert.equal(await page.getByTestId('launch-exceptions').isChecked(), true);
    await page.getByTestId('launch-alloc').check();
    await page.getByTestId('launch-command').fill('dotnet');
    await page.getByTestId('launch-args').fill(`${scenarios} gc-churn --seconds 2`);
    await page.getByTestId('launch-submit').click();
    await until('the launched recording with allocation samples', () => appState(page), (s) => s.selectedSessionId !== earlier && s.sessions.find((x) => x.id === s.selectedSessionId)?.source === 'launch' && s.summary !== null && s.summary.ended && (s.summary as unknown as { eventMetrics: string[] }).eventMetrics.includes('alloc-space'), 60000);
    await page.getByTestId('tab-types').click();
    await until('types in the Types view', () => page.getByTestId('types-table').getAttribute('data-rows'), (n) => Number(n) > 0, 20000);
  });
});
