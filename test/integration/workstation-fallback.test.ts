// The workstation's attach to a process whose runtime refuses clrscope's profiler (it already
// has one: clrscope's own, loaded at startup by `clrscope record`, and a .NET process takes only
// one): the session records through an EventPipe session instead, says so and marks its CPU
// approximate, brings System.Runtime's counters live and the samples when it stops (an export
// before that says to stop first), shows CpuWork.Heavy as the hottest method, stops without
// stopping the program, and exports a pprof that Go's pprof reads. Driven over browser mode's
// WebSocket like the renderer; the page, in Debian's Chromium, shows the session's
// approximate-CPU badge and its flame graph. Quitting with such a session recording drops it at
// once rather than waiting for a rundown.
//
// Without Chromium or the built renderer the page checks are skipped with a message saying what
// is missing, except under CI, where that is a failure.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CountersPoint, ExportResult, ProcessInfo, SessionInfo } from '../../structs/api/contract.js';
import type { Recording } from '../../structs/profile/recording.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { topMethods } from '../../structs/profile/top-methods.js';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { APPROXIMATE_CPU_COMMENT } from '../../structs/formats/pprof/to-pprof.js';
import { processAlive } from '../../electron/services/recording/profiled-attach.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { BrowserModeClient } from './support/browser-mode-client.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { PROFILER, targetDll } from './support/paths.js';
import { resultOf } from './support/run-cli.js';
import { startUnderClrscope, type UnderClrscope } from './support/under-clrscope.js';
import { appState, flameNodes, hookReady, missingForPage, openPage, RENDERER, until, type HookNode } from './support/workstation-page.js';

const HEAVY = 'Clrscope.Targets.Scenarios.CpuWork.Heavy';

const missing = missingForPage();
const noPage = missing.length > 0 && !process.env.CI;
if (noPage) process.stderr.write(`workstation-fallback: page checks SKIPPED, missing: ${missing.join('; ')}\n`);

/** The method with the most self time in the flame graph the page drew (a method's self, summed over where it appears). */
function hottestInFlame(nodes: readonly HookNode[]): string {
  const self = new Map<string, number>();
  for (const n of nodes.slice(1)) self.set(n.label, (self.get(n.label) ?? 0) + n.self);
  return [...self].reduce((a, b) => (b[1] > a[1] ? b : a), ['', -1])[0];
}

/** The block fields System.Runtime's EventCounters fill in the GC section (event-counters-values.ts). */
const GC_FIELDS = ['alloc', 'genCollections0', 'genCollections1', 'genCollections2', 'genHeapSize0', 'genHeapSize1', 'genHeapSize2', 'lrgObjSize', 'timeInGC', 'timeInGCBase', 'totalCommittedBytes'];

