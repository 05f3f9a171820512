// A process tree in the workstation, end to end: browser mode started in-process, its page in
// Debian's Chromium (playwright-core), test/targets/ProcessTree launched through the Launch form
// with "child processes" ticked (the default): a parent that starts two .NET children, each
// burning CPU in a method of its own. The live flame graph shows the children's samples while the
// program runs; "by process" puts each process's hot method under that process's root and no other;
// the process filter narrows the graph to one process; the recording saved as .clrscope and opened
// again offers the same. Launched with the box unticked, only the parent is recorded and the
// session names the child left running with the profiler loaded, as `record` does. Screenshots go
// to test-artifacts/workstation-process-tree/ and are checked not to be blank.
//
// Without its prerequisites (Chromium, the built renderer, the profiler, ProcessTree, dotnet) the
// suite is skipped with a message saying what is missing, except under CI, where that is a failure.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import type { WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { PROFILER, ROOT } from './support/paths.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import {
  appState, checkedScreenshot, descendants, flameNodes, hookReady, missingForPage, parallelNodes, programOutput, until, type HookNode, type HookSession, type HookState,
} from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'workstation-process-tree');
const NS = 'Clrscope.Targets.ProcessTree.';
const HOT = { parent: `${NS}ParentWork.HashParent`, alpha: `${NS}AlphaWork.HashAlpha`, beta: `${NS}BetaWork.HashBeta` } as const;
type Role = keyof typeof HOT;
const ROLES: readonly Role[] = ['parent', 'alpha', 'beta'];
const DLL = join(ROOT, 'test', 'targets', 'ProcessTree', 'bin', 'out', 'ProcessTree.dll');

