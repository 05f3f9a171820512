// The engine against real .NET programs with known behaviour (test/targets/Scenarios): CPU
// split, wall time of sleeping and blocked threads, stack roots, deep recursion, many
// short-lived threads, async code, exceptions, P/Invoke.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SampleFlags } from '../../structs/wire/records.js';
import { resultOf } from './support/run-cli.js';
import { targetDll } from './support/paths.js';
import { heavyLightSplit } from './support/cpu-split.js';
import { recordTarget, samplesOf, type SampleView, type TargetRun } from './support/record-target.js';

const has = (s: SampleView, name: string): boolean => s.frames.some((f) => f === name);
const NS = 'Clrscope.Targets.Scenarios.';

function sum(samples: SampleView[], pick: (s: SampleView) => number): number {
  return samples.reduce((a, s) => a + pick(s), 0);
}

describe('a mixed workload (cpu-ratio, sleep, lock, async, exceptions, pinvoke)', () => {
  let run: TargetRun;
  let samples: SampleView[];
  let result: Record<string, unknown>;

  before(async () => {
    // 1 ms asks for a CPU sample per millisecond of CPU; the kernel delivers CPU-time timers on
    // scheduler ticks (4 ms at HZ=250), which still gives ~1,000 samples for the 3:1 split.
    run = await recordTarget(targetDll('Scenarios'), ['cpu-ratio', 'sleep', 'lock', 'async', 'exceptions', 'pinvoke', '--seconds', '3', '--exit-code', '5'], { intervalMs: 1 });
    samples = samplesOf(run.rec);
    result = resultOf(run.stdout);
  });

  it('leaves the program its output and exit code', () => {
    assert.equal(run.result.exitCode, 5);
    assert.match(run.stderr, /Scenarios: done/);
    assert.equal(result.exitCode, 5);
    assert.equal(run.result.stream?.state, 'ended', 'the profiler ended its stream cleanly at runtime shutdown');
  });

  it('splits CPU between Heavy and Light 3:1 (75% within 5 points, or 3.5 standard deviations of the samples taken)', (t) => {
    const split = heavyLightSplit(samples, NS, 5);
    t.diagnostic(split.line);
    assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
  });

  it('splits CPU between the burn threads 2:1 and matches their own CPU clocks', (t) => {
    const threads = result.threads as Record<string, { cpuMs: number }>;
    const cpuOf = (name: string): number => sum(samples.filter((s) => s.thread === name), (s) => s.cpuNs) / 1e6;
    const heavy = cpuOf('burn-heavy');
    const light = cpuOf('burn-light');
    const share = (100 * heavy) / (heavy + light);
    t.diagnostic(`burn-heavy ${share.toFixed(1)}%; sampled ${heavy.toFixed(0)}/${light.toFixed(0)} ms, measured ${threads['burn-heavy'].cpuMs}/${threads['burn-light'].cpuMs} ms`);
    assert.ok(Math.abs(share - 66.7) <= 5, `burn-heavy has ${share.toFixed(1)}% of the two threads' CPU`);
    // Each CPU sample carries the CPU the thread used since its last one, so the sum is the
    // thread's CPU time less at most one interval.
    for (const [name, measured] of [['burn-heavy', heavy], ['burn-light', light]] as const) {
      const own = threads[name].cpuMs;
      assert.ok(measured <= own + 1 && measured >= own - 15, `${name}: samples sum to ${measured.toFixed(1)} ms, the thread measured ${own} ms`);
    }
  });

  it('shows the sleeping thread in wall time and not in CPU time', () => {
    const sleeper = samples.filter((s) => s.thread === 'sleeper');
    const wallMs = sum(sleeper, (s) => s.wallNs) / 1e6;
    const cpuMs = sum(sleeper, (s) => s.cpuNs) / 1e6;
    assert.ok(wallMs > 2500 && wallMs < 4000, `sleeper wall ${wallMs.toFixed(0)} ms over a 3 s sleep`);
    assert.ok(cpuMs < 50, `sleeper CPU ${cpuMs.toFixed(1)} ms`);
    const inDoze = sum(sleeper.filter((s) => has(s, `${NS}SleepWork.Doze`) && has(s, 'System.Threading.Thread.Sleep')), (s) => s.wallNs) / 1e6;
    assert.ok(inDoze > 0.9 * wallMs, `${inDoze.toFixed(0)} of ${wallMs.toFixed(0)} ms under Thread.Sleep <- SleepWork.Doze`);
  });

  it('roots stacks at the thread entry point: StartCallback for threads, Main for the main thread', () => {
    const burn = samples.filter((s) => s.thread === 'burn-heavy' && s.flags & SampleFlags.Cpu);
    const rooted = burn.filter((s) => {
      const managed = s.frames.filter((f) => f.startsWith('System.') || f.startsWith('Clrscope.'));
      return managed[managed.length - 1] === 'System.Threading.Thread.StartCallback' && !(s.flags & SampleFlags.Incomplete);
    });
    assert.ok(rooted.length >= 0.95 * burn.length, `${rooted.length} of ${burn.length} burn-heavy samples rooted at StartCallback and complete`);
    const main = samples.filter((s) => s.threadId === run.rec.threads().find((t) => t.osTid === run.rec.meta?.pid)?.id && s.wallNs > 0);
    assert.ok(main.length > 0, 'the main thread was sampled');
    const inMain = main.filter((s) => has(s, `${NS}Program.Main`) && !(s.flags & SampleFlags.Incomplete));
    assert.ok(inMain.length >= 0.9 * main.length, `${inMain.length} of ${main.length} main-thread samples complete and under Program.Main`);
  });

  it('merges the blocked lock waiters under one trunk', () => {
    const trunk = [`${NS}LockWork.Wait`, 'System.Threading.Monitor.Enter'];
    for (const name of ['lock-waiter-1', 'lock-waiter-2', 'lock-waiter-3']) {
      const waiter = samples.filter((s) => s.thread === name && s.wallNs > 0);
      const blocked = waiter.filter((s) => trunk.every((f) => has(s, f)));
      assert.ok(waiter.length > 0 && blocked.length >= 0.8 * waiter.length, `${name}: ${blocked.length} of ${waiter.length} wall samples blocked in Monitor.Enter under LockWork.Wait`);
    }
    const holder = samples.filter((s) => s.thread === 'lock-holder' && s.wallNs > 0);
    assert.ok(holder.some((s) => has(s, `${NS}LockWork.Hold`)), 'the holder sleeps inside LockWork.Hold');
  });

  it('names async, exception and P/Invoke work', () => {
    const scen = result.scenarios as Record<string, Record<string, number>>;
    assert.equal(scen.exceptions.caught, scen.exceptions.thrown, 'every exception was caught');
    assert.ok(samples.some((s) => s.frames.some((f) => f.startsWith(`${NS}AsyncWork.`))), 'async work appears in stacks');
    assert.ok(samples.some((s) => has(s, `${NS}PInvokeWork.CallNative`)), 'the P/Invoke caller appears in stacks');
  });
});

