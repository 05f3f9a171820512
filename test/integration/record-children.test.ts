// `clrscope record --children` against a real process tree (test/targets/ProcessTree: a parent
// that starts two .NET children through the dotnet host, each burning CPU in a method of its
// own): every process in one recording, each child's hot method under its own process, read back
// by go tool pprof, speedscope's schema and TraceEvent. Without --children only the parent is
// recorded, and record names the child still running with the profiler loaded.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { runCli, type CliRun } from './support/run-cli.js';
import { traceCheck, traceCheckBuilt } from './support/trace-check.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import type { Recording } from '../../structs/profile/recording.js';
import { SampleFlags } from '../../structs/wire/records.js';
import { speedscopeSchemaProblems } from '../../structs/formats/speedscope/schema-check.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-children-test-'));
const lingering: number[] = [];
after(() => {
  for (const pid of lingering) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A private cache folder per test, so the spool files of one run never show up in another. */
const cacheEnv = (name: string): NodeJS.ProcessEnv => ({ XDG_CACHE_HOME: join(dir, `cache-${name}`) });
const spoolFiles = (env: NodeJS.ProcessEnv): string[] => {
  const spool = join(env.XDG_CACHE_HOME ?? '', 'clrscope', 'spool');
  return existsSync(spool) ? readdirSync(spool).map((n) => join(spool, n)) : [];
};

const HOT = { parent: 'HashParent', alpha: 'HashAlpha', beta: 'HashBeta' } as const;
type Role = keyof typeof HOT;

/** The "pid ROLE PID" lines ProcessTree's processes print. */
function pidsOf(stdout: string): Record<Role, number> {
  const pids: Partial<Record<Role, number>> = {};
  for (const m of stdout.matchAll(/^pid (parent|alpha|beta) (\d+)$/gm)) pids[m[1] as Role] = Number(m[2]);
  assert.ok(pids.parent !== undefined && pids.alpha !== undefined && pids.beta !== undefined, `three pid lines in:\n${stdout}`);
  return pids as Record<Role, number>;
}

/** Per pid, the managed method with the most CPU self time (the leaf's first managed frame) in that process's threads. */
function hotMethodByProcess(rec: Recording): Map<number, string> {
  const byPid = new Map<number, Map<string, number>>();
  rec.forEachSample((_i, _mono, threadId, stackId, cpuNs, _wallNs, flags) => {
    if ((flags & SampleFlags.Cpu) === 0) return;
    const pid = rec.processOf(threadId)?.pid ?? -1;
    const leaf = Array.from(rec.stackFrames(stackId)).map((f) => rec.functionInfo(f)?.name ?? '').find((n) => n.startsWith('Clrscope.'));
    if (leaf === undefined) return;
    const sums = byPid.get(pid) ?? new Map<string, number>();
    sums.set(leaf, (sums.get(leaf) ?? 0) + cpuNs);
    byPid.set(pid, sums);
  });
  const hot = new Map<number, string>();
  for (const [pid, sums] of byPid) hot.set(pid, [...sums].sort((a, b) => b[1] - a[1])[0][0]);
  return hot;
}

describe('record --children records the whole process tree in one file', () => {
  const file = join(dir, 'tree.clrscope');
  let run: CliRun;
  let pids: Record<Role, number>;
  let rec: Recording;

  before(async () => {
    run = await runCli(['record', '--children', '-o', file, '--', 'dotnet', targetDll('ProcessTree'), '--work', '1500'], { env: cacheEnv('tree') });
    pids = pidsOf(run.stdout);
    rec = (await readRecordingFile(file)).recording;
  });

  it('lists the three processes at the end and exits with the program', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /clrscope: recorded 3 processes:/);
    assert.match(run.stderr, new RegExp(`clrscope: recorded pid ${pids.parent} and 2 child processes \\(\\.NET 10\\.\\d+\\.\\d+\\): [\\d,]+ samples`));
    for (const role of ['parent', 'alpha', 'beta'] as const) {
      assert.match(run.stderr, new RegExp(`^  ${pids[role]} \\(dotnet \\S*ProcessTree\\.dll${role === 'parent' ? ' --work 1500' : ` child ${role}`}[^)]*\\): [\\d,]+ samples${role === 'parent' ? ' \\(the launched program\\)' : ''}$`, 'm'));
    }
    assert.doesNotMatch(run.stderr, /not recorded|still running with/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(spoolFiles(cacheEnv('tree')), [], 'the spool files are removed once the recording is saved');
  });

  it('holds each process with its own threads, named [pid dotnet] ...', () => {
    assert.equal(rec.meta?.pid, pids.parent, 'the recording is the launched process\'s');
    assert.deepEqual(rec.processes().map((p) => p.pid).sort(), [pids.parent, pids.alpha, pids.beta].sort());
    for (const p of rec.processes()) assert.equal(p.name, 'dotnet');
    for (const t of rec.threads()) {
      const p = rec.processOf(t.id);
      assert.ok(p !== undefined, `thread ${t.name} belongs to a process`);
      assert.ok(t.name.startsWith(`[${p.pid} dotnet] `), t.name);
    }
  });

  it('puts each process\'s hot method under that process only', () => {
    const hot = hotMethodByProcess(rec);
    for (const role of ['parent', 'alpha', 'beta'] as const) {
      assert.match(hot.get(pids[role]) ?? '', new RegExp(`\\.${HOT[role]}$`), `pid ${pids[role]} (${role}): ${JSON.stringify([...hot])}`);
    }
  });

  it('pprof: every sample carries process id and process name, read back by go tool pprof', async (t) => {
    if (!goAvailable()) {
      assert.ok(!process.env.CI, 'go is required in CI (scripts/setup.sh installs golang-go)');
      t.skip('go is not installed');
      return;
    }
    const pb = join(dir, 'tree.pb.gz');
    const conv = await runCli(['convert', file, '-o', pb]);
    assert.equal(conv.code, 0, conv.stderr);
    const tags = goPprof(['-tags', '-sample_index=samples'], pb);
    assert.match(tags, /process name: Total [\d.,]+\s*\n\s+[\d.,]+ \(\s*100%\): dotnet\n/);
    // The process id section lists exactly the three pids, each with samples.
    const section = /process id: Total [^\n]*\n((?:\s+[\d.,]+ \([\s\d.]+%\): \d+\n)+)/.exec(tags);
    assert.ok(section !== null, tags);
    assert.deepEqual(Array.from(section[1].matchAll(/: (\d+)\n/g), (m) => Number(m[1])).sort(), [pids.parent, pids.alpha, pids.beta].sort());
    // -traces prints each sample's labels above its stack: a stack through HashAlpha is alpha's.
    const traces = goPprof(['-traces', '-sample_index=cpu'], pb).split(/\n-{5,}[^\n]*\n/);
    let checked = 0;
    for (const block of traces) {
      const pid = /process id:\s+(\d+)/.exec(block);
      for (const role of ['parent', 'alpha', 'beta'] as const) {
        if (!block.includes(`.${HOT[role]}`)) continue;
        assert.equal(Number(pid?.[1]), pids[role], `a ${HOT[role]} stack labelled as another process:\n${block}`);
        checked++;
      }
    }
    assert.ok(checked >= 3, `stacks through the three hot methods in go tool pprof -traces (found ${checked})`);
  });

  it('speedscope: one profile per thread of every process', async () => {
    const json = join(dir, 'tree.speedscope.json');
    const conv = await runCli(['convert', file, '-o', json]);
    assert.equal(conv.code, 0, conv.stderr);
    const parsed = JSON.parse(readFileSync(json, 'utf8')) as { profiles: { name: string }[] };
    assert.deepEqual(speedscopeSchemaProblems(parsed), []);
    for (const role of ['parent', 'alpha', 'beta'] as const) {
      assert.ok(parsed.profiles.some((p) => p.name.startsWith(`[${pids[role]} dotnet] `)), `a profile of pid ${pids[role]}`);
    }
  });

  it('nettrace: one process (the launched one) holding every process\'s threads and methods, read by TraceEvent', async (t) => {
    if (!traceCheckBuilt()) {
      assert.ok(!process.env.CI, 'TraceCheck is built in CI');
      t.skip('TraceCheck is not built');
      return;
    }
    const nettrace = join(dir, 'tree.nettrace');
    const conv = await runCli(['convert', file, '-o', nettrace]);
    assert.equal(conv.code, 0, conv.stderr);
    const check = traceCheck(nettrace);
    assert.deepEqual(check.processes, [pids.parent]);
    for (const role of ['parent', 'alpha', 'beta'] as const) {
      assert.ok(check.methods.some((m) => m.method.includes(HOT[role]) && m.exclusive > 0), `${HOT[role]} in TraceEvent's methods`);
    }
    const tids = new Set(check.threads.map((th) => th.tid));
    for (const th of rec.threads()) if (rec.processOf(th.id)?.pid === pids.alpha && tids.has(th.osTid)) return;
    assert.fail('no thread of the alpha child in the nettrace file');
  });
});

describe('record --children killed with SIGKILL', () => {
  it('leaves one spool file per process, each the recording of its process with its hot method', async () => {
    const env = cacheEnv('killed');
    let ready: Promise<void> | undefined;
    let stdout = '';
    const r = await runCli(['record', '--children', '-o', join(dir, 'never.clrscope'), '--', 'dotnet', targetDll('ProcessTree'), '--work', '6000'], {
      env,
      started: (child) => {
        ready = new Promise<void>((resolve) => {
          child.stdout?.on('data', (d: Buffer) => {
            stdout += d.toString();
            if (/^pid beta \d+$/m.test(stdout)) resolve();
          });
        }).then(async () => {
          await new Promise((resolve) => setTimeout(resolve, 3000));
          child.kill('SIGKILL');
        });
      },
    });
    await ready;
    assert.equal(r.signal, 'SIGKILL');
    const pids = pidsOf(stdout);
    lingering.push(pids.parent, pids.alpha, pids.beta);
    const files = spoolFiles(env);
    assert.equal(files.length, 3, `one spool file per process: ${files.join(', ')}`);
    const found = new Map<number, string>();
    for (const f of files) {
      const rec = (await readRecordingFile(f)).recording;
      assert.equal(rec.cut, true);
      found.set(rec.meta?.pid ?? -1, hotMethodByProcess(rec).get(-1) ?? '');
    }
    for (const role of ['parent', 'alpha', 'beta'] as const) assert.match(found.get(pids[role]) ?? '', new RegExp(`\\.${HOT[role]}$`), JSON.stringify([...found]));
  });
});

describe('record without --children records the launched process only', () => {
  const file = join(dir, 'parent.clrscope');
  let run: CliRun;
  let pids: Record<Role, number>;

  before(async () => {
    // The alpha child sleeps 30 s after its work and the parent does not wait: it is still
    // running, profiler loaded, when record ends.
    run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('ProcessTree'), '--work', '1000', '--linger', '30']);
    pids = pidsOf(run.stdout);
    lingering.push(pids.alpha);
  });

  it('records the parent alone, as a one-process recording', async () => {
    assert.equal(run.code, 0, run.stderr);
    const rec = (await readRecordingFile(file)).recording;
    assert.equal(rec.meta?.pid, pids.parent);
    assert.equal(rec.processes().length, 0);
    assert.ok(rec.threads().every((t) => !t.name.startsWith('[')), 'thread names are not prefixed');
    assert.match(hotMethodByProcess(rec).get(-1) ?? '', /\.HashParent$/);
    const names = new Set(rec.functions().map((f) => f.name));
    assert.ok(![...names].some((n) => n.endsWith('.HashAlpha') || n.endsWith('.HashBeta')), 'no child\'s method in the parent\'s recording');
  });

  it('says the children were not recorded, which one still runs with the profiler, and how to stop it', () => {
    const lines = run.stderr.split('\n');
    const refused = lines.find((l) => /^clrscope: 2 other \.NET processes the program started also loaded the profiler and were not recorded/.test(l));
    assert.ok(refused !== undefined, run.stderr);
    assert.match(refused, new RegExp(`pid (${pids.alpha}, ${pids.beta}|${pids.beta}, ${pids.alpha}); --children records them too\\)\\.$`));
    const still = lines.find((l) => l.startsWith('clrscope: still running with clrscope\'s profiler loaded'));
    assert.ok(still !== undefined, run.stderr);
    assert.match(still, new RegExp(`: ${pids.alpha} \\(dotnet \\S*ProcessTree\\.dll child alpha[^)]*\\)\\. Stop them with kill PID`));
    assert.doesNotMatch(still, new RegExp(`\\b${pids.beta}\\b`), 'beta has exited');
    assert.match(still, /dotnet build-server shutdown/);
    assert.match(still, /MSBUILDDISABLENODEREUSE=1 and DOTNET_CLI_USE_MSBUILD_SERVER=0/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  });
});
