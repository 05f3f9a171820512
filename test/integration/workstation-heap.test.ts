// The Heap tab (issue 28) end to end in real Chromium: LeakHeap (test/targets/LeakHeap) holds
// exactly N LeakedItem objects in a static cache, 30 StackHeldItem through a waiting thread's local
// and 7 HandleHeldItem through strong handles. The page attaches to it, takes a snapshot, saves it,
// and what the tab shows must be what `clrscope heap FILE --format json` says of the same saved
// snapshot: every type's count, bytes and retained bytes, the paths from roots to LeakedItem. The
// program then grows its cache by N, the page takes a second snapshot, compared with the first:
// the diff and the paths that hold the growth, again as the CLI gives them. The dominator tree
// opens from the cache's list down to its array. A .gcdump made by dotnet-gcdump (or, without
// it, the saved .clrheap) opens into the same tab, and a truncated snapshot file is one sentence.
// The session's .clrscope export keeps its two snapshots, read back by `clrscope heap` and the tab.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { HeapDominatorChildren, HeapPathRow, HeapSnapshotInfo, HeapTypeRow } from '../../structs/api/contract.js';
import { clrheapsInClrscope } from '../../structs/formats/clrscope-file/heap-record.js';
import { dotnetGcdump } from './support/dotnet-gcdump.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { appState, checkedScreenshot, hookReady, missingForPage, until, attachFromPicker } from './support/workstation-page.js';

const N = 3000;
const NS = 'Clrscope.Targets.LeakHeap.';
const ITEM = `${NS}LeakedItem`;
const LIST = `System.Collections.Generic.List<${ITEM}>`;

interface HeapState {
  snapshots: HeapSnapshotInfo[];
  snapshotId: string | null;
  baselineId: string | null;
  types: HeapTypeRow[] | null;
  selectedType: string | null;
  paths: HeapPathRow[] | null;
  tree: Record<string, HeapDominatorChildren>;
  busy: boolean;
}
const heapState = async (page: Page): Promise<HeapState & { error: string | null }> => {
  const s = await appState(page) as unknown as { heap: HeapState; error: string | null };
  return { ...s.heap, error: s.error };
};

function missingPrerequisites(): string[] {
  const m = missingForPage();
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(targetDll('LeakHeap'))) m.push('LeakHeap.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}
const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-heap: SKIPPED, missing: ${missing.join('; ')}\n`);

async function cliJson<T>(args: string[]): Promise<T> {
  const r = await runCli(args, { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `clrscope ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Resolves once LeakHeap printed "READY PID items=COUNT". */
function ready(child: ChildProcess, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`LeakHeap did not print items=${count}: ${out}`)), 60_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = new RegExp(`^READY (\\d+) items=${count}$`, 'm').exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
  });
}