describe('the workstation attaching to a process that already has a profiler', { timeout: 240000 }, () => {
  let workstation: WorkstationService;
  let server: BrowserMode;
  let client: BrowserModeClient;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let pageErrors: string[] = [];
  let dir: string;
  let target: UnderClrscope;
  let session: SessionInfo;
  let rec: Recording;

  const notice = (pid: number): string => `Process ${pid} already has clrscope's profiler loaded, so clrscope cannot load it a second time; `
    + 'recording with the runtime\'s EventPipe sample profiler instead (CPU time is approximate).';
  const countersEvents = (): CountersPoint[] => client.events.flatMap((e) => (e.type === 'counters' && e.sessionId === session.id ? [e.point] : []));

  before(async () => {
    if (missing.length > 0 && !noPage) assert.fail(`CI is set and the workstation-fallback page checks lack: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-fallback-'));
    workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports') });
    server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    client = await BrowserModeClient.connect(server.wsUrl, server.token);
    target = await startUnderClrscope(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '16', '--exit-code', '6'], join(dir, 'under-clrscope.pb.gz'));
  });

  after(async () => {
    target?.kill();
    await browser?.close();
    client?.close();
    await server?.close();
    await workstation?.shutdown();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the process as attachable through EventPipe only, and the picker offers that attach, saying why', async () => {
    const listed = (await client.call<ProcessInfo[]>('listProcesses')).find((p) => p.pid === target.pid);
    assert.deepEqual(
      listed && { attachable: listed.attachable, eventPipeOnly: listed.eventPipeOnly, reason: listed.reason, clrscopeLoaded: listed.clrscopeLoaded },
      { attachable: true, eventPipeOnly: true, reason: 'It already has clrscope\'s profiler loaded.', clrscopeLoaded: true },
    );
    if (noPage) return;
    const { browser: picker, page: p } = await openPage();
    try {
      await p.goto(`${server.url}&test`);
      await hookReady(p);
      const button = p.locator(`[data-testid="process-row"][data-pid="${target.pid}"] [data-testid="process-attach"]`);
      await button.waitFor({ timeout: 20000 });
      assert.equal(await button.innerText(), 'Attach (EventPipe)');
      assert.match(await button.getAttribute('title') ?? '', /^It already has clrscope's profiler loaded\. clrscope records it through the runtime's EventPipe instead; CPU time is estimated\.$/);
    } finally {
      await picker.close();
    }
  });

  it('starts an EventPipe session instead: approximate CPU, the notice, counters live', async () => {
    session = await client.call<SessionInfo>('attach', { pid: target.pid, intervalMs: 5 });
    assert.equal(session.pid, target.pid);
    assert.equal(session.state, 'recording');
    assert.equal(session.source, 'attach');
    assert.equal(session.attached, true);
    assert.equal(session.approximateCpu, true);
    // The label is the program; the views add the pid once (renderer sessionTitle).
    assert.equal(session.label, 'Scenarios');
    assert.ok(session.message?.startsWith(`${notice(target.pid)} `), session.message ?? '');
    assert.deepEqual((await client.call<SessionInfo[]>('listSessions')).map((s) => [s.id, s.approximateCpu]), [[session.id, true]]);
    await client.call('subscribe', session.id);
    // The runtime names the methods only in its rundown, at the end: nothing to export before a stop.
    await assert.rejects(client.call('exportRecording', { sessionId: session.id, format: 'pprof' }), {
      message: `Session ${session.id} has nothing to export yet: stop the recording first, since the runtime names the methods only when its EventPipe session ends.`,
    });

    // System.Runtime sends its counters once a second; three points are three seconds of samples too.
    await client.until('three counters points', () => (countersEvents().length >= 3 ? true : undefined), 30000);
    for (const point of countersEvents()) {
      assert.deepEqual(Object.keys(point.values.gc ?? {}).sort(), GC_FIELDS, `one point per interval, with all of it: ${JSON.stringify(point.values.gc)}`);
      assert.equal(point.values.gc.inducedGCs, undefined, 'no made-up values for what EventCounters do not say');
      assert.equal(typeof point.values.systemRuntime?.cpuUsage, 'number');
    }
    assert.ok(countersEvents().some((p) => (p.values.systemRuntime?.cpuUsage ?? 0) > 0), 'cpu-ratio keeps the CPU busy');
    const history = await client.call<CountersPoint[]>('countersHistory', session.id);
    assert.ok(history.length >= 3, `${history.length} points in the history`);
    assert.equal(client.lastSession(session.id)?.state, 'recording');
  });

  it('the page shows the session with its approximate-CPU badge and the notice', { skip: noPage ? `missing: ${missing.join('; ')}` : false, timeout: 60000 }, async () => {
    ({ browser, page, errors: pageErrors } = await openPage());
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    // A page opened on a live recording selects it.
    const state = await until('the live session selected', () => appState(page as Page), (s) => s.selectedSessionId === session.id, 20000);
    assert.equal(state.sessions.find((s) => s.id === session.id)?.approximateCpu, true);
    const badge = page.getByTestId('session-approximate-cpu');
    assert.ok(await badge.isVisible(), 'the approximate-CPU badge is shown');
    assert.match(await badge.innerText(), /CPU estimated/i);
    assert.ok((await page.getByTestId('session-message').innerText()).startsWith(notice(target.pid)));
  });

  it('stops: samples arrive, Heavy is the hottest method, and the program runs on to its own exit code', async () => {
    assert.ok(processAlive(target.pid), 'the target is still running before the stop');
    const stopped = await client.call<SessionInfo>('stop', session.id);
    assert.equal(stopped.state, 'stopped', stopped.message ?? '');
    assert.equal(stopped.message, 'Stopped. The EventPipe session ended; the program carries on.');
    assert.equal(stopped.approximateCpu, true);
    assert.ok(processAlive(target.pid), 'the program outlives the stop');

    // The runtime names methods only in its rundown, so the stream comes whole once stopped.
    await client.until('the stopped session\'s stream', () => (client.lastSession(session.id)?.state === 'stopped' && client.bytes(session.id).length > 0 ? true : undefined), 30000);
    rec = recordingFromStream([client.bytes(session.id)]);
    assert.equal(rec.meta?.pid, target.pid);
    assert.equal(rec.meta?.attached, true);
    assert.equal(rec.meta?.approximateCpu, true);
    assert.ok(rec.end !== undefined && !rec.cut, 'the stream ends with its END');
    assert.ok(rec.sampleCount > 100, `${rec.sampleCount} samples`);
    const top = topMethods(rec, 'cpu', 3);
    assert.equal(top[0]?.name, HEAVY, `the hottest methods by CPU: ${top.map((r) => `${r.name} ${r.selfPct.toFixed(1)}%`).join(', ')}`);

    if (page !== undefined) {
      const shown = await until('the whole recording in the page', () => appState(page as Page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount === rec.sampleCount, 30000);
      assert.equal(shown.sessions.find((s) => s.id === session.id)?.state, 'stopped');
      assert.equal(shown.flameOptions.metric, 'cpu');
      const nodes = await until('Heavy in the flame graph', () => flameNodes(page as Page), (n) => n.some((x) => x.label === HEAVY));
      assert.equal(hottestInFlame(nodes), HEAVY, 'the hottest method in the flame graph');
      assert.ok(await page.getByTestId('session-approximate-cpu').isVisible(), 'still marked approximate once stopped');
      assert.deepEqual(pageErrors, [], 'no errors in the page');
    }

    assert.equal(await target.exited, 6, `the exit code is the program's own: ${target.stderr()}`);
    const scen = resultOf(target.stdout()).scenarios as Record<string, Record<string, number>>;
    assert.ok(scen['cpu-ratio'].heavyCalls > 0);
    assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
  });

  it('exports pprof that go tool pprof reads, with Heavy on top and the approximate-CPU comment', async (t) => {
    const path = join(dir, 'fallback.pb.gz');
    const result = await client.call<ExportResult>('exportRecording', { sessionId: session.id, format: 'pprof', path });
    assert.equal(result.path, path);
    assert.equal(result.bytes, statSync(path).size);
    if (!goAvailable()) {
      t.skip('go is not installed');
      return;
    }
    assert.ok(goPprof(['-raw'], path).split('\n').includes(`Comment: ${APPROXIMATE_CPU_COMMENT}`), 'the approximate-CPU comment');
    const rows = parseTop(goPprof(['-top', '-sample_index=cpu'], path)).filter((row) => row.name.startsWith('Clrscope.'));
    assert.equal(rows[0]?.name, HEAVY, `go tool pprof -top: ${rows.slice(0, 3).map((r) => r.name).join(', ')}`);
    const total = /Total samples = (\d+)/.exec(goPprof(['-top', '-sample_index=samples'], path))?.[1];
    assert.equal(Number(total), rec.sampleCount, 'go tool pprof counts every sample the session recorded');
  });
});

describe('quitting the workstation while a fallback session records', { timeout: 120000 }, () => {
  it('returns within a couple of seconds, without a stop or a rundown, and the program runs on to its own exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-fallback-quit-'));
    const target = await startUnderClrscope(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '10', '--exit-code', '6'], join(dir, 'under-clrscope.pb.gz'));
    const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports') });
    try {
      const session = await workstation.attach({ pid: target.pid });
      assert.equal(session.state, 'recording');
      assert.equal(session.approximateCpu, true);
      // A counters point proves the EventPipe session streams when it is dropped.
      const deadline = Date.now() + 20000;
      while ((await workstation.countersHistory(session.id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await workstation.countersHistory(session.id)).length > 0, 'counters arrive before the shutdown');

      const t0 = Date.now();
      await workstation.shutdown();
      const took = Date.now() - t0;
      // A stop would wait for the rundown (up to RUNDOWN_TIMEOUT_MS, 20 s).
      assert.ok(took < 2000, `workstation.shutdown() took ${took} ms`);
      assert.ok(processAlive(target.pid), 'the program outlives the dropped session');
      assert.equal(await target.exited, 6, `the exit code is the program's own: ${target.stderr()}`);
      const scen = resultOf(target.stdout()).scenarios as Record<string, Record<string, number>>;
      assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
    } finally {
      target.kill();
      await workstation.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
