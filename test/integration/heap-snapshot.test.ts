// clrscope's own heap snapshots of a running process (`clrscope heap --pid PID`, the runtime's heap
// walk over EventPipe) against dotnet-gcdump's of the same process, on .NET 10 and on .NET 8 and 9
// (self-contained builds): test/targets/LeakHeap holds exactly N LeakedItem objects in a static
// cache, 30 StackHeldItem through a waiting thread's local and 7 HandleHeldItem through strong
// handles. Checked: the program's own types counted exactly and as dotnet-gcdump report counts
// them, every other type within a stated tolerance (the runtime makes and drops objects of its own
// between two snapshots: the first EventPipe session a process serves leaves ~1,100 strings and
// reflection objects behind, so dotnet-gcdump takes one snapshot first, then clrscope, then
// dotnet-gcdump the one compared), the cache's retained bytes
// as the peer's graph gives them, the paths from roots identical to the peer's, each generation's
// fragmentation as the runtime itself reports it (GC.GetGCMemoryInfo), the saved .clrheap read
// back and diffed after the cache grew, a launched program, and a process that is not .NET.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dotnetGcdump, gcdumpReportCounts } from './support/dotnet-gcdump.js';
import { targetDll, targetOn, type RuntimeTfm } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const N = 5000;
const NS = 'Clrscope.Targets.LeakHeap.';
const OWN_TYPES = [`${NS}LeakedItem`, `${NS}StackHeldItem`, `${NS}HandleHeldItem`, `System.Collections.Generic.List<${NS}LeakedItem>`];
/** Types of at least this many objects in the peer's snapshot must agree within TOLERANCE; smaller ones are the runtime's own churn. */
const MIN_COMPARED = 500;
const TOLERANCE = 0.03;
const gcdump = dotnetGcdump();
const dir = mkdtempSync(join(tmpdir(), 'clrscope-heapsnap-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface TypeRow { type: string; count: number; bytes: number; retainedBytes: number }
interface Generation { generation: number; sizeBytes: number; fragmentationBytes: number }

/** Resolves with the pid once the program printed READY with `items` in its cache; lines are collected in `lines`. */
function readyLine(child: ChildProcess, lines: string[], pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`LeakHeap printed no ${pattern} within 60 s:\n${lines.join('\n')}`)), 60_000);
    let buffered = '';
    const onData = (d: Buffer): void => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      lines.push(...parts);
      for (const line of parts) {
        const m = pattern.exec(line);
        if (m !== null) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve(m);
          return;
        }
      }
    };
    child.stdout?.on('data', onData);
  });
}


async function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runCli(args, { timeoutMs: 180_000 });
  assert.equal(r.code, 0, `clrscope ${args.join(' ')}: ${r.stderr}`);
  return r;
}

const RUNTIMES: readonly { label: string; tfm: RuntimeTfm }[] = [
  { label: '.NET 10', tfm: 'net10.0' },
  { label: '.NET 8', tfm: 'net8.0' },
  { label: '.NET 9', tfm: 'net9.0' },
];