describe('the Heap tab', { skip: skip ? `missing: ${missing.join('; ')}` : false, timeout: 600_000 }, () => {
  let dir: string;
  let ui: WorkstationInChromium;
  let page: Page;
  let target: ChildProcess;
  let pid = 0;
  let first = '';
  let second = '';
  let peer = '';
  const gcdump = dotnetGcdump();

  /** Takes a snapshot in the page and waits for its types; returns its id. */
  async function take(count: number): Promise<string> {
    const before = (await heapState(page)).snapshots.length;
    await page.getByTestId('heap-take').click();
    const s = await until(`snapshot ${count} analysed`, () => heapState(page), (h) => h.error !== null || (h.snapshots.length === count && !h.busy && h.types !== null), 120_000);
    assert.equal(s.error, null);
    assert.equal(s.snapshots.length, before + 1);
    return s.snapshotId!;
  }

  async function save(path: string): Promise<void> {
    await page.getByTestId('heap-save-path').fill(path);
    await page.getByTestId('heap-save').click();
    await until(`${path} written`, async () => existsSync(path) && readFileSync(path).length > 0, (x) => x, 30_000);
  }

  async function pick(type: string): Promise<HeapPathRow[]> {
    await page.getByTestId('heap-filter').fill(type);
    await page.locator(`[data-testid=heap-types] .vrow[title="${type}"]`).click();
    const s = await until(`paths to ${type}`, () => heapState(page), (h) => h.selectedType === type && h.paths !== null, 60_000);
    return s.paths!;
  }

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and workstation-heap lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-heaptab-'));
    first = join(dir, 'first.clrheap');
    second = join(dir, 'second.clrheap');
    peer = join(dir, 'peer.gcdump');
    target = spawn('dotnet', [targetDll('LeakHeap'), '--items', String(N), '--stack', '30', '--handles', '7'], { stdio: ['pipe', 'pipe', 'inherit'] });
    pid = await ready(target, N);
    // The peer's snapshot first: a process's later heap-walk sessions may get objects without their types' names.
    if (gcdump.path !== undefined) {
      const r = spawnSync(gcdump.path, ['collect', '-p', String(pid), '-o', peer], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stdout + r.stderr);
    }
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    page = ui.page;
    await page.goto(`${ui.server.url}&test`);
    await hookReady(page);
    await attachFromPicker(page, pid);
    await page.getByTestId('tab-heap').click();
  });

  after(async () => {
    await ui?.close();
    if (target !== undefined && target.exitCode === null) target.kill('SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("takes a snapshot of the attached process and shows every type's count, bytes and retained bytes as clrscope heap --format json does", async () => {
    await take(1);
    await save(first);
    const s = await heapState(page);
    const cli = await cliJson<{ types: HeapTypeRow[] }>(['heap', first, '--top', '0', '--format', 'json']);
    assert.deepEqual(s.types, cli.types);
    const item = s.types!.find((t) => t.type === ITEM);
    assert.equal(item?.count, N);
    assert.equal(s.types!.find((t) => t.type === `${NS}StackHeldItem`)?.count, 30);
    assert.equal(s.types!.find((t) => t.type === `${NS}HandleHeldItem`)?.count, 7);
    assert.ok(item!.retainedBytes >= item!.bytes + N * 124, `each item retains its 100-byte payload: ${item!.retainedBytes}`);
    // The table on screen, filtered to the item type: its row with the exact count.
    await page.getByTestId('heap-filter').fill('LeakedItem');
    const rows = page.locator('[data-testid=heap-types] .vrow');
    await until('the filtered rows', () => rows.count(), (n) => n >= 1);
    const counts = await rows.locator('[data-value]').evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
    assert.ok(counts.includes(String(N)), counts.join(','));
    assert.match(await page.getByTestId('heap-caption').innerText(), new RegExp(`^process ${pid}, [\\d:]+: [\\d.]+ (k|M)? ?objects, `));
  });

  it('calls off a snapshot with Cancel: the snapshots shown stay, no error is said, and the process runs on', async () => {
    const before = await heapState(page);
    // Stopped, its runtime cannot answer the heap walk's session: the take waits until Cancel, whatever the machine's speed.
    process.kill(pid, 'SIGSTOP');
    try {
      await page.getByTestId('heap-take').click();
      await page.getByTestId('heap-cancel').click();
      const s = await until('the take called off', () => heapState(page), (h) => !h.busy, 30_000);
      assert.equal(s.error, null, 'a cancel the user asked for is no error');
      assert.equal(s.snapshots.length, before.snapshots.length, 'no snapshot kept');
      assert.equal(s.snapshotId, before.snapshotId, 'the snapshot shown is the one shown before');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.equal(target.exitCode, null, 'the program runs on');
  });

  it('shows the paths from roots to LeakedItem as the CLI gives them: the static field', async () => {
    const paths = await pick(ITEM);
    const cli = await cliJson<{ paths: HeapPathRow[] }>(['heap', first, '--paths', ITEM, '--format', 'json']);
    assert.deepEqual(paths, cli.paths);
    assert.equal(paths.length, 1);
    assert.equal(paths[0].count, N);
    assert.match(paths[0].path[0], /^\[static var .*\.Items\]$/);
    assert.match(await page.getByTestId('heap-path').first().getAttribute('data-path') ?? '', /^\[static var .*\.Items\] → /);
  });

  it("opens the dominator tree from what roots hold down to the cache's array", async () => {
    const s = await until('the roots level', () => heapState(page), (h) => h.tree['-1'] !== undefined);
    const list = s.tree['-1'].nodes.find((n) => n.type === LIST);
    assert.ok(list !== undefined, `the cache's list is held by its static field alone: ${s.tree['-1'].nodes.slice(0, 5).map((n) => n.type).join(', ')}`);
    const item = s.types!.find((t) => t.type === ITEM)!;
    assert.ok(list.retainedBytes >= item.retainedBytes, `${list.retainedBytes} >= ${item.retainedBytes}`);
    await page.locator(`[data-testid=heap-tree-row][data-node="${list.node}"] button`).click();
    const opened = await until('the list opened', () => heapState(page), (h) => h.tree[String(list.node)] !== undefined);
    const array = opened.tree[String(list.node)].nodes.find((n) => n.type === `${ITEM}[]`);
    assert.ok(array !== undefined, JSON.stringify(opened.tree[String(list.node)]));
    await page.locator(`[data-testid=heap-tree-row][data-node="${array.node}"] button`).click();
    const items = await until('the array opened', () => heapState(page), (h) => h.tree[String(array.node)] !== undefined);
    const under = items.tree[String(array.node)];
    assert.equal(under.total, N, 'the array alone keeps every item alive');
    assert.equal(under.nodes.length, 100, 'the most retaining hundred are listed');
    assert.ok(under.nodes.every((n) => n.type === ITEM));
    assert.equal(await page.locator('[data-testid=heap-tree-row]').filter({ hasText: ITEM }).count() >= 100, true);
  });

  it('compares a second snapshot, after the cache grew by N, with the first: the diff and the growing path as the CLI gives them', async () => {
    const grown = ready(target, 2 * N);
    target.stdin?.write('grow\n');
    await grown;
    const id = await take(2);
    const s = await heapState(page);
    assert.equal(s.snapshotId, id);
    assert.notEqual(s.baselineId, null, 'a new snapshot is compared with the one shown before');
    await save(second);
    const cli = await cliJson<{ types: HeapTypeRow[] }>(['heap', second, '--diff', first, '--top', '0', '--format', 'json']);
    assert.deepEqual(s.types, cli.types);
    assert.equal(s.types!.find((t) => t.type === ITEM)?.countDelta, N);
    const paths = await pick(ITEM);
    const cliPaths = await cliJson<{ paths: HeapPathRow[] }>(['heap', second, '--diff', first, '--paths', ITEM, '--format', 'json']);
    assert.deepEqual(paths, cliPaths.paths);
    assert.equal(paths[0].countDelta, N, JSON.stringify(paths));
    assert.match(paths[0].path[0], /^\[static var .*\.Items\]$/);
    await checkedScreenshot(page, 'heap-diff');
  });

  it("opens a snapshot file into the same tab (dotnet-gcdump's .gcdump when the tool is here), as the CLI reads it", async () => {
    const file = gcdump.path !== undefined ? peer : first;
    const before = (await heapState(page)).snapshots.length;
    await page.getByTestId('heap-open-path').fill(file);
    await page.getByTestId('heap-open').click();
    const s = await until('the file opened', () => heapState(page), (h) => h.error !== null || (h.snapshots.length === before + 1 && !h.busy && h.types !== null && h.baselineId !== null), 120_000);
    assert.equal(s.error, null);
    // Shown against the snapshot before it: pick none to see the file's own table.
    await page.getByTestId('heap-baseline').selectOption('');
    const own = await until('its own types', () => heapState(page), (h) => h.baselineId === null && h.types !== null);
    assert.equal(own.snapshotId, own.snapshots[own.snapshots.length - 1].id, JSON.stringify(own.snapshots));
    const cli = await cliJson<{ types: HeapTypeRow[] }>(['heap', file, '--top', '0', '--format', 'json']);
    assert.deepEqual(own.types, cli.types);
    assert.equal(own.types!.find((t) => t.type === ITEM)?.count, N, JSON.stringify(own.types!.slice(0, 5)));
  });

  it('a truncated snapshot file is one sentence in the banner, the one the CLI says', async () => {
    const bad = join(dir, 'cut.clrheap');
    const whole = readFileSync(first);
    writeFileSync(bad, whole.subarray(0, Math.floor(whole.length / 2)));
    const cli = await runCli(['heap', bad], { timeoutMs: 60_000 });
    assert.notEqual(cli.code, 0);
    const sentence = cli.stderr.trim().replace(/^clrscope: /, '');
    assert.match(sentence, /^Cannot read .*cut\.clrheap as .*\.$/);
    await page.getByTestId('heap-open-path').fill(bad);
    await page.getByTestId('heap-open').click();
    const s = await until('the error', () => heapState(page), (h) => h.error !== null && !h.busy, 60_000);
    assert.equal(s.error, sentence);
    assert.ok(!s.error!.includes('\n'));
    await page.getByTestId('error-banner').getByRole('button', { name: 'Dismiss' }).click();
  });

  it("keeps the session's snapshots inside its saved .clrscope: clrscope heap and the tab read the last back, recording readers skip them", async () => {
    await page.getByTestId('session-stop').click();
    await until('the session stopped', () => appState(page), (st) => st.sessions.some((x) => x.pid === pid && x.state === 'stopped'), 30_000);
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-clrscope').click();
    const status = page.getByTestId('export-status');
    await until('the export written', () => status.getAttribute('data-state'), (st) => st === 'done' || st === 'failed', 60_000);
    assert.equal(await status.getAttribute('data-state'), 'done', await status.innerText());
    const file = (await page.getByTestId('export-path').innerText()).trim();
    assert.equal(clrheapsInClrscope(readFileSync(file)).length, 2, 'the two snapshots taken of the session, not the opened files');
    const kept = await cliJson<{ types: HeapTypeRow[] }>(['heap', file, '--top', '0', '--format', 'json']);
    assert.deepEqual(kept.types, (await cliJson<{ types: HeapTypeRow[] }>(['heap', second, '--top', '0', '--format', 'json'])).types);
    const report = await runCli(['report', file], { timeoutMs: 60_000 });
    assert.equal(report.code, 0, report.stderr);
    // Into the Heap tab, as a snapshot of its own.
    await page.getByTestId('tab-heap').click();
    const before = (await heapState(page)).snapshots.length;
    await page.getByTestId('heap-open-path').fill(file);
    await page.getByTestId('heap-open').click();
    await until('the recording\'s snapshot opened', () => heapState(page), (h) => h.error !== null || (h.snapshots.length === before + 1 && !h.busy && h.types !== null), 60_000);
    await page.getByTestId('heap-baseline').selectOption('');
    const own = await until('its own types', () => heapState(page), (h) => h.baselineId === null && h.types !== null);
    assert.equal(own.error, null);
    assert.deepEqual(own.types, kept.types);
    assert.equal(own.types!.find((t) => t.type === ITEM)?.count, 2 * N);
    // Cut inside its last snapshot: one sentence.
    const whole = readFileSync(file);
    const cut = join(dir, 'cut.clrscope');
    writeFileSync(cut, whole.subarray(0, whole.length - 100));
    const r = await runCli(['heap', cut], { timeoutMs: 60_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr.trim(), /^(clrscope: )?Cannot read .*cut\.clrscope as clrscope recording: it ends inside the record at byte \d+\.$/);
  });
});