function missingPrerequisites(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  if (!existsSync(DLL)) missing.push('ProcessTree.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  return missing;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`workstation-process-tree: SKIPPED, missing: ${missing.join('; ')}\n`);

const shot = (page: Page, name: string): Promise<string> => checkedScreenshot(page, name, { dir: ARTIFACTS });

/** The summary's processes (the hook's summary is the worker's RecordingSummary). */
type Summary = NonNullable<HookState['summary']> & { processes?: { pid: number; name: string; label: string }[] };
const processesOf = (s: HookState): NonNullable<Summary['processes']> => (s.summary as Summary | null)?.processes ?? [];

/** Per process root ("[pid dotnet]"), the hot methods found under it. */
function hotUnderRoots(nodes: readonly HookNode[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const root of nodes.filter((n) => n.depth === 1)) {
    const found = new Set(descendants(nodes, root.index).map((n) => n.label).filter((l) => Object.values(HOT).includes(l as typeof HOT[Role])));
    out.set(root.label, found);
  }
  return out;
}

describe('a process tree in the workstation: child processes recorded, by process and a process filter, in Chromium', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let ui: WorkstationInChromium;
  let workstation: WorkstationService;
  let server: BrowserMode;
  let page: Page;
  let dir: string;
  let pageErrors: string[] = [];
  let treeId = '';
  const pids: Partial<Record<Role, number>> = {};
  const lingering: number[] = [];

  const session = async (id: string): Promise<HookSession | undefined> => (await appState(page)).sessions.find((s) => s.id === id);
  const root = (role: Role): string => `[${pids[role]} dotnet]`;

  /** Fills the Launch form and starts ProcessTree with `args`; returns the new session's id. */
  async function launch(args: string, children: boolean): Promise<string> {
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('launch-form').count() === 0) await page.getByTestId('launch-open').click();
    await page.getByTestId('launch-command').fill('dotnet');
    await page.getByTestId('launch-args').fill(`${DLL} ${args}`);
    await page.getByTestId('launch-interval').fill('5');
    const box = page.getByTestId('launch-children');
    if (children) await box.check();
    else await box.uncheck();
    const before = (await appState(page)).sessions.length;
    await page.getByTestId('launch-submit').click();
    const started = await until('the new session in the flame graph tab', () => appState(page), (s) => s.tab === 'flame' && s.sessions.length > before && s.selectedSessionId !== null);
    return started.selectedSessionId ?? '';
  }

  /** Ticks the process filter's boxes of `chosen` only (or every process), through its drop-down, and closes it. */
  async function chooseProcesses(chosen: readonly number[] | 'all'): Promise<void> {
    const panel = page.getByTestId('flame-process-filter-panel');
    if (await panel.count() === 0) await page.getByTestId('flame-process-filter').click();
    await panel.getByRole('button', { name: chosen === 'all' ? 'all' : 'none', exact: true }).click();
    if (chosen !== 'all') for (const pid of chosen) await page.locator(`[data-testid="flame-process-option"][data-pid="${pid}"]`).check();
    await page.getByTestId('flame-process-filter').click();
    await until('the process filter to close', () => panel.count(), (n) => n === 0, 5000);
  }

  /** The "pid ROLE PID" lines ProcessTree prints (the children's come through the parent). */
  async function readPids(roles: readonly Role[]): Promise<Partial<Record<Role, number>>> {
    const output = await until('the processes\' pid lines', () => programOutput(page), (o) => roles.every((r) => o.lines.some((l) => l.text.startsWith(`pid ${r} `))), 30000);
    const found: Partial<Record<Role, number>> = {};
    for (const l of output.lines) {
      const m = /^pid (parent|alpha|beta) (\d+)$/.exec(l.text);
      if (m !== null) found[m[1] as Role] = Number(m[2]);
    }
    return found;
  }

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the workstation-process-tree test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-process-tree-e2e-'));
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), countersIntervalMs: 500 });
    ({ workstation, server, page, errors: pageErrors } = ui);
    await page.goto(`${server.url}&test`);
    await hookReady(page);
  });

  after(async () => {
    await ui?.close();
    for (const pid of lingering) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('records the children from the Launch form\'s default: their samples appear live, each under its own process', { timeout: 120000 }, async () => {
    await page.getByTestId('launch-open').click();
    assert.equal(await page.getByTestId('launch-children').isChecked(), true, '"child processes" is on by default');
    treeId = await launch('--work 8000', true);
    Object.assign(pids, await readPids(ROLES));
    // Live: the three hot methods in the flame graph while the program still runs.
    const live = await until('every process\'s hot method in the live flame graph', async () => ({
      labels: new Set((await flameNodes(page)).map((n) => n.label)), state: (await session(treeId))?.state, processes: processesOf(await appState(page)).length,
    }), (v) => ROLES.every((r) => v.labels.has(HOT[r])) || v.state !== 'recording', 60000);
    assert.equal(live.state, 'recording', `the children's samples arrive while the program runs (found: ${ROLES.filter((r) => live.labels.has(HOT[r])).join(', ')})`);
    assert.equal(live.processes, 3);
    const state = await appState(page);
    assert.deepEqual(processesOf(state).map((p) => p.pid), [pids.parent, pids.alpha, pids.beta], 'the processes in the order they connected, the launched one first');
    for (const t of state.summary?.threads ?? []) assert.match(t.name, /^\[\d+ dotnet\] /, `thread names carry their process: ${t.name}`);

    await page.getByTestId('group-by-process').check();
    const nodes = await until('a root per process, each with its hot method', () => flameNodes(page), (n) => {
      const hot = hotUnderRoots(n);
      return ROLES.every((r) => hot.get(root(r))?.has(HOT[r]) === true);
    }, 30000);
    const hot = hotUnderRoots(nodes);
    assert.deepEqual([...hot.keys()].sort(), ROLES.map(root).sort(), 'exactly one root per process');
    for (const r of ROLES) assert.deepEqual([...(hot.get(root(r)) ?? [])], [HOT[r]], `${root(r)} (${r}) holds its own hot method only`);
    for (const n of nodes.filter((x) => x.depth === 1)) assert.equal(n.kind, 3, 'process roots are drawn as grouping nodes');
    await shot(page, '1-by-process');
  });

  it('narrows the flame graph to one process with the process filter', { timeout: 60000 }, async () => {
    await chooseProcesses([pids.alpha ?? -1]);
    assert.match(await page.getByTestId('flame-process-filter').innerText(), /1 of 3 processes/);
    const nodes = await until('alpha alone in the flame graph', () => flameNodes(page), (n) => {
      const roots = n.filter((x) => x.depth === 1).map((x) => x.label);
      return roots.length === 1 && roots[0] === root('alpha') && n.some((x) => x.label === HOT.alpha);
    }, 30000);
    assert.ok(!nodes.some((n) => n.label === HOT.parent || n.label === HOT.beta), 'nothing of the parent or beta');
    await shot(page, '2-process-filter');
    // Without the grouping too: the tree is alpha's stacks, its hot method among them.
    await page.getByTestId('group-by-process').uncheck();
    const plain = await until('alpha\'s stacks without process roots', () => flameNodes(page), (n) => n.length > 1 && !n.some((x) => x.depth === 1 && /^\[\d+ dotnet\]$/.test(x.label)));
    assert.ok(plain.some((n) => n.label === HOT.alpha));
    assert.ok(!plain.some((n) => n.label === HOT.parent || n.label === HOT.beta));
    // Parallel stacks look at the same processes, and say so with the same filter.
    await page.getByTestId('tab-parallel').click();
    await page.getByTestId('parallel-mode-window').click();
    assert.match(await page.getByTestId('flame-process-filter').innerText(), /1 of 3 processes/);
    const stacks = await until('alpha\'s stacks over time in parallel stacks', () => parallelNodes(page), (n) => n.some((x) => x.label === HOT.alpha));
    assert.ok(!stacks.some((n) => n.label === HOT.parent || n.label === HOT.beta), 'parallel stacks: nothing of the parent or beta');
    await page.getByTestId('parallel-mode-current').click();
    await page.getByTestId('tab-flame').click();
    await chooseProcesses('all');
  });

  it('ends with the program, nothing left running, and opens again from .clrscope with its processes', { timeout: 120000 }, async () => {
    const ended = await until('ProcessTree to end', () => session(treeId), (s) => s?.state === 'stopped' || s?.state === 'failed', 60000);
    assert.equal(ended?.state, 'stopped', ended?.message ?? '');
    assert.doesNotMatch(ended?.message ?? '', /Still running/);
    const exported = await workstation.exportRecording({ sessionId: treeId, format: 'clrscope' });
    const saved = (await readRecordingFile(exported.path)).recording;
    assert.deepEqual(saved.processes().map((p) => p.pid), [pids.parent, pids.alpha, pids.beta]);

    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(exported.path);
    await page.getByTestId('open-submit').click();
    const opened = await until('the file to open', () => appState(page), (s) => s.opening === null && s.selectedSessionId !== treeId && s.selectedSessionId !== null && processesOf(s).length === 3, 60000);
    assert.equal(opened.sessions.find((s) => s.id === opened.selectedSessionId)?.source, 'file');
    await page.getByTestId('tab-flame').click();
    await page.getByTestId('group-by-process').check();
    const nodes = await until('the opened file by process', () => flameNodes(page), (n) => {
      const hot = hotUnderRoots(n);
      return ROLES.every((r) => hot.get(root(r))?.has(HOT[r]) === true);
    }, 30000);
    for (const r of ROLES) assert.deepEqual([...(hotUnderRoots(nodes).get(root(r)) ?? [])], [HOT[r]]);
    await chooseProcesses([pids.beta ?? -1]);
    await until('beta alone in the opened file', () => flameNodes(page), (n) => n.filter((x) => x.depth === 1).map((x) => x.label).join() === root('beta') && n.some((x) => x.label === HOT.beta));
    await shot(page, '3-opened-file');
    // The thread filter is the same drop-down: no thread leaves nothing to draw, one is counted as one, all brings beta's stacks back.
    await page.getByTestId('thread-filter').click();
    const threads = page.getByTestId('thread-filter-panel');
    await threads.getByRole('button', { name: 'none', exact: true }).click();
    await until('no thread, no frame of beta', () => flameNodes(page), (n) => !n.some((x) => x.label === HOT.beta));
    assert.match(await page.getByTestId('thread-filter').innerText(), /^0 of \d+ threads/);
    await threads.locator('[data-testid="thread-option"]').first().check();
    assert.match(await page.getByTestId('thread-filter').innerText(), /^1 of \d+ threads/);
    await threads.getByRole('button', { name: 'all', exact: true }).click();
    await until('every thread again', () => flameNodes(page), (n) => n.some((x) => x.label === HOT.beta));
    assert.match(await page.getByTestId('thread-filter').innerText(), /^All threads/);
    await page.getByTestId('thread-filter').click();
  });

  it('without "child processes": the parent alone, and the child left running with the profiler is named', { timeout: 120000 }, async () => {
    await chooseProcesses('all');
    await page.getByTestId('group-by-process').uncheck();
    // The alpha child sleeps 30 s after its work and the parent does not wait for it.
    const id = await launch('--work 1500 --linger 30', false);
    const found = await readPids(ROLES);
    if (found.alpha !== undefined) lingering.push(found.alpha);
    const ended = await until('the session to end and say what still runs', () => session(id), (s) => (s?.state === 'stopped' && /Still running/.test(s.message ?? '')) || s?.state === 'failed', 60000);
    assert.equal(ended?.state, 'stopped', ended?.message ?? '');
    const message = ended?.message ?? '';
    assert.match(message, new RegExp(`Still running with clrscope's profiler loaded \\(it is not recorded, but a runtime keeps a profiler until it exits\\): ${found.alpha} \\(dotnet \\S*ProcessTree\\.dll child alpha[^)]*\\)\\. Stop them with kill PID`));
    assert.doesNotMatch(message, new RegExp(`\\b${found.beta}\\b`), 'beta has exited');
    assert.equal(await page.getByTestId('group-by-process').count(), 0, 'one process: no "by process"');
    assert.equal(await page.getByTestId('flame-process-filter').count(), 0, 'one process: no process filter');
    const state = await until('the parent\'s recording', () => appState(page), (s) => s.selectedSessionId === id && (s.summary?.ended ?? false));
    assert.deepEqual(processesOf(state), []);
    assert.ok((state.summary?.threads ?? []).every((t) => !t.name.startsWith('[')), 'thread names are the process\'s own');
    const labels = new Set((await flameNodes(page)).map((n) => n.label));
    assert.ok(labels.has(HOT.parent) && !labels.has(HOT.alpha) && !labels.has(HOT.beta), [...labels].filter((l) => l.startsWith(NS)).join(', '));
    assert.deepEqual(pageErrors, []);
  });
});
