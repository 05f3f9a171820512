// `clrscope counters` against a real .NET program with known counts (test/targets/GcLoad): the
// block's final values equal the program's own, snapshots are never torn, bad input is one
// sentence.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CountersSource } from '../../electron/services/counters/counters-source.js';
import { launchProfiled } from '../../electron/services/recording/profiled-launch.js';
import { blockPathForPid } from '../../structs/ipcblock/mapping.js';
import { PROFILER, targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';
import { startUnderClrscope, type UnderClrscope } from './support/under-clrscope.js';

interface GcLoadResult {
  pid: number;
  gcCollectionCount: number[];
  lockContentionCount: number;
  exceptions: { thrown: number; filters: number; finallys: number };
  inducedOutcome: Record<string, Record<string, number>>;
}

type Line = Record<string, Record<string, number>> & { timestamp: string; pid: number };

const SECTIONS = ['gc', 'contexts', 'interop', 'loading', 'exceptions', 'locksAndThreads', 'jit', 'security'];

describe('clrscope counters -- COMMAND', () => {
  it('ends with the program\'s own final counts, one JSON object per refresh', async () => {
    const r = await runCli(['counters', '--format', 'json', '--refresh', '50', '--', 'dotnet', targetDll('GcLoad'),
      '--gen0', '5', '--gen1', '3', '--gen2', '2', '--allocate-mb', '100', '--exceptions', '100', '--threads', '10', '--lock-contention', '30', '--wait-start', '300']);
    assert.equal(r.code, 0, r.stderr);
    // The program's own output goes to stderr, so stdout is nothing but counters.
    const result = resultOf(r.stderr) as unknown as GcLoadResult;
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
    assert.ok(lines.length >= 3, `${lines.length} lines`);
    for (const line of lines) {
      // clrscope's own section (structs/ipcblock/extras.ts) follows the Framework layout's.
      assert.deepEqual(Object.keys(line), ['timestamp', 'pid', ...SECTIONS, 'extras']);
      assert.equal(line.pid, result.pid);
      assert.ok(!Number.isNaN(Date.parse(line.timestamp)));
    }
    const last = lines[lines.length - 1];
    assert.deepEqual([last.gc.genCollections0, last.gc.genCollections1, last.gc.genCollections2], result.gcCollectionCount);
    const induced = Object.values(result.inducedOutcome).reduce((a, o) => a + o.gen0 + o.gen1 + o.gen2, 0);
    assert.equal(last.gc.inducedGCs, induced);
    assert.equal(last.gc.processID, result.pid);
    assert.equal(last.exceptions.thrown, result.exceptions.thrown);
    assert.equal(last.exceptions.filtersExecuted, result.exceptions.filters);
    assert.equal(last.exceptions.finallysExecuted, result.exceptions.finallys);
    assert.equal(last.locksAndThreads.contention, result.lockContentionCount);
    assert.ok(last.jit.methodsJitted > 50, 'methods jitted');
    assert.ok(last.loading.assembliesCurrent > 5, 'assemblies loaded');
    assert.ok(last.locksAndThreads.currentThreadsPhysical >= last.locksAndThreads.currentThreadsLogical);
    // The counts only go up while the program runs.
    for (let i = 1; i < lines.length; i++) assert.ok(lines[i].gc.genCollections0 >= lines[i - 1].gc.genCollections0);
  });

  it('writes CSV with one header and one row per refresh, and a table', async () => {
    const csv = await runCli(['counters', '--format', 'csv', '--refresh', '100', '--', 'dotnet', targetDll('GcLoad'), '--gen0', '2', '--wait-start', '300']);
    assert.equal(csv.code, 0, csv.stderr);
    const rows = csv.stdout.trim().split('\n');
    assert.match(rows[0], /^timestamp,pid,gc\.genCollections0,gc\.genCollections1,/);
    assert.equal(rows[0].split(',').length, rows[rows.length - 1].split(',').length);
    assert.ok(rows.length >= 3);
    const table = await runCli(['counters', '--refresh', '100', '--', 'dotnet', targetDll('GcLoad'), '--gen0', '2']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /GC collections gen0 \/ gen1 \/ gen2\s+2 \/ \d+ \/ \d+/);
  });
});

describe('clrscope counters --pid on a process started without clrscope', () => {
  it('attaches (counters only), shows counts rising from the attach, and detaches when done', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn('dotnet', [targetDll('GcLoad'), '--gen0', '10', '--duration', '5', '--repeat-every', '200'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      const deadline = Date.now() + 20000;
      while (!out.includes('READY') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const pid = child.pid ?? 0;
      const r = await runCli(['counters', '--pid', String(pid), '--format', 'json', '--refresh', '250']);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
      // How many refreshes fit depends on how long the attach took on a loaded machine.
      assert.ok(lines.length >= 2, `${lines.length} lines`);
      assert.equal(lines[0].pid, pid);
      const last = lines[lines.length - 1];
      assert.ok(last.gc.inducedGCs > lines[0].gc.inducedGCs, 'induced GCs rose while watching');
      assert.ok(last.gc.genCollections0 >= last.gc.inducedGCs);
      // An attach watches System.Runtime's counters as a launch does (client data runtime_counters=1).
      assert.ok(lines.some((l) => (l.extras?.workingSetBytes ?? 0) > 0), `no reading after the attach has System.Runtime's working set: ${JSON.stringify(last.extras)}`);
      assert.ok(last.jit.methodsJitted > 0, `methods jitted: ${last.jit.methodsJitted}`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/**
 * A target under `clrscope record` whose counters block is gone: `counters --pid` then finds no
 * block, tries to attach clrscope's profiler and is refused, because the runtime already has one
 * (clrscope's own, loaded at startup) and takes only one. Unlinking the block is what sends
 * `counters --pid` down that road; the profiler in the target keeps running regardless.
 */
async function startWithoutBlock(dll: string, args: string[], dir: string): Promise<UnderClrscope> {
  const target = await startUnderClrscope(dll, args, join(dir, 'under-clrscope.pb.gz'));
  const path = blockPathForPid(target.pid);
  const deadline = Date.now() + 10000;
  while (!existsSync(path) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(path)) target.kill();
  assert.ok(existsSync(path), `clrscope's profiler in pid ${target.pid} published no block at ${path}`);
  unlinkSync(path);
  return target;
}

/** The block fields System.Runtime's EventCounters fill (event-counters-values.ts); every other field stays absent. */
const FROM_EVENT_COUNTERS: Record<string, string[]> = {
  gc: ['genCollections0', 'genCollections1', 'genCollections2', 'genHeapSize0', 'genHeapSize1', 'genHeapSize2', 'lrgObjSize', 'alloc', 'totalCommittedBytes', 'timeInGC', 'timeInGCBase'],
  contexts: [],
  interop: [],
  loading: ['assembliesCurrent'],
  exceptions: ['thrown'],
  // currentThreadsPhysical is read from /proc, so it is gone from the line printed after the exit.
  locksAndThreads: ['contention', 'currentThreadsPhysical'],
  jit: ['methodsJitted', 'ilJittedCurrent', 'ilJittedTotal', 'timeInJit', 'timeInJitBase'],
  security: [],
};

describe('clrscope counters --pid on a process whose runtime refuses clrscope\'s profiler', () => {
  // The other profiler is clrscope's own (started under `clrscope record`); its block is removed, its environment still names it.
  const fallbackSentence = (pid: number): string => `clrscope: Process ${pid} already has clrscope's profiler loaded, so clrscope cannot load it a second time; `
    + 'reading the runtime\'s System.Runtime EventCounters instead (the counters they do not cover stay empty).';

  it('says so once, then prints System.Runtime\'s EventCounters per refresh, GC counts rising, the rest empty', { timeout: 120000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clrscope-counters-fallback-'));
    const target = await startWithoutBlock(targetDll('GcLoad'), ['--gen0', '20', '--allocate-mb', '20', '--duration', '8', '--repeat-every', '100', '--exit-code', '5'], dir);
    try {
      const r = await runCli(['counters', '--pid', String(target.pid), '--format', 'json', '--refresh', '250']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.trim(), fallbackSentence(target.pid), 'stderr is the one sentence and nothing else');
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
      // The counting runs from the fallback until GcLoad's 8 s are up: many refreshes of 250 ms.
      assert.ok(lines.length >= 4, `${lines.length} lines`);
      for (const line of lines) {
        assert.deepEqual(Object.keys(line), ['timestamp', 'pid', ...SECTIONS, 'extras', 'systemRuntime']);
        assert.equal(line.pid, target.pid);
        for (const [section, fields] of Object.entries(FROM_EVENT_COUNTERS)) {
          const extra = Object.keys(line[section]).filter((f) => !fields.includes(f));
          assert.deepEqual(extra, [], `${section}: fields EventCounters do not give are left out, not printed as 0`);
        }
        // An interval's counters arrive in pieces; a line shows them all, the first one too.
        assert.deepEqual(Object.keys(line.gc).sort(), [...FROM_EVENT_COUNTERS.gc].sort(), JSON.stringify(line.gc));
        assert.equal(typeof line.systemRuntime.gen0GcCount, 'number', 'the counter as the runtime sent it');
      }
      const first = lines[0];
      const last = lines[lines.length - 1];
      for (let i = 1; i < lines.length; i++) assert.ok(lines[i].gc.genCollections0 >= lines[i - 1].gc.genCollections0, `line ${i}: counts never go back`);
      assert.ok(last.gc.genCollections0 > first.gc.genCollections0, `gen0 rose while watching: ${first.gc.genCollections0} → ${last.gc.genCollections0}`);
      assert.equal(last.gc.inducedGCs, undefined);
      assert.equal(last.gc.processID, undefined);
      assert.equal(last.exceptions.filtersExecuted, undefined);
      assert.ok(last.jit.methodsJitted > 50, 'methods jitted');
      assert.ok(last.loading.assembliesCurrent > 5, 'assemblies loaded');

      assert.equal(await target.exited, 5, `the exit code is the program's own: ${target.stderr()}`);
      const result = resultOf(target.stdout()) as unknown as GcLoadResult & { rounds: number; exitCode: number };
      assert.equal(result.pid, target.pid);
      assert.equal(result.exitCode, 5);
      assert.ok(result.rounds > 0);
      assert.ok(result.gcCollectionCount[0] >= 20 * result.rounds, 'every round induced its 20 gen0 GCs');
      // Counted from the session's start, which came after READY, and the last second may not
      // arrive before the exit: at most the program's own count, and a good part of it.
      assert.ok(last.gc.genCollections0 <= result.gcCollectionCount[0], `${last.gc.genCollections0} counted, ${result.gcCollectionCount[0]} by the program`);
      assert.ok(last.gc.genCollections0 >= result.gcCollectionCount[0] / 4, `${last.gc.genCollections0} counted, ${result.gcCollectionCount[0]} by the program`);
    } finally {
      target.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with --no-fallback, fails with the runtime\'s refusal instead', { timeout: 60000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clrscope-counters-no-fallback-'));
    const target = await startWithoutBlock(targetDll('Scenarios'), ['sleep', '--seconds', '15'], dir);
    try {
      const r = await runCli(['counters', '--pid', String(target.pid), '--no-fallback', '--format', 'json']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^clrscope: Process ${target.pid} did not load the profiler: another profiler is already loaded in it.*\\.$`, 'm'));
      assert.doesNotMatch(r.stderr, /EventCounters|EventPipe/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.equal(r.stdout, '');
    } finally {
      target.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the counters block under load', () => {
  it('never yields a torn snapshot while the program collects', async () => {
    const launch = await launchProfiled({
      command: 'dotnet', args: [targetDll('GcLoad'), '--gen0', '200', '--duration', '2', '--repeat-every', '0'],
      intervalMs: 1, wall: false, cpu: false, libraryPath: PROFILER, output: () => undefined,
    });
    try {
      // The default reads through the block's descriptor; a view of the mapping is checked too
      // (CLRSCOPE_BLOCK_ACCESS=copy runs it on the copying path Electron's main process uses).
      const mapped = process.env.CLRSCOPE_BLOCK_ACCESS === 'copy' ? 'copy' : 'view';
      let seen = 0;
      for (const access of ['read', mapped] as const) {
        let source: CountersSource | undefined;
        for (let i = 0; i < 500 && source === undefined; i++) {
          try {
            const s = CountersSource.forPid(launch.pid, { access });
            if (s.written()) source = s;
            else s.close();
          } catch {
            await new Promise((r) => setTimeout(r, 10));
          }
        }
        assert.ok(source !== undefined, 'the block appeared');
        assert.equal(source.access, access);
        let previous = 0;
        let reads = 0;
        const until = Date.now() + 1000;
        while (Date.now() < until) {
          const snap = source.read();
          const g = snap.gc;
          // One publish writes all of these together: a torn copy would break an invariant.
          assert.ok(g.genCollections0 >= g.genCollections1 && g.genCollections1 >= g.genCollections2, JSON.stringify(g));
          assert.ok(g.inducedGCs <= g.genCollections0);
          assert.ok(g.genCollections0 >= previous, 'counts never go back');
          assert.equal(snap.stable, true);
          previous = g.genCollections0;
          reads++;
        }
        source.close();
        assert.ok(reads > 500, `${access}: ${reads} reads`);
        seen = previous;
      }
      // By the second pass the program has been collecting for a while.
      assert.ok(seen > 10, `${seen} collections seen`);
    } finally {
      await launch.stopProgram();
      await launch.exited;
      await launch.finish();
    }
  });
});

describe('clrscope counters rejects bad input with one sentence', () => {
  const fakePid = process.pid;

  it('says so for a pid that does not exist or carries no block', async () => {
    let r = await runCli(['counters', '--pid', 'abc']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /clrscope: --pid must be a whole number from 1 to \d+, not 'abc'\./);
    r = await runCli(['counters', '--pid', '999999999']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^clrscope: There is no process with pid 999999999\.$/m);
    // The test runner itself: no block, and not .NET either, so nothing to attach to.
    r = await runCli(['counters', '--pid', String(fakePid)]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`^clrscope: Process ${fakePid} \\(node\\) is not a \\.NET process`, 'm'));
  });

  it('names what is wrong with a block that is truncated or of another version', async () => {
    const path = blockPathForPid(fakePid);
    try {
      writeFileSync(path, new Uint8Array(100), { mode: 0o600 });
      let r = await runCli(['counters', '--pid', String(fakePid)]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^clrscope: The counters block at \/dev\/shm\/clrscope-\d+ has 100 bytes, fewer than the 2048 a block needs\.$/m);
      // A 64-bit header that claims version 5.
      const block = new Uint8Array(2048);
      const v = new DataView(block.buffer);
      v.setInt32(0, 2, true);
      v.setUint32(4, fakePid, true);
      v.setUint16(16, 5, true);
      v.setUint16(18, 3, true);
      v.setUint32(20, 424, true);
      v.setUint32(28, 1, true);
      v.setUint32(32, 40, true);
      v.setUint32(36, 384, true);
      v.setUint16(40, 384, true);
      writeFileSync(path, block, { mode: 0o600 });
      r = await runCli(['counters', '--pid', String(fakePid)]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^clrscope: .*version 5.*4.*\.$/m);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('rejects bad options', async () => {
    const cases: [string[], RegExp][] = [
      [['counters'], /Give either --pid PID or a program after --/],
      [['counters', '--pid', '1', '--', 'true'], /Give either --pid PID or a program after --/],
      [['counters', '--refresh', '5', '--', 'true'], /--refresh must be a whole number from 10 to 3600000, not '5'\./],
      [['counters', '--format', 'xml', '--', 'true'], /--format must be table, json or csv, not 'xml'\./],
    ];
    for (const [args, pattern] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
    }
  });

  it('says so when the program is not .NET, and still returns its exit code', async () => {
    const r = await runCli(['counters', '--', 'sh', '-c', 'exit 3'], { env: { CLRSCOPE_CONNECT_TIMEOUT_MS: '2000' } });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /exited before a \.NET runtime published counters/);
  });
});