for (const rt of RUNTIMES) {
  describe(`clrscope heap --pid on LeakHeap, ${rt.label}, against dotnet-gcdump`, { skip: gcdump.why, timeout: 600_000 }, () => {
    const ours = join(dir, `${rt.tfm}-ours.clrheap`);
    const grown = join(dir, `${rt.tfm}-grown.clrheap`);
    const peer = join(dir, `${rt.tfm}-peer.gcdump`);
    const collect = (file: string): void => {
      const r = spawnSync(gcdump.path!, ['collect', '-p', String(pid), '-o', file], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, `dotnet-gcdump collect: ${r.stdout}${r.stderr}`);
    };
    let pid = 0;
    let types: TypeRow[] = [];
    let generations: Generation[] = [];
    let gcInfo: { index: number; generations: { sizeAfter: number; fragmentationAfter: number }[] } | undefined;
    let summary = '';
    const lines: string[] = [];

    before(async () => {
      const { command, args } = targetOn('LeakHeap', rt.tfm);
      const target = spawn(command, [...args, '--items', String(N), '--stack', '30', '--handles', '7'], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(target);
      pid = Number((await readyLine(target, lines, new RegExp(`^READY (\\d+) items=${N}$`)))[1]);
      collect(join(dir, `${rt.tfm}-warm-up.gcdump`));
      const snap = await cli(['heap', '--pid', String(pid), '--top', '0', '--format', 'json', '-o', ours]);
      summary = snap.stderr;
      ({ types, generations } = JSON.parse(snap.stdout) as { types: TypeRow[]; generations: Generation[] });
      // The runtime's own account of the collection the snapshot ran, before anything else collects.
      const info = readyLine(target, lines, /^GCINFO (.*)$/);
      target.stdin?.write('gcinfo\n');
      gcInfo = JSON.parse((await info)[1]) as typeof gcInfo;
      collect(peer);
      const more = readyLine(target, lines, new RegExp(`^READY \\d+ items=${2 * N}$`));
      target.stdin?.write('grow\n');
      await more;
      await cli(['heap', '--pid', String(pid), '-o', grown, '--top', '1']);
      target.stdin?.end('exit\n');
    });

    it('says what it took: objects, references, roots and the one collection it ran', () => {
      assert.match(summary, new RegExp(`^Heap of process ${pid}: [\\d,]+ objects, [\\d,]+ references, [\\d,]+ roots \\(collection \\d+, [\\d.]+ s, the walk [\\d.]+ s\\)\\.$`, 'm'), summary);
      assert.match(summary, /^Saved the snapshot to .*\.clrheap\.$/m);
    });

    it("counts the program's own types exactly, as dotnet-gcdump report does, and every type of 500+ objects within 3%", () => {
      const byType = new Map(types.map((t) => [t.type, t]));
      const report = gcdumpReportCounts(gcdump.path!, peer);
      assert.equal(byType.get(`${NS}LeakedItem`)?.count, N);
      assert.equal(byType.get(`${NS}StackHeldItem`)?.count, 30);
      assert.equal(byType.get(`${NS}HandleHeldItem`)?.count, 7);
      for (const t of OWN_TYPES) assert.equal(byType.get(t)?.count, report.get(t), t);
      assert.equal(byType.get(`${NS}LeakedItem`)?.bytes, N * 32, 'a LeakedItem is 32 bytes on x64 (header, method table, int, reference)');
      let compared = 0;
      for (const [type, count] of report) {
        if (count < MIN_COMPARED) continue;
        compared++;
        const mine = byType.get(type)?.count ?? 0;
        assert.ok(Math.abs(mine - count) <= TOLERANCE * count, `${type}: clrscope ${mine}, dotnet-gcdump ${count}`);
      }
      assert.ok(compared >= 2, `at least LeakedItem and System.Byte[] compared, not ${compared}`);
      const total = (m: Iterable<number>): number => [...m].reduce((s, c) => s + c, 0);
      const mineTotal = total(types.map((t) => t.count));
      const peerTotal = total(report.values());
      assert.ok(Math.abs(mineTotal - peerTotal) <= 0.1 * peerTotal, `objects in all: clrscope ${mineTotal}, dotnet-gcdump ${peerTotal}`);
    });

    it("gives the cache's retained bytes as dotnet-gcdump's graph of the same heap does, and at least what it holds", async () => {
      const peerTypes = (JSON.parse((await cli(['heap', peer, '--top', '0', '--format', 'json'])).stdout) as { types: TypeRow[] }).types;
      const mine = new Map(types.map((t) => [t.type, t]));
      const theirs = new Map(peerTypes.map((t) => [t.type, t]));
      for (const t of [`${NS}LeakedItem`, `System.Collections.Generic.List<${NS}LeakedItem>`, `${NS}LeakedItem[]`]) {
        assert.equal(mine.get(t)?.retainedBytes, theirs.get(t)?.retainedBytes, t);
      }
      const items = mine.get(`${NS}LeakedItem`)!;
      assert.ok(items.retainedBytes >= items.bytes + N * 124, `each item retains its 100-byte payload (124 bytes with its header): ${items.retainedBytes}`);
      assert.ok(mine.get(`System.Collections.Generic.List<${NS}LeakedItem>`)!.retainedBytes >= items.retainedBytes);
    });

    it("finds the same paths from roots as dotnet-gcdump's snapshot: the static field's, the thread's local, the handles", async () => {
      for (const type of ['LeakedItem', 'StackHeldItem', 'HandleHeldItem']) {
        const mine = (await cli(['heap', ours, '--paths', type])).stdout;
        const theirs = (await cli(['heap', peer, '--paths', type])).stdout;
        assert.equal(mine, theirs, type);
      }
      const leaked = (await cli(['heap', ours, '--paths', 'LeakedItem'])).stdout.trim().split('\n');
      assert.equal(leaked.length, 1, leaked.join('\n'));
      assert.match(leaked[0], new RegExp(`^\\s*${N.toLocaleString('en-US')}  \\[static var .*\\.Items\\] → `));
    });

    it("reports each generation's size and fragmentation as the runtime's own GC.GetGCMemoryInfo does for that collection", (t) => {
      assert.ok(gcInfo !== undefined);
      assert.ok(generations.length >= 4, JSON.stringify(generations));
      assert.ok(generations.some((g) => g.fragmentationBytes > 0), 'a heap that has collected garbage has free space somewhere');
      const ours = Number(/\(collection (\d+),/.exec(summary)?.[1]);
      const sizes = (gs: { size: number }[]): number => gs.reduce((s, g) => s + g.size, 0);
      if (rt.tfm !== 'net10.0' && gcInfo.index === ours + 1) {
        // .NET 8 and 9 run a second induced gen-2 collection right after the walking one, for
        // dotnet-gcdump's session as for clrscope's (seen in the GC events of a session of their
        // own): the program's last full collection is that one, so only the heap's size compares.
        t.diagnostic(`${rt.label}: the runtime ran collection ${gcInfo.index} after the walking one (${ours})`);
        const mine = sizes(generations.map((g) => ({ size: g.sizeBytes })));
        const own = sizes(gcInfo.generations.map((g) => ({ size: g.sizeAfter })));
        assert.ok(Math.abs(mine - own) <= 0.1 * own, `heap size after the walking collection ${mine}, after the next ${own}`);
        return;
      }
      // The program's last full blocking collection is the one the snapshot ran: every figure is the runtime's own.
      assert.equal(gcInfo.index, ours, summary);
      for (const g of generations) {
        const own: { sizeAfter: number; fragmentationAfter: number } | undefined = gcInfo.generations[g.generation];
        if (own === undefined) continue;
        assert.equal(g.fragmentationBytes, own.fragmentationAfter, `generation ${g.generation} fragmentation`);
        assert.equal(g.sizeBytes, own.sizeAfter, `generation ${g.generation} size`);
      }
    });

    it('saves its snapshot as a .gcdump that dotnet-gcdump report reads: every type counted as clrscope counts it, the same paths read back', async () => {
      const asGcdump = join(dir, `${rt.tfm}-ours.gcdump`);
      const saved = await cli(['heap', ours, '-o', asGcdump, '--top', '1']);
      assert.match(saved.stderr, /^Saved the snapshot to .*\.gcdump\.$/m);
      const report = gcdumpReportCounts(gcdump.path!, asGcdump);
      const bracketed = (type: string): boolean => type.startsWith('[') && type.endsWith(']');
      const mine = new Map(types.filter((t) => !bracketed(t.type)).map((t) => [t.type, t.count]));
      // The root pseudo-objects ("[static vars]", "[local vars]", ...) are in the report as types of their own.
      const theirs = new Map([...report].filter(([type]) => !bracketed(type)));
      assert.equal(theirs.get(`${NS}LeakedItem`), N);
      assert.deepEqual(theirs, mine);
      assert.equal((await cli(['heap', asGcdump, '--paths', 'LeakedItem'])).stdout, (await cli(['heap', ours, '--paths', 'LeakedItem'])).stdout);
    });

    it('a diff of the saved snapshots names the type that grew, by exactly N, and the path that holds it', async () => {
      const rows = (JSON.parse((await cli(['heap', grown, '--diff', ours, '--format', 'json'])).stdout) as { types: { type: string; countDelta: number }[] }).types;
      assert.equal(rows.find((t) => t.type === `${NS}LeakedItem`)?.countDelta, N);
      const paths = (JSON.parse((await cli(['heap', grown, '--diff', ours, '--paths', 'LeakedItem', '--format', 'json'])).stdout) as { paths: { path: string[]; countDelta: number }[] }).paths;
      assert.equal(paths.length, 1, JSON.stringify(paths));
      assert.equal(paths[0].countDelta, N);
      assert.match(paths[0].path[0], /^\[static var .*\.Items\]$/);
    });
  });
}

describe('clrscope heap on a program it launches, and on what is not a .NET process', { timeout: 300_000 }, () => {
  it('launched: the snapshot after --after seconds, then the program runs to its end and clrscope exits as it did', async () => {
    const r = await runCli(['heap', '--after', '4', '--top', '0', '--format', 'json', '--', 'dotnet', targetDll('LeakHeap'), '--items', String(N), '--stack', '30', '--handles', '7', '--linger', '6'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    // The program's own output shares stdout: its READY line first, its RESULT line last, the JSON between.
    const json = r.stdout.split('\n').find((l) => l.startsWith('{"types"'));
    assert.ok(json !== undefined, r.stdout);
    const types = (JSON.parse(json) as { types: TypeRow[] }).types;
    assert.equal(types.find((t) => t.type === `${NS}LeakedItem`)?.count, N);
    assert.match(r.stdout, /^RESULT /m);
  });

  it('a heap over --max-objects: the first N objects shown and saved, one sentence, exit 1, and the program runs on', async () => {
    const { command, args } = targetOn('LeakHeap', 'net10.0');
    const target = spawn(command, [...args, '--items', String(N)], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(target);
    const lines: string[] = [];
    const pid = Number((await readyLine(target, lines, new RegExp(`^READY (\\d+) items=${N}$`)))[1]);
    const file = join(dir, 'over-budget.clrheap');
    const r = await runCli(['heap', '--pid', String(pid), '--max-objects', '1000', '--top', '0', '--format', 'json', '-o', file], { timeoutMs: 180_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^clrscope: The heap held more objects than --max-objects \(1,000\): the snapshot shown and saved is of the first ones only\.$/m);
    const shown = (JSON.parse(r.stdout) as { types: TypeRow[] }).types.reduce((n, t) => n + t.count, 0);
    assert.equal(shown, 1000);
    const saved = await cli(['heap', file, '--top', '0', '--format', 'json']);
    assert.equal((JSON.parse(saved.stdout) as { types: TypeRow[] }).types.reduce((n, t) => n + t.count, 0), 1000);
    const exited = new Promise<number | null>((resolve) => target.on('close', (code) => resolve(code)));
    target.stdin?.end('exit\n');
    assert.equal(await exited, 0, 'the program ran on and ended as it does');
  });

  it('a process killed during its heap walk: what was read is shown (or one sentence when nothing was), exit 1, no stack trace', async () => {
    const { command, args } = targetOn('LeakHeap', 'net10.0');
    const items = 1_500_000;
    const target = spawn(command, [...args, '--items', String(items)], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(target);
    const pid = Number((await readyLine(target, [], new RegExp(`^READY (\\d+) items=${items}$`)))[1]);
    let killed = false;
    const r = await runCli(['heap', '--pid', String(pid), '--top', '0', '--format', 'json'], {
      timeoutMs: 180_000,
      started: (cli) => cli.stderr?.on('data', (d: Buffer) => {
        if (!killed && /is walking the heap/.test(d.toString())) {
          killed = true;
          target.kill('SIGKILL');
        }
      }),
    });
    assert.ok(killed, `the walk began: ${r.stderr}`);
    assert.ok(r.code !== 0 && r.code !== null, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    assert.match(last, /^clrscope: [^\n]+\.$/);
    if (r.stdout.trim() !== '') {
      const objects = (JSON.parse(r.stdout) as { types: TypeRow[] }).types.reduce((n, t) => n + t.count, 0);
      assert.ok(objects > 0 && objects < 2 * items + 1000, `the objects read before the end (${objects})`);
      assert.match(last, /holds only the objects read/);
      assert.equal(r.code, 1);
    }
  });

  it('a process that is not .NET, or that does not exist, is one sentence and a non-zero exit', async () => {
    const sleeper = spawn('sleep', ['30']);
    children.push(sleeper);
    for (const pid of [sleeper.pid!, 2 ** 31 - 2]) {
      const r = await runCli(['heap', '--pid', String(pid)], { timeoutMs: 60_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr.trim(), /^clrscope: Cannot take a heap snapshot of process \d+: [^\n]+\.$/, r.stderr);
    }
    sleeper.kill();
  });
});
