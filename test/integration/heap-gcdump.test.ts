// `clrscope heap` on real heap snapshots: dotnet-gcdump's snapshots of test/targets/LeakHeap (a
// static cache of exactly N LeakedItem objects, 30 StackHeldItem held by a waiting thread's local,
// 7 HandleHeldItem held by strong GCHandles), read back and checked against what the program
// holds and against `dotnet-gcdump report` of the same file; then the cache grown by N and a
// second snapshot compared with the first.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dotnetGcdump, gcdumpReportCounts } from './support/dotnet-gcdump.js';
import { targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const N = 5000;
const NS = 'Clrscope.Targets.LeakHeap.';
const gcdump = dotnetGcdump();
const dir = mkdtempSync(join(tmpdir(), 'clrscope-heap-'));
let target: ChildProcess | undefined;
after(() => {
  if (target !== undefined && target.exitCode === null) target.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the next "READY PID items=K" line's pid once K items are in the cache. */
function ready(child: ChildProcess, items: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`LeakHeap did not report ${items} items within 30 s:\n${out}`)), 30_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = new RegExp(`READY (\\d+) items=${items}\\b`).exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
  });
}

function collect(pid: number, file: string): void {
  const r = spawnSync(gcdump.path!, ['collect', '-p', String(pid), '-o', file], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `dotnet-gcdump collect: ${r.stdout}${r.stderr}`);
}


interface TypeRow { type: string; count: number; bytes: number; retainedBytes: number }

async function heapJson(args: string[]): Promise<unknown> {
  const r = await runCli(['heap', ...args, '--format', 'json'], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('clrscope heap on dotnet-gcdump snapshots of a program with a known leak', { skip: gcdump.why }, () => {
  const first = join(dir, 'first.gcdump');
  const second = join(dir, 'second.gcdump');
  before(async () => {
    target = spawn('dotnet', [targetDll('LeakHeap'), '--items', String(N), '--stack', '30', '--handles', '7'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const pid = await ready(target, N);
    collect(pid, first);
    const grown = ready(target, 2 * N);
    target.stdin?.write('grow\n');
    await grown;
    collect(pid, second);
    target.stdin?.end('exit\n');
  });

  it('counts every leaked object exactly, as the program holds them and as dotnet-gcdump reports them', async () => {
    const { types } = (await heapJson([first, '--top', '0'])) as { types: TypeRow[] };
    const byType = new Map(types.map((t) => [t.type, t]));
    const report = gcdumpReportCounts(gcdump.path!, first);
    assert.equal(byType.get(`${NS}LeakedItem`)?.count, N);
    assert.equal(report.get(`${NS}LeakedItem`), N);
    assert.equal(byType.get(`${NS}StackHeldItem`)?.count, 30);
    assert.equal(byType.get(`${NS}HandleHeldItem`)?.count, 7);
    // Every type's count equals the peer's (clrscope merges the size-bucketed names as reportCounts does).
    for (const [type, count] of report) assert.equal(byType.get(type)?.count, count, type);
    assert.equal(types.length, report.size);
  });

  it("gives the cache retained bytes of at least what it holds: its items and their payloads", async () => {
    const { types } = (await heapJson([first, '--top', '0'])) as { types: TypeRow[] };
    const byType = new Map(types.map((t) => [t.type, t]));
    const items = byType.get(`${NS}LeakedItem`)!;
    const cache = byType.get(`System.Collections.Generic.List<${NS}LeakedItem>`)!;
    assert.ok(items.retainedBytes >= items.bytes + N * 100, `items retain their 100-byte payloads: ${items.retainedBytes}`);
    assert.ok(cache.retainedBytes >= items.retainedBytes, `cache ${cache.retainedBytes} >= items ${items.retainedBytes}`);
    assert.ok(cache.bytes < 100, 'the list object itself is small; what it retains is not');
  });

  it('names the static field on the path from roots to the leaked objects, the stack and the handle on the others', async () => {
    const r = await runCli(['heap', first, '--paths', 'LeakedItem'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, r.stdout);
    const [count, path] = lines[0].trim().split(/ {2}/);
    assert.equal(count, N.toLocaleString('en-US'));
    const hops = path.split(' → ');
    assert.match(hops[0], /^\[static var .*\.Items\]$/);
    assert.deepEqual(hops.slice(1), [`System.Collections.Generic.List<${NS}LeakedItem>`, `${NS}LeakedItem[]`, `${NS}LeakedItem`]);
    const stack = (await heapJson([first, '--paths', `${NS}StackHeldItem`])) as { paths: { path: string[]; count: number }[] };
    assert.equal(stack.paths.reduce((s, p) => s + p.count, 0), 30);
    assert.ok(stack.paths.every((p) => p.path[0] === '[local vars]'), JSON.stringify(stack.paths));
    const handles = (await heapJson([first, '--paths', `${NS}HandleHeldItem`])) as { paths: { path: string[]; count: number }[] };
    const viaHandle = handles.paths.filter((p) => /Handle/.test(p.path[0])).reduce((s, p) => s + p.count, 0);
    // The main thread may still hold the last one it made in a register or stack slot.
    assert.ok(viaHandle >= 6, JSON.stringify(handles.paths));
  });

  it('a diff of the two snapshots names the type that grew, by exactly N, and the path that holds the growth', async () => {
    const { types } = (await heapJson([second, '--diff', first])) as { types: { type: string; countDelta: number; retainedDelta: number }[] };
    const grown = types.filter((t) => t.countDelta >= N);
    assert.deepEqual(grown.map((t) => t.type).sort(), [`${NS}LeakedItem`, 'System.Byte[]'].sort(), JSON.stringify(types.slice(0, 5)));
    assert.equal(types.find((t) => t.type === `${NS}LeakedItem`)?.countDelta, N);
    const text = await runCli(['heap', second, '--diff', first], { timeoutMs: 120_000 });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout.split('\n')[1], new RegExp(`^\\s*\\+${N.toLocaleString('en-US')}\\s.*(${NS}LeakedItem|System\\.Byte\\[\\])$`));
    // The paths that hold the growth: the static field's, by N.
    const paths = (await heapJson([second, '--diff', first, '--paths', `${NS}LeakedItem`])) as { paths: { path: string[]; count: number; countDelta: number }[] };
    assert.equal(paths.paths.length, 1, JSON.stringify(paths.paths));
    assert.equal(paths.paths[0].countDelta, N);
    assert.equal(paths.paths[0].count, 2 * N);
    assert.match(paths.paths[0].path[0], /^\[static var .*\.Items\]$/);
  });
});
