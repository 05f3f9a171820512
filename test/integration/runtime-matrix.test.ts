// The core of clrscope on every runtime people run: .NET 8 (LTS) and 9 through self-contained
// builds of the test targets (scripts/build-targets.sh, bin/net8.0/ and bin/net9.0/), and .NET 10
// through the installed shared runtime. On each: a launched recording (CPU split, wall time of a
// sleeping thread, the program's exit code, a clean end), GC pauses against the runtime's own
// counts, the counters block against the program's own counts, and attach then detach.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { SampleFlags } from '../../structs/wire/records.js';
import { PROFILER, targetOn, type RuntimeTfm } from './support/paths.js';
import { heavyLightSplit } from './support/cpu-split.js';
import { recordProgram, samplesOf, type SampleView } from './support/record-target.js';
import { resultOf, runCli } from './support/run-cli.js';
import { plainEnv, tail } from './support/torture.js';

const RUNTIMES: readonly { label: string; tfm: RuntimeTfm; major: number }[] = [
  { label: '.NET 8', tfm: 'net8.0', major: 8 },
  { label: '.NET 9', tfm: 'net9.0', major: 9 },
  { label: '.NET 10', tfm: 'net10.0', major: 10 },
];

const NS = 'Clrscope.Targets.Scenarios.';
const GC_LOAD_ARGS = ['--gen0', '5', '--gen1', '3', '--gen2', '2', '--allocate-mb', '100', '--exceptions', '100', '--threads', '10', '--lock-contention', '30'];

const has = (s: SampleView, name: string): boolean => s.frames.includes(name);
const sum = (samples: SampleView[], pick: (s: SampleView) => number): number => samples.reduce((a, s) => a + pick(s), 0);

interface GcLoadResult {
  pid: number;
  gcCollectionCount: number[];
  gcCollectionCountAtStart: number[];
  lockContentionCount: number;
  exceptions: { thrown: number };
  inducedOutcome: Record<string, Record<string, number>>;
}

for (const rt of RUNTIMES) {
  describe(`on ${rt.label}`, () => {
    it('launch: the program\'s exit code, a clean end, CPU split 3:1 and a sleeper\'s wall time', { timeout: 120000 }, async (t) => {
      const { command, args } = targetOn('Scenarios', rt.tfm);
      const run = await recordProgram(command, [...args, 'cpu-ratio', 'sleep', '--seconds', '2', '--exit-code', '5'], { intervalMs: 1, env: plainEnv() });
      assert.equal(run.result.exitCode, 5, tail(run.stderr));
      const stream = run.result.stream;
      assert.ok(stream !== undefined, `no stream: ${tail(run.stderr)}`);
      assert.equal(stream.state, 'ended');
      const version = stream.recording.meta?.runtimeVersion ?? '';
      t.diagnostic(`runtime version in HELLO: ${version}`);
      assert.match(version, new RegExp(`^${rt.major}\\.`), 'HELLO names the runtime the program ran on');
      const samples = samplesOf(stream.recording);
      const split = heavyLightSplit(samples, NS, 5);
      t.diagnostic(split.line);
      assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
      const sleeper = samples.filter((s) => s.thread === 'sleeper');
      const wallMs = sum(sleeper, (s) => s.wallNs) / 1e6;
      assert.ok(wallMs > 1600 && wallMs < 2800, `sleeper wall ${wallMs.toFixed(0)} ms over a 2 s sleep`);
      const inSleep = sum(sleeper.filter((s) => has(s, `${NS}SleepWork.Doze`) && has(s, 'System.Threading.Thread.Sleep')), (s) => s.wallNs) / 1e6;
      assert.ok(inSleep > 0.9 * wallMs, `${inSleep.toFixed(0)} of ${wallMs.toFixed(0)} ms under Thread.Sleep <- SleepWork.Doze`);
    });

    it('GC pauses: every collection the runtime counted, per generation, and the induced ones', { timeout: 120000 }, async () => {
      const { command, args } = targetOn('GcLoad', rt.tfm);
      const run = await recordProgram(command, [...args, ...GC_LOAD_ARGS], { env: plainEnv() });
      assert.equal(run.result.exitCode, 0, tail(run.stderr));
      const rec = run.result.stream?.recording;
      assert.ok(rec !== undefined, 'a recording');
      const result = resultOf(run.stdout) as unknown as GcLoadResult;
      const gcs = rec.suspensions().filter((s) => s.generation >= 0);
      for (let g = 0; g < 3; g++) {
        const seen = gcs.filter((s) => s.generation >= g).length;
        assert.equal(seen, result.gcCollectionCount[g] - result.gcCollectionCountAtStart[g], `generation ${g}`);
      }
      assert.ok(gcs.every((s) => s.durationNs > 0), 'every pause has a duration');
    });

    it('counters: the block\'s final values are the program\'s own', { timeout: 120000 }, async () => {
      const { command, args } = targetOn('GcLoad', rt.tfm);
      const r = await runCli(['counters', '--format', 'json', '--refresh', '50', '--', command, ...args, ...GC_LOAD_ARGS, '--wait-start', '300'], { env: plainEnv() });
      assert.equal(r.code, 0, r.stderr);
      const result = resultOf(r.stderr) as unknown as GcLoadResult;
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, Record<string, number>>);
      const last = lines[lines.length - 1];
      assert.deepEqual([last.gc.genCollections0, last.gc.genCollections1, last.gc.genCollections2], result.gcCollectionCount);
      assert.equal(last.exceptions.thrown, result.exceptions.thrown);
      assert.equal(last.locksAndThreads.contention, result.lockContentionCount);
      assert.ok(last.jit.methodsJitted > 20, `methods jitted: ${last.jit.methodsJitted}`);
    });

    it('attach to a running program, record its hot method, detach; it finishes with its own exit code', { timeout: 120000 }, async () => {
      const { command, args } = targetOn('Scenarios', rt.tfm);
      const child = spawn(command, [...args, 'cpu-ratio', '--seconds', '4', '--exit-code', '6'], { env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      const pid = child.pid ?? 0;
      try {
        const deadline = Date.now() + 30000;
        while (!/^READY /m.test(out) && child.exitCode === null && Date.now() < deadline) await delay(50);
        assert.match(out, /^READY /m, `never ready: ${tail(err)}`);
        const session = await attachProfiled({ pid, intervalMs: 10, wall: true, cpu: true, libraryPath: PROFILER });
        await delay(1500);
        await session.detach();
        const cpu = samplesOf(session.stream.recording).filter((s) => s.flags & SampleFlags.Cpu);
        const heavy = sum(cpu.filter((s) => has(s, `${NS}CpuWork.Heavy`)), (s) => s.cpuNs);
        const light = sum(cpu.filter((s) => has(s, `${NS}CpuWork.Light`)), (s) => s.cpuNs);
        assert.ok(heavy > light && light > 0, `attached: Heavy ${heavy / 1e6} ms, Light ${light / 1e6} ms of CPU`);
        const until = Date.now() + 5000;
        while (readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope') && Date.now() < until) await delay(50);
        assert.ok(!readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope'), 'libclrscope unmapped after the detach');
        assert.equal(await exited, 6, tail(err));
        const scen = resultOf(out).scenarios as Record<string, Record<string, number>>;
        assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
  });
}
