// What collecting garbage costs, as a [GC] frame in CPU profiles (issue 12, "GC CPU"), against
// real programs: with server GC the collector's own threads have it as the root of every stack;
// with workstation GC the allocating thread that performs a collection has it between its
// managed frames and the runtime's; a program that does not allocate has next to none. The frame
// reads back through go tool pprof, speedscope, TraceEvent (nettrace) and `clrscope report`.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { GC_FRAME_NAME } from '../../structs/profile/frame-label.js';
import { INCOMPLETE_STACK_NAME } from '../../structs/profile/recording.js';
import { SampleFlags } from '../../structs/wire/records.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { recordTarget, samplesOf, type SampleView, type TargetRun } from './support/record-target.js';
import { resultOf, runCli } from './support/run-cli.js';
import { traceCheck, traceCheckBuilt } from './support/trace-check.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-cpu-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Server GC's heap threads, and the background GC threads (which the runtime reports to the profiler
// by their short name).
const COLLECTOR_THREAD = /^\.NET (Server GC|Background GC|BGC)$/;

async function recordWith(env: Record<string, string>, args: string[]): Promise<TargetRun> {
  // Only the GC settings differ from the test's own environment.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^DOTNET_(gcServer|gcConcurrent|GCgen0size)$/i.test(k)));
  return recordTarget(targetDll('Scenarios'), args, { env: { ...base, ...env } });
}

const cpuOf = (samples: SampleView[]): number => samples.reduce((a, s) => a + s.cpuNs, 0);
const underGc = (s: SampleView): boolean => s.frames.includes(GC_FRAME_NAME);
/** The stack's root end without the reader's [incomplete stack] marker. */
const rootOf = (s: SampleView): string | undefined => {
  const n = s.frames.length;
  return s.frames[n - 1] === INCOMPLETE_STACK_NAME ? s.frames[n - 2] : s.frames[n - 1];
};

describe('server GC: the collector threads', () => {
  let run: TargetRun;
  let file: string;
  before(async () => {
    run = await recordWith({ DOTNET_gcServer: '1' }, ['gc-churn', '--seconds', '4']);
    file = join(dir, 'server.clrscope');
    writeFileSync(file, saveRecording(run.rec));
  });

  it('have [GC] at the root of every CPU sample, and it holds a real share of the CPU', (t) => {
    const facts = (resultOf(run.stdout).scenarios as Record<string, Record<string, unknown>>)['gc-churn'];
    assert.equal(facts.serverGc, true);
    const samples = samplesOf(run.rec).filter((s) => s.flags & SampleFlags.Cpu);
    const collector = samples.filter((s) => COLLECTOR_THREAD.test(s.thread));
    assert.ok(collector.length >= 5, `${collector.length} CPU samples on collector threads; threads: ${run.rec.threads().map((x) => x.name).join(', ')}`);
    const misplaced = collector.filter((s) => rootOf(s) !== GC_FRAME_NAME || s.frames.filter((f) => f === GC_FRAME_NAME).length !== 1);
    assert.deepEqual(misplaced.slice(0, 3).map((s) => `${s.thread}: ${s.frames.join(' <- ')}`), [], `${misplaced.length} of ${collector.length} collector samples without [GC] as their one root`);
    const incomplete = collector.filter((s) => s.frames.at(-1) === INCOMPLETE_STACK_NAME).length;
    const share = cpuOf(samples.filter(underGc)) / cpuOf(samples);
    const elsewhere = new Map<string, number>();
    for (const s of samples) if (underGc(s) && !COLLECTOR_THREAD.test(s.thread)) elsewhere.set(s.thread, (elsewhere.get(s.thread) ?? 0) + s.cpuNs / 1e6);
    t.diagnostic(`[GC] ${(100 * share).toFixed(1)}% of ${(cpuOf(samples) / 1e9).toFixed(2)} s of CPU; ${collector.length} collector samples, ${incomplete} of them incomplete; `
      + `[GC] on other threads (ms): ${[...elsewhere].map(([n, v]) => `${n} ${v.toFixed(0)}`).join(', ') || 'none'}`);
    assert.ok(share > 0.05, `[GC] has ${(100 * share).toFixed(1)}% of the CPU`);
  });

  it('reads back through go tool pprof, speedscope, TraceEvent and clrscope report', async (t) => {
    const samples = samplesOf(run.rec).filter((s) => s.flags & SampleFlags.Cpu);
    const gcMs = cpuOf(samples.filter(underGc)) / 1e6;
    const pb = join(dir, 'server.pb.gz');
    const speedscope = join(dir, 'server.speedscope.json');
    const nettrace = join(dir, 'server.nettrace');
    for (const out of [pb, speedscope, nettrace]) {
      const r = await runCli(['convert', file, '-o', out]);
      assert.equal(r.code, 0, r.stderr);
    }
    if (goAvailable()) {
      const row = parseTop(goPprof(['-top', '-sample_index=cpu', '-nodecount=1000'], pb)).find((x) => x.name === GC_FRAME_NAME);
      assert.ok(row !== undefined, 'go tool pprof lists [GC]');
      t.diagnostic(`go tool pprof: [GC] cum ${(row.cum * 1000).toFixed(0)} ms; the recording: ${gcMs.toFixed(0)} ms`);
      assert.ok(Math.abs(row.cum * 1000 - gcMs) <= gcMs * 0.01 + 1, `pprof's [GC] ${row.cum * 1000} ms vs ${gcMs} ms`);
    } else {
      t.diagnostic('go is not installed: pprof not read back');
    }
    const ss = JSON.parse(readFileSync(speedscope, 'utf8')) as { shared: { frames: { name: string }[] } };
    assert.ok(ss.shared.frames.some((f) => f.name === GC_FRAME_NAME), 'speedscope has the [GC] frame');
    if (traceCheckBuilt()) {
      const methods = traceCheck(nettrace).methods.filter((m) => m.method.endsWith(GC_FRAME_NAME));
      assert.ok(methods.length > 0 && methods.some((m) => m.inclusive > 0), `TraceEvent names [GC]: ${JSON.stringify(methods)}`);
    }
    const report = await runCli(['report', file, '--sample-type', 'cpu', '--format', 'json']);
    assert.equal(report.code, 0, report.stderr);
    const gc = (JSON.parse(report.stdout) as { gc?: { total: number; totalPercent: number } }).gc;
    assert.ok(gc !== undefined, 'the report has a gc section');
    assert.ok(Math.abs(gc.total / 1e6 - gcMs) <= gcMs * 0.01 + 1, `report's [GC] ${gc.total / 1e6} ms vs ${gcMs} ms`);
    const text = await runCli(['report', file, '--sample-type', 'cpu']);
    assert.match(text.stdout, /Garbage collection \(\[GC\] frames\): [\d.]+% of cpu time/);
  });
});

describe('workstation GC: the allocating thread collects', () => {
  let run: TargetRun;
  before(async () => {
    // Blocking collections only, and a small gen0 so they come often: every one runs on the
    // churn thread whose allocation triggered it.
    run = await recordWith({ DOTNET_gcServer: '0', DOTNET_gcConcurrent: '0', DOTNET_GCgen0size: '0x400000' }, ['gc-churn', '--seconds', '4']);
  });

  it('puts [GC] between the allocating method and the runtime, on that thread', (t) => {
    const samples = samplesOf(run.rec).filter((s) => s.flags & SampleFlags.Cpu);
    const churn = samples.filter((s) => s.thread.startsWith('churn-'));
    const collecting = churn.filter(underGc);
    assert.ok(collecting.length >= 3, `${collecting.length} of ${churn.length} churn CPU samples under [GC]`);
    // Above the allocating method: the frame toward the root from [GC] is managed code of the
    // program (the churn loop, or the runtime's managed allocation path it called).
    const callers = new Map<string, number>();
    for (const s of collecting) {
      const caller = s.frames[s.frames.indexOf(GC_FRAME_NAME) + 1] ?? '(root)';
      callers.set(caller, (callers.get(caller) ?? 0) + 1);
    }
    const underChurn = collecting.filter((s) => s.frames.slice(s.frames.indexOf(GC_FRAME_NAME) + 1).includes(`${NS}ChurnWork.Churn`));
    const nativeCaller = collecting.filter((s) => /^\[.*\]$|!/.test(s.frames[s.frames.indexOf(GC_FRAME_NAME) + 1] ?? '[root]') && s.frames[s.frames.indexOf(GC_FRAME_NAME) + 1] !== INCOMPLETE_STACK_NAME);
    const share = cpuOf(collecting) / cpuOf(churn);
    t.diagnostic(`[GC] ${(100 * share).toFixed(1)}% of the churn threads' CPU; callers of [GC]: ${[...callers].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, c]) => `${n} ×${c}`).join(', ')}`);
    assert.ok(underChurn.length >= collecting.length * 0.9, `${underChurn.length} of ${collecting.length} under ChurnWork.Churn`);
    assert.equal(nativeCaller.length, 0, `a native frame right above [GC]: ${nativeCaller.slice(0, 2).map((s) => s.frames.join(' <- ')).join(' | ')}`);
    assert.ok(share > 0.02, `[GC] has ${(100 * share).toFixed(1)}% of the churn threads' CPU`);
    assert.equal(samples.filter((s) => COLLECTOR_THREAD.test(s.thread)).length, 0, 'no collector threads with blocking workstation GC');
  });
});

describe('a program that only computes', () => {
  it('has next to no [GC]', async (t) => {
    const run = await recordWith({}, ['cpu-ratio', '--seconds', '2']);
    const samples = samplesOf(run.rec).filter((s) => s.flags & SampleFlags.Cpu);
    const share = cpuOf(samples.filter(underGc)) / cpuOf(samples);
    t.diagnostic(`[GC] ${(100 * share).toFixed(2)}% of ${(cpuOf(samples) / 1e9).toFixed(2)} s of CPU`);
    assert.ok(samples.length >= 20, `${samples.length} CPU samples`);
    assert.ok(share < 0.005, `[GC] has ${(100 * share).toFixed(2)}% of a CPU-only program's CPU`);
  });
});