describe('10,000-frame recursion', () => {
  it('does not crash or hang the target, and keeps the root of the elided stack', async () => {
    const run = await recordTarget(targetDll('Scenarios'), ['recursion', '--seconds', '2']);
    assert.equal(run.result.exitCode, 0);
    const r = resultOf(run.stdout).scenarios as Record<string, Record<string, number>>;
    assert.equal(r.recursion.maxDepth, 10000);
    const deep = samplesOf(run.rec).filter((s) => s.thread === 'deep' && s.flags & SampleFlags.Cpu && has(s, `${NS}Recursion.Bottom`));
    assert.ok(deep.length > 10, `${deep.length} CPU samples at the bottom of the recursion`);
    for (const s of deep) {
      assert.ok(s.flags & SampleFlags.Elided, 'a 10,000-frame stack is marked elided');
      assert.ok(s.frames.includes('[frames elided]'));
      const managed = s.frames.filter((f) => f.startsWith('System.') || f.startsWith('Clrscope.'));
      assert.equal(managed[managed.length - 1], 'System.Threading.Thread.StartCallback', 'the outermost frames are kept');
    }
  });
});

describe('200 short-lived threads', () => {
  it('registers and ends every thread and keeps the program correct', async () => {
    const run = await recordTarget(targetDll('Scenarios'), ['threads']);
    assert.equal(run.result.exitCode, 0);
    const r = resultOf(run.stdout).scenarios as Record<string, Record<string, number>>;
    assert.equal(r.threads.completed, 200);
    const short = run.rec.threads().filter((t) => /^short-\d+$/.test(t.name));
    assert.equal(short.length, 200, 'every short thread announced with its name');
    assert.ok(short.every((t) => t.ended), 'every short thread ended');
    const ids = new Set(short.map((t) => t.id));
    assert.equal(ids.size, 200, 'wire thread ids are never reused');
  });
});
