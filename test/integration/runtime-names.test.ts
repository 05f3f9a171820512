// Names a real program's profile shows (issue 25): the runtime's stubs named from its perf map
// rather than "[unknown]", one definition of self time in `record`'s summary and `report`, and
// threads by their whole names rather than the 15 bytes Linux keeps. The target is the
// Scenarios program's "dispatch" scenario: interface calls through the runtime's resolve stubs
// on a thread named "interface-dispatch-worker-with-a-long-name", and a LongRunning task.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { attachPerfMap, releasePerfMap } from '../../electron/services/profiler/perf-map.js';
import type { Report } from '../../structs/analysis/report-model.js';
import { targetDll, targetOn, type RuntimeTfm } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-names-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const LONG_NAME = 'interface-dispatch-worker-with-a-long-name';

function perfMapDirs(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith('clrscope-perfmap-'));
}

/** Whether `path` is there and was written at or after `since` (ms; the file system keeps less than a ms). */
function writtenSince(path: string, since: number): boolean {
  try {
    return statSync(path).mtimeMs >= since - 1;
  } catch {
    return false;
  }
}

async function report(file: string, ...args: string[]): Promise<Report> {
  const r = await runCli(['report', file, '--format', 'json', '--sample-type', 'cpu', '--top', '0', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

/** Self share (0..1) of the functions whose name passes `test`, with no folding: what each frame itself took. */
function selfShare(r: Report, test: (name: string) => boolean): number {
  const self = (r.functions ?? []).filter((f) => test(f.name)).reduce((a, f) => a + f.self, 0);
  return r.totalValue > 0 ? self / r.totalValue : 0;
}

async function threadNames(file: string): Promise<string[]> {
  const opened = await readRecordingFile(file);
  return opened.recording.threads().map((t) => t.name);
}

/** Summary rows under a "Top methods by CPU time" header: [self ms, name, how far the printed figure may be from the exact one]. */
function summaryRows(stderr: string): { header: string; rows: [number, string, number][] } {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Top methods by CPU time'));
  assert.ok(at >= 0, stderr);
  const rows: [number, string, number][] = [];
  for (const line of lines.slice(at + 2)) {
    const m = /^\s+[\d.]+%\s+([\d.]+) (ms|s)\s+[\d.]+%\s+(.+)$/.exec(line);
    if (m === null) break;
    // Printed as "12.3 ms" or "1.23 s": half the last digit.
    rows.push([Number(m[1]) * (m[2] === 's' ? 1000 : 1), m[3], m[2] === 's' ? 5.01 : 0.051]);
  }
  return { header: lines[at], rows };
}

describe('a launched program', () => {
  const file = join(dir, 'launch.clrscope');
  let run: Awaited<ReturnType<typeof runCli>>;
  let pid = 0;
  let dirsBefore = new Set<string>();
  let startedAt = 0;
  before(async () => {
    dirsBefore = new Set(perfMapDirs());
    startedAt = Date.now();
    run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'dispatch', '--seconds', '4']);
    assert.equal(run.code, 0, run.stderr);
    pid = resultOf(run.stdout).pid as number;
  });

  it('names the runtime\'s stubs from its perf map, and removes the map', async () => {
    const none = await report(file, '--fold', 'none');
    const unknown = selfShare(none, (n) => n === '[unknown]');
    assert.ok(unknown < 0.01, `[unknown] takes ${(unknown * 100).toFixed(1)}% of self CPU`);
    const resolve = selfShare(none, (n) => n === '[runtime stub] VSD_ResolveStub');
    assert.ok(resolve > 0.02, `VSD_ResolveStub takes ${(resolve * 100).toFixed(1)}% of self CPU: ${(none.functions ?? []).slice(0, 8).map((f) => f.name).join(', ')}`);
    // The map was clrscope's, in a directory of its own, now gone. A /tmp/perf-PID.map older
    // than the run is another process's that had the same pid before.
    assert.ok(!writtenSince(`/tmp/perf-${pid}.map`, startedAt), 'the runtime wrote its map to /tmp');
    assert.deepEqual(perfMapDirs().filter((d) => !dirsBefore.has(d)), [], 'the perf map directory was removed');
  });

  it('gives the summary\'s top functions report\'s self time for the same file', async () => {
    const { header, rows } = summaryRows(run.stderr);
    assert.match(header, /self = the samples whose innermost frame, after folding, is the function/);
    const byDefault = await report(file);
    assert.ok(rows.length >= 3, run.stderr);
    rows.forEach(([ms, name, rounding], i) => {
      const f = byDefault.functions?.[i];
      assert.ok(f !== undefined && f.name === name, `row ${i}: summary ${name}, report ${f?.name}`);
      assert.ok(Math.abs(f.self / 1e6 - ms) <= rounding, `${name}: summary ${ms} ms, report ${f.self / 1e6} ms`);
    });
  });

  it('keeps whole thread names, in the recording and in an export', async () => {
    const names = await threadNames(file);
    assert.ok(names.includes(LONG_NAME), names.join(', '));
    assert.ok(names.includes('.NET Long Running Task'), names.join(', '));
    // Linux keeps 15 bytes of these (".NET SigHandler" is 15 bytes whole).
    const cut = names.filter((n) => ['.NET SynchManag', '.NET Long Runni', '.NET Tiered Com', 'interface-dispa'].includes(n));
    assert.deepEqual(cut, [], `names cut to 15 bytes: ${names.join(', ')}`);
    const speedscope = join(dir, 'launch.speedscope.json');
    const c = await runCli(['convert', file, '-o', speedscope]);
    assert.equal(c.code, 0, c.stderr);
    assert.ok(readFileSync(speedscope, 'utf8').includes(LONG_NAME), 'the speedscope profile names the thread whole');
  });
});

interface Started {
  child: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
}

async function startTarget(args: string[], tfm: RuntimeTfm = 'net10.0'): Promise<Started> {
  const start = targetOn('Scenarios', tfm);
  const child = spawn(start.command, [...start.args, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 20000;
  while (!out.includes('READY') && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  assert.ok(out.includes('READY'), `the target never printed READY: ${out}`);
  return { child, pid: child.pid ?? 0, exited };
}

describe('an attached program', () => {
  const file = join(dir, 'attach.clrscope');
  let run: Awaited<ReturnType<typeof runCli>>;
  let pid = 0;
  let mapsAfterDetach = -1;
  before(async () => {
    const target = await startTarget(['dispatch', '--seconds', '10']);
    pid = target.pid;
    try {
      // Let the stubs be made and the LongRunning task's thread start before clrscope comes.
      await new Promise((res) => setTimeout(res, 1000));
      run = await runCli(['record', '--pid', String(target.pid), '--duration', '3', '-o', file]);
      assert.equal(run.code, 0, run.stderr);
      // After the detach the runtime writes no map any more: no descriptor of it is left open
      // (the profiler's own, for reading, closes as it finishes detaching, moments later).
      const maps = (): number => readdirSync(`/proc/${pid}/fd`).filter((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`).includes(`perf-${pid}.map`); } catch { return false; } }).length;
      const until = Date.now() + 5000;
      while ((mapsAfterDetach = maps()) > 0 && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
    } finally {
      target.child.kill('SIGKILL');
      await target.exited;
    }
  });

  it('labels stubs made before the attach as the runtime\'s, says so, removes the map and turns it off at the detach', async () => {
    assert.match(run.stderr, /stubs made before the attach .* stay unnamed/);
    const none = await report(file, '--fold', 'none');
    const unknown = selfShare(none, (n) => n === '[unknown]');
    assert.ok(unknown < 0.01, `[unknown] takes ${(unknown * 100).toFixed(1)}% of self CPU`);
    assert.ok(selfShare(none, (n) => n.startsWith('[runtime stub]')) > 0.02, (none.functions ?? []).slice(0, 8).map((f) => f.name).join(', '));
    assert.ok(!existsSync(`/tmp/perf-${pid}.map`), 'the perf map clrscope asked for was removed');
    assert.ok(!existsSync(`/tmp/perfinfo-${pid}.map`), 'the perfinfo file the runtime wrote beside it was removed');
    assert.equal(mapsAfterDetach, 0, 'the runtime still writes the perf map after the detach');
  });

  it('gives the runtime\'s threads their whole names and marks the program\'s cut ones', async () => {
    const names = await threadNames(file);
    assert.ok(names.includes('.NET Long Running Task'), names.join(', '));
    // Named before the attach, the program's thread is known by the OS's 15 bytes only: marked as cut.
    assert.ok(names.includes('interface-dispa…'), names.join(', '));
  });
});

describe('an attach that never reaches its profiler', () => {
  it('leaves no perf map or perfinfo file in /tmp once its collector closes', async () => {
    // .NET 8 writes a perfinfo file beside the map when EnablePerfMap turns it on; 10 does not.
    const target = await startTarget(['dispatch', '--seconds', '10'], 'net8.0');
    const { pid } = target;
    try {
      // The map is turned on first; then the attach fails (or the process dies) before any
      // profiler has opened and removed it: the collector's close is all that is left.
      assert.equal(await attachPerfMap(pid), 'perf_map=1\n');
      const deadline = Date.now() + 5000;
      while (!existsSync(`/tmp/perfinfo-${pid}.map`) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      assert.ok(existsSync(`/tmp/perf-${pid}.map`) && existsSync(`/tmp/perfinfo-${pid}.map`), 'the runtime wrote its map');
      await releasePerfMap(pid);
      assert.ok(!existsSync(`/tmp/perf-${pid}.map`), 'the perf map was removed');
      assert.ok(!existsSync(`/tmp/perfinfo-${pid}.map`), 'the perfinfo file was removed');
    } finally {
      target.child.kill('SIGKILL');
      await target.exited;
    }
  });
});
