// The profiler's own corner cases against real programs (issue 10): a thread that hops between
// waits, on-stack replacement, the threads the runtime never reports (server GC), idle threads
// after an attach, and dynamic methods.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { SampleFlags } from '../../structs/wire/records.js';
import { targetDll } from './support/paths.js';
import { recordTarget, samplesOf, type SampleView, type TargetRun } from './support/record-target.js';
import { resultOf, runCli } from './support/run-cli.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-corners-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sum = (samples: SampleView[], pick: (s: SampleView) => number): number => samples.reduce((a, s) => a + pick(s), 0);

describe('a thread that hops between two waits with next to no CPU between them', () => {
  it('is answered from a fresh stack after every hop: wall time splits as the waits do', async (t) => {
    const run = await recordTarget(targetDll('Scenarios'), ['hop', '--seconds', '4']);
    assert.equal(run.result.exitCode, 0);
    const hopper = samplesOf(run.rec).filter((s) => s.thread === 'hopper' && s.flags & SampleFlags.Wall);
    const inA = sum(hopper.filter((s) => s.frames.includes(`${NS}HopWork.WaitInA`)), (s) => s.wallNs);
    const inB = sum(hopper.filter((s) => s.frames.includes(`${NS}HopWork.WaitInB`)), (s) => s.wallNs);
    // 20 ms in A, 60 ms in B, every round.
    const shareB = (100 * inB) / (inA + inB);
    t.diagnostic(`WaitInB ${shareB.toFixed(1)}% of the hopper's waiting (expected 75%), ${hopper.length} wall samples`);
    assert.ok(Math.abs(shareB - 75) <= 8, `WaitInB has ${shareB.toFixed(1)}% of the hopper's wall time`);
  });
});

describe('on-stack replacement', () => {
  it('walks from the optimized frame to the real caller, with the method once', async (t) => {
    const run = await recordTarget(targetDll('Scenarios'), ['osr', '--seconds', '3']);
    assert.equal(run.result.exitCode, 0);
    const burn = `${NS}OsrWork.Burn`;
    const cpu = samplesOf(run.rec).filter((s) => s.flags & SampleFlags.Cpu && s.frames[0] === burn);
    assert.ok(cpu.length > 20, `only ${cpu.length} CPU samples in Burn`);
    const underCaller = cpu.filter((s) => /OsrWork\+.*d__\d+\.MoveNext$/.test(s.frames[1] ?? ''));
    const twice = cpu.filter((s) => s.frames[1] === burn);
    t.diagnostic(`${underCaller.length}/${cpu.length} of Burn's CPU samples have ScoreAsync's MoveNext as the caller; ${twice.length} show Burn twice`);
    assert.ok(underCaller.length >= cpu.length * 0.9, `${underCaller.length} of ${cpu.length} samples reach ScoreAsync`);
    assert.equal(twice.length, 0, 'Burn ← Burn');
  });
});

describe('threads the runtime does not report (server GC)', () => {
  let run: TargetRun;
  before(async () => {
    const saved = process.env.DOTNET_gcServer;
    process.env.DOTNET_gcServer = '1';
    try {
      run = await recordTarget(targetDll('Scenarios'), ['gc-churn', '--seconds', '8']);
    } finally {
      if (saved === undefined) delete process.env.DOTNET_gcServer;
      else process.env.DOTNET_gcServer = saved;
    }
  });

  it('samples the GC threads for CPU, named as the runtime names them', () => {
    const facts = (resultOf(run.stdout).scenarios as Record<string, Record<string, unknown>>)['gc-churn'];
    assert.equal(facts.serverGc, true);
    const gc = samplesOf(run.rec).filter((s) => s.thread.startsWith('.NET Server GC') && s.flags & SampleFlags.Cpu);
    assert.ok(gc.length > 0, `no CPU samples on server GC threads; threads: ${run.rec.threads().map((x) => x.name).join(', ')}`);
  });

  it('accounts for the process\'s CPU time within 3% over the work', (t) => {
    const facts = (resultOf(run.stdout).scenarios as Record<string, Record<string, number>>)['gc-churn'];
    // The profiler's own threads are left out of the profile (the program's CPU is what it
    // shows); the target reads their CPU from /proc and it is taken out of the process's.
    const own = facts.endProfilerThreadsCpuMs - facts.startProfilerThreadsCpuMs;
    assert.deepEqual(run.rec.threads().filter((x) => x.name.startsWith('clrscope')).map((x) => x.name), [], 'the profiler\'s own threads are not in the profile');
    const process = facts.endProcessCpuMs - facts.startProcessCpuMs - own;
    let sampled = 0;
    run.rec.forEachSample((_i, mono, _thread, _stack, cpuNs) => {
      if (mono >= facts.startMonoNs && mono <= facts.endMonoNs) sampled += cpuNs / 1e6;
    });
    t.diagnostic(`samples: ${sampled.toFixed(0)} ms of CPU; the process: ${process.toFixed(0)} ms over the same span, not counting the profiler's own threads' ${own.toFixed(0)} ms`);
    // Each thread's last partial interval (at most 10 ms of CPU) falls outside the span's samples.
    const threads = run.rec.threads().length;
    assert.ok(Math.abs(sampled - process) <= process * 0.03 + threads * 2, `sampled ${sampled.toFixed(0)} ms vs ${process.toFixed(0)} ms`);
  });
});

describe('attached to a process whose threads are idle', () => {
  it('walks their stacks fully: under 2% of wall time is an incomplete stack', async (t) => {
    const child = spawn('dotnet', [targetDll('Scenarios'), 'lock', 'sleep', 'hop', '--seconds', '10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 20000;
      while (!out.includes('READY') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      const file = join(dir, 'idle.clrscope');
      const r = await runCli(['record', '--pid', String(child.pid), '--duration', '3', '-o', file]);
      assert.equal(r.code, 0, r.stderr);
      const { recording } = await readRecordingFile(file);
      let wall = 0;
      let incomplete = 0;
      recording.forEachSample((_i, _mono, _thread, _stack, _cpu, wallNs, flags) => {
        wall += wallNs;
        if (flags & SampleFlags.Incomplete) incomplete += wallNs;
      });
      const share = (100 * incomplete) / wall;
      t.diagnostic(`incomplete stacks: ${share.toFixed(2)}% of ${(wall / 1e9).toFixed(1)} s of wall time`);
      assert.ok(wall > 0);
      assert.ok(share < 2, `${share.toFixed(2)}% of wall time is incomplete`);
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('dynamic methods (expression trees, minimal-API delegates)', () => {
  it('are named as the runtime names them, not as one unnamed frame', async () => {
    const run = await recordTarget(targetDll('Scenarios'), ['lcg', '--seconds', '2']);
    assert.equal(run.result.exitCode, 0);
    const cpu = samplesOf(run.rec).filter((s) => s.thread === 'lcg-main' && s.flags & SampleFlags.Cpu);
    const named = cpu.filter((s) => /^dynamicClass\.lambda_method\d+$/.test(s.frames[0] ?? ''));
    assert.ok(cpu.length > 10);
    assert.ok(named.length >= cpu.length * 0.8, `${named.length} of ${cpu.length} samples in a named dynamic method; leaves: ${[...new Set(cpu.map((s) => s.frames[0]))].slice(0, 5).join(', ')}`);
    assert.ok(cpu.every((s) => !s.frames.includes('?.?')), 'no unnamed frames');
  });
});
