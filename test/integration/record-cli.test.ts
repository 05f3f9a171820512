// `clrscope record` as a user runs it: the file it writes is read by Go's pprof tool, the
// program's exit code and output pass through, and bad input ends in one clear sentence.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { frameLabel } from '../../structs/profile/frame-label.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-cli-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One sentence, no stack trace. */
function assertOneSentence(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n').filter((l) => l.startsWith('clrscope:'));
  assert.ok(lines.some((l) => pattern.test(l)), `expected ${pattern} in:\n${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
}

describe('clrscope record writes pprof that go tool pprof reads', () => {
  const file = join(dir, 'scenarios.pb.gz');
  let run: Awaited<ReturnType<typeof runCli>>;

  before(async () => {
    run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', 'sleep', '--seconds', '2', '--exit-code', '3']);
  });

  it('passes the exit code and output through and prints the summary', () => {
    assert.equal(run.code, 3, run.stderr);
    assert.equal(resultOf(run.stdout).exitCode, 3);
    assert.match(run.stderr, /Scenarios: done/);
    assert.match(run.stderr, /clrscope: recorded pid \d+ \(\.NET 10\.\d+\.\d+\): [\d,]+ samples \([\d,]+ CPU, [\d,]+ wall\), \d+ dropped/);
    assert.match(run.stderr, /Top methods by CPU time[^\n]*\n[^\n]*\n\s+[\d.]+%\s+\S+ m?s\s+[\d.]+%\s+Clrscope\.Targets\.Scenarios\.CpuWork\.Heavy/);
    assert.match(run.stderr, /Top methods by wall time/);
    // The program's own exit ended the stream with the runtime's END: not a cut.
    assert.doesNotMatch(run.stderr, /END record|was cut/);
    assert.ok(existsSync(file));
  });

  it('is read by go tool pprof with the hot methods on top', (t) => {
    if (!goAvailable()) {
      assert.ok(!process.env.CI, 'go is required in CI (scripts/setup.sh installs golang-go)');
      t.skip('go is not installed');
      return;
    }
    const cpu = parseTop(goPprof(['-top', '-sample_index=cpu'], file));
    const managed = cpu.filter((r) => r.name.startsWith('Clrscope.'));
    assert.equal(managed[0]?.name, 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
    assert.equal(managed[1]?.name, 'Clrscope.Targets.Scenarios.CpuWork.Light');
    const wall = goPprof(['-top', '-sample_index=wall'], file);
    assert.match(wall, /System\.Threading\.Thread\.Sleep/);
    const traces = goPprof(['-traces', '-sample_index=cpu'], file);
    assert.match(traces, /thread name:\s+burn-heavy/);
    assert.match(traces, /thread id:\s+\d+/);
    const gz = readFileSync(file);
    assert.equal(gz[0], 0x1f, 'gzip magic');
    assert.equal(gz[1], 0x8b);
  });
});

describe('pprof keeps generic and async names whole through go tool pprof', () => {
  it('a real recording of async state machines and generic BCL methods reads back name for name', async (t) => {
    if (!goAvailable()) {
      assert.ok(!process.env.CI, 'go is required in CI (scripts/setup.sh installs golang-go)');
      t.skip('go is not installed');
      return;
    }
    const file = join(dir, 'async.pb.gz');
    const clr = join(dir, 'async.clrscope');
    const r = await runCli(['record', '-o', clr, '--', 'dotnet', targetDll('Scenarios'), 'async', '--seconds', '1.5']);
    assert.equal(r.code, 0, r.stderr);
    const conv = await runCli(['convert', clr, '-o', file]);
    assert.equal(conv.code, 0, conv.stderr);
    const ours = new Set((await readRecordingFile(clr)).recording.functions().map((fn) => frameLabel(fn)));
    const names = parseTop(goPprof(['-top', '-nodecount=100000', '-nodefraction=0', '-sample_index=samples'], file)).map((row) => row.name);
    // go tool pprof strips <...> from a name equal to its systemName: each must come back as written.
    for (const name of names) assert.ok(ours.has(name), `go tool pprof shows ${JSON.stringify(name)}, which is not a frame of the recording`);
    assert.ok(names.some((n) => /^Clrscope\.Targets\.Scenarios\.AsyncWork\+<(RunAsync|StepAsync)>d__\d+\.MoveNext$/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^System\.[\w.+]+<[^>]+>/.test(n)), 'a generic BCL type keeps its arguments');
  });
});

describe('clrscope record rejects bad input with one sentence and a non-zero exit', () => {
  it('says so when the command does not exist', async () => {
    const r = await runCli(['record', '-o', join(dir, 'x.pb.gz'), '--', 'no-such-command-clrscope']);
    assert.equal(r.code, 127);
    assertOneSentence(r.stderr, /Command not found: no-such-command-clrscope\./);
  });

  it('says so when no .NET runtime connects, and still returns the program exit code', async () => {
    const r = await runCli(['record', '-o', join(dir, 'sh.pb.gz'), '--', 'sh', '-c', 'sleep 1.5; exit 4'], { env: { CLRSCOPE_CONNECT_TIMEOUT_MS: '500' } });
    assert.equal(r.code, 4);
    assertOneSentence(r.stderr, /No \.NET runtime has connected after/);
    assertOneSentence(r.stderr, /no \.NET runtime connected, so nothing was recorded/);
    assert.ok(!existsSync(join(dir, 'sh.pb.gz')));
  });

  it('says so when the profiler library is missing', async () => {
    const r = await runCli(['record', '-o', join(dir, 'y.pb.gz'), '--', 'dotnet', '--version'], { env: { CLRSCOPE_PROFILER_PATH: join(dir, 'nope', 'libclrscope.so') } });
    assert.equal(r.code, 2);
    assertOneSentence(r.stderr, /The clrscope profiler library is missing at/);
  });

  it('checks the output path before launching anything', async () => {
    const marker = join(dir, 'launched');
    for (const bad of ['/proc/clrscope.pb.gz', join(dir, 'missing-dir', 'out.pb.gz'), dir + '/']) {
      const r = await runCli(['record', '-o', bad, '--', 'sh', '-c', `touch ${marker}`]);
      assert.equal(r.code, 2, r.stderr);
      assertOneSentence(r.stderr, /Cannot write|Unknown output format/);
      assert.ok(!existsSync(marker), 'the program was not started');
    }
  });

  it('rejects bad options', async () => {
    const cases: [string[], RegExp][] = [
      [['record', '--interval', '0', '--', 'true'], /--interval must be a whole number from 1 to 1000, not '0'\./],
      [['record', '--interval', '2.5', '--', 'true'], /--interval must be a whole number/],
      [['record', '--duration', 'soon', '--', 'true'], /--duration must be a number/],
      [['record', '--bogus', '--', 'true'], /Unknown option '--bogus'/],
      [['record', '-o', 'out.txt', '--', 'true'], /Unknown output format for out\.txt/],
      [['record'], /No program to record/],
      [['record', '--children', '--pid', '1'], /--children records the \.NET processes a launched program starts: it does not go with --pid/],
      [['frobnicate'], /Unknown command 'frobnicate'/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runCli(args, { cwd: dir });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assertOneSentence(r.stderr, pattern);
    }
  });

  it('documents every option in --help', async () => {
    const r = await runCli(['record', '--help']);
    assert.equal(r.code, 0);
    for (const opt of ['--output', '--duration', '--interval', '--wall', '--no-wall', '--children', '--pauses', '--no-fallback', '--pid']) assert.match(r.stdout, new RegExp(opt));
  });
});

describe('stopping a recording', () => {
  it('writes what was recorded on Ctrl-C (SIGINT)', async () => {
    const file = join(dir, 'interrupted.pb.gz');
    const r = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '60'], {
      started: (child) => setTimeout(() => child.kill('SIGINT'), 4000),
    });
    assert.ok(existsSync(file), r.stderr);
    assert.match(r.stderr, /stopping; writing what was recorded/);
    assert.match(r.stderr, /recorded pid \d+/);
    assert.notEqual(r.code, 0, 'the interrupted program did not finish its work');
  });

  it('stops at --duration and asks the program to exit', async () => {
    const file = join(dir, 'duration.pb.gz');
    const started = Date.now();
    const r = await runCli(['record', '-o', file, '--duration', '2', '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '60']);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 20000, `took ${elapsed} ms`);
    assert.ok(existsSync(file), r.stderr);
    // The sleep was recorded: its wall time is the sleeping method's total (and its self, the
    // wait being charged to the method that waited; README, "clrscope record").
    const rep = await runCli(['report', file, '--sample-type', 'wall', '--format', 'json', '--top', '0']);
    assert.equal(rep.code, 0, rep.stderr);
    const functions = (JSON.parse(rep.stdout) as { functions: { name: string; total: number }[] }).functions;
    assert.ok(functions.some((f) => /SleepWork\.Doze|Thread\.Sleep/.test(f.name) && f.total > 0), r.stderr);
  });
});
