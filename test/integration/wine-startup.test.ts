// clrscope's Windows profiler (native-profiler/build-windows/clrscope.dll) inside a real Windows
// CoreCLR: self-contained win-x64 .NET 10 programs run under Wine, loaded at startup through
// CORECLR_* variables, streaming over loopback TCP to a collector in this Linux process.
// Skipped, saying why, where wine64 is missing (scripts/setup-wine.sh installs it).
//
// What Wine cannot stand in for (README, "What is verified where"): Windows' own scheduler and
// timer resolution, ETW, the .NET Framework runtime. Under Wine GetThreadTimes advances in
// 10 ms steps and each capture is a few Wine server round trips, so fewer samples are taken
// than the interval asks for; the statistical bounds below are set for that and say so.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SampleFlags, SuspensionFlags, type SuspensionRecord } from '../../structs/wire/records.js';
import { decodeBlock, detectBitness } from '../../structs/ipcblock/decode.js';
import { IPC_BLOCK_SIZE } from '../../structs/ipcblock/layout.js';
import { startCollector } from '../../electron/services/collector/collector.js';
import { heavyLightSplit } from './support/cpu-split.js';
import { samplesOf, type SampleView } from './support/record-target.js';
import { resultOf } from './support/run-cli.js';
import {
  profiledWineEnvironment, readLog, recordUnderWine, startWine, wineEnvironment, wineSkipReason, windowsTarget, wineTool, type WineRun,
} from './support/wine.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const skip = wineSkipReason();
const NS = 'Clrscope.Targets.Scenarios.';
const has = (s: SampleView, name: string): boolean => s.frames.includes(name);
const sum = (samples: SampleView[], pick: (s: SampleView) => number): number => samples.reduce((a, s) => a + pick(s), 0);
const ROOTS = ['kernel32.dll!BaseThreadInitThunk', 'ntdll.dll!RtlUserThreadStart'];

describe('Windows CoreCLR under Wine: a mixed workload (cpu-ratio, sleep)', { skip }, () => {
  let run: WineRun;
  let samples: SampleView[];
  let result: Record<string, unknown>;

  before(async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'clrscope-wine-'));
    run = await recordUnderWine(windowsTarget('Scenarios'), ['cpu-ratio', 'sleep', '--seconds', '5', '--exit-code', '7'], { logPath: join(logDir, 'profiler.log') });
    samples = samplesOf(run.rec);
    result = resultOf(run.stdout);
    rmSync(logDir, { recursive: true, force: true });
  });

  it('leaves the program its output and exit code, and ends its stream cleanly', () => {
    assert.equal(run.exitCode, 7, run.stderr);
    assert.equal(result.exitCode, 7);
    assert.match(run.stderr, /Scenarios: done/);
    assert.equal(run.stream.state, 'ended', `the profiler ended its stream at runtime shutdown; log:\n${run.log}`);
    assert.equal(run.rec.meta?.pid, result.pid, 'HELLO carries the Windows process id');
  });

  it('splits CPU between Heavy and Light 3:1 (75% within 10 points, or 3.5 standard deviations of the samples taken)', (t) => {
    // Linux takes ~1,000 samples here. Under Wine a capture is several Wine server round trips
    // and waits for the target to be scheduled to stop, so on 2 busy cores there are far fewer
    // (35-300 seen in 6 s), each carrying CPU in 10 ms steps (0, 10, 20 ms...).
    const split = heavyLightSplit(samples, NS, 10);
    t.diagnostic(split.line);
    assert.ok(split.samples >= 30, `${split.samples} CPU samples in Burn`);
    assert.ok(Math.abs(split.share - 75) <= split.tolerance, split.line);
  });

  it('splits CPU between the burn threads 2:1, and the samples add up to their own CPU clocks', (t) => {
    const threads = result.threads as Record<string, { cpuMs: number }>;
    const cpuOf = (name: string): number => sum(samples.filter((s) => s.thread === name), (s) => s.cpuNs) / 1e6;
    const heavy = cpuOf('burn-heavy');
    const light = cpuOf('burn-light');
    const share = (100 * heavy) / (heavy + light);
    t.diagnostic(`burn-heavy ${share.toFixed(1)}%; sampled ${heavy.toFixed(0)}/${light.toFixed(0)} ms, measured ${threads['burn-heavy'].cpuMs}/${threads['burn-light'].cpuMs} ms`);
    assert.ok(Math.abs(share - 66.7) <= 8, `burn-heavy has ${share.toFixed(1)}% of the two threads' CPU`);
    // Each CPU sample carries the CPU since the thread's previous one, so the sum is the thread's
    // own clock less what it used after its last capture (a few capture periods under Wine).
    for (const [name, measured] of [['burn-heavy', heavy], ['burn-light', light]] as const) {
      const own = threads[name].cpuMs;
      assert.ok(measured <= own + 10 && measured >= own - Math.max(150, 0.15 * own), `${name}: samples sum to ${measured.toFixed(1)} ms, the thread measured ${own} ms`);
    }
  });

  it('shows the sleeping thread in wall time, under Thread.Sleep <- SleepWork.Doze, and not in CPU time', () => {
    const sleeper = samples.filter((s) => s.thread === 'sleeper');
    const wallMs = sum(sleeper, (s) => s.wallNs) / 1e6;
    const cpuMs = sum(sleeper, (s) => s.cpuNs) / 1e6;
    assert.ok(wallMs > 4300 && wallMs < 6000, `sleeper wall ${wallMs.toFixed(0)} ms over a 5 s sleep`);
    // Under Wine each wake-up and each suspension is a Wine server round trip, and the 10 ms CPU
    // clock charges whole ticks to whoever runs as one fires: a few tens of ms over 5 s.
    const own = (result.threads as Record<string, { cpuMs: number }>).sleeper.cpuMs;
    assert.ok(cpuMs <= own + 10 && cpuMs < 0.02 * wallMs, `sleeper CPU ${cpuMs.toFixed(1)} ms sampled, ${own} ms measured, over ${wallMs.toFixed(0)} ms of wall time`);
    const inDoze = sum(sleeper.filter((s) => has(s, `${NS}SleepWork.Doze`) && has(s, 'System.Threading.Thread.Sleep')), (s) => s.wallNs) / 1e6;
    assert.ok(inDoze > 0.9 * wallMs, `${inDoze.toFixed(0)} of ${wallMs.toFixed(0)} ms under Thread.Sleep <- SleepWork.Doze`);
  });

  it('roots stacks at the thread\'s entry (BaseThreadInitThunk) through the runtime\'s frames, managed frames named', (t) => {
    const complete = samples.filter((s) => !(s.flags & SampleFlags.Incomplete));
    t.diagnostic(`incomplete stacks: ${samples.length - complete.length} of ${samples.length} samples (${((100 * (samples.length - complete.length)) / samples.length).toFixed(1)}%)`);
    assert.ok(complete.length >= 0.95 * samples.length, `${complete.length} of ${samples.length} samples complete`);
    for (const s of complete) assert.ok(ROOTS.includes(s.frames[s.frames.length - 1]), `a complete stack ends at the thread's start: ${s.frames.join(' <- ')}`);
    const burn = samples.filter((s) => s.thread === 'burn-heavy' && s.flags & SampleFlags.Cpu);
    const rooted = burn.filter((s) => {
      const managed = s.frames.filter((f) => f.startsWith('System.') || f.startsWith('Clrscope.'));
      // Leaf first: the burn loop, then Burn, then the runtime's managed thread entry.
      return managed.length >= 3 && managed[managed.length - 1] === 'System.Threading.Thread.StartCallback' &&
        managed[managed.length - 2] === `${NS}CpuWork.Burn` && !(s.flags & SampleFlags.Incomplete);
    });
    assert.ok(burn.length > 0 && rooted.length >= 0.95 * burn.length, `${rooted.length} of ${burn.length} burn-heavy CPU samples are Burn <- StartCallback <- … <- the thread's start`);
  });
});

interface Settled {
  pid: number;
  counts: { gcCollectionCount: number[]; exceptionsThrown: number; totalPauseDurationMs: number };
}

describe('Windows CoreCLR under Wine: GC pauses and the counters block of a program with known counts', { skip }, () => {
  let run: WineRun;
  let settled: Settled;
  let block: ReturnType<typeof decodeBlock>;
  let gcs: readonly SuspensionRecord[];
  let result: { gcCollectionCount: number[]; gcCollectionCountAtStart: number[]; totalPauseDurationMs: number; inducedOutcome: Record<string, Record<string, number>>; inducedCalls: { gcs: number; pauseMs: number }[] };

  before(async () => {
    const collector = await startCollector({ listen: 'tcp' });
    const logDir = mkdtempSync(join(tmpdir(), 'clrscope-wine-'));
    const logPath = join(logDir, 'profiler.log');
    try {
      const target = startWine(windowsTarget('GcLoad'), ['--gen0', '5', '--gen1', '3', '--gen2', '2', '--allocate-mb', '100', '--exceptions', '100', '--threads', '10', '--wait-at-end', '2500'],
        profiledWineEnvironment(collector, { logPath }));
      settled = await target.line('SETTLED') as Settled;
      // The sampler republishes the block every interval; let one pass after the counts settled.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The mapping is a Wine server object: read by a Windows process in the same prefix.
      const reader = startWine(wineTool('read-mapping'), [String(settled.pid), String(IPC_BLOCK_SIZE), '--wait-ms', '2000'], wineEnvironment());
      const code = await reader.exited;
      assert.equal(code, 0, `read-mapping: ${reader.stderr}`);
      const bytes = Buffer.from(reader.stdout.trim(), 'hex');
      block = decodeBlock(bytes, detectBitness(bytes));
      const exitCode = await target.exited;
      assert.equal(exitCode, 0, target.stderr);
      result = resultOf(target.stdout) as unknown as typeof result;
      const [stream] = collector.streams;
      assert.ok(stream !== undefined, `no stream; log:\n${await readLog(logPath)}`);
      await Promise.race([stream.closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      run = { exitCode, stream, rec: stream.recording, stdout: target.stdout, stderr: target.stderr, log: await readLog(logPath) };
      gcs = run.rec.suspensions().filter((s) => s.generation >= 0);
    } finally {
      await collector.close();
      rmSync(logDir, { recursive: true, force: true });
    }
  });

  it('sees every collection the runtime counted, per generation, and marks the induced ones', () => {
    for (let g = 0; g < 3; g++) {
      const seen = gcs.filter((s) => s.generation >= g).length;
      assert.equal(seen, result.gcCollectionCount[g] - result.gcCollectionCountAtStart[g], `generation ${g}`);
    }
    const induced = Object.values(result.inducedOutcome).reduce((a, o) => a + o.gen0 + o.gen1 + o.gen2, 0);
    assert.equal(gcs.filter((s) => s.flags & SuspensionFlags.Induced).length, induced);
  });

  it('measures each induced GC pause as GC.GetTotalPauseDuration() does, and sums no more than it', (t) => {
    const measuredMs = gcs.reduce((a, s) => a + s.durationNs, 0) / 1e6;
    const suspendMs = gcs.reduce((a, s) => a + s.suspendNs, 0) / 1e6;
    const runtimeMs = result.totalPauseDurationMs;
    t.diagnostic(`clrscope ${measuredMs.toFixed(3)} ms over ${gcs.length} GC pauses (${suspendMs.toFixed(3)} ms of it suspending), runtime ${runtimeMs.toFixed(3)} ms`);
    // Pause by pause: each GC.Collect call saw one GC, whose length is the rise of
    // GC.GetTotalPauseDuration over the call; ours are the induced suspensions in the same order.
    assert.ok(result.inducedCalls.length > 0 && result.inducedCalls.every((c) => c.gcs === 1), JSON.stringify(result.inducedCalls));
    const induced = gcs.filter((s) => s.flags & SuspensionFlags.Induced);
    assert.equal(induced.length, result.inducedCalls.length);
    const inOrder = induced.map((s, i) => s.durationNs / 1e6 - result.inducedCalls[i].pauseMs);
    t.diagnostic(`ours minus the runtime's, per induced pause in order (ms): ${inOrder.map((d) => d.toFixed(3)).join(' ')}`);
    const diffs = [...inOrder].sort((a, b) => a - b);
    const median = diffs[diffs.length >> 1];
    // The typical pause agrees within 0.05 ms (measured idle and at load 5). Two effects move single
    // pauses, so the median is what is judged:
    // - The runtime's clock starts a pause before SuspendEE takes the thread store lock and calls
    //   RuntimeSuspendStarted. Under Wine that lock is a Wine server object, and about one run in
    //   three has one pause where the runtime counts 1-7 ms more than we do (idle machine), all of
    //   it before our bracket: most likely the wait for that lock (the program starts and ends
    //   threads, which take it), while no thread of the program is stopped yet. On a loaded machine a
    //   GC thread preempted in that stretch does the same. Our pause is the stop-the-world the
    //   program's threads see (README); a pause missed outright is caught by the counts above.
    // - A pause ends for us at RuntimeResumeFinished, after the runtime has restarted every thread
    //   it stopped, each a ResumeThread through the Wine server, which the runtime's own clock has
    //   stopped counting by then: 0.02 ms idle, up to 7 ms on a loaded machine.
    // What real Windows shows here is not proven by this test.
    const WINE_LOCK_MS_PER_PAUSE = 0.15;
    const WINE_RESTART_MS_PER_PAUSE = 1.5;
    assert.ok(median >= -WINE_LOCK_MS_PER_PAUSE && median <= WINE_RESTART_MS_PER_PAUSE, `median difference ${median} ms`);
    // The sum takes in every pause, natural ones too: it can exceed the runtime's by no more than
    // the restarts allow. Below, a single lock wait moves it by more than the pauses themselves.
    const tolerance = Math.max(0.05 * runtimeMs, 1);
    assert.ok(measuredMs <= runtimeMs + tolerance + gcs.length * WINE_RESTART_MS_PER_PAUSE, `clrscope ${measuredMs} ms, runtime ${runtimeMs} ms`);
  });

  it('publishes the program\'s own counts in the named mapping Local\\clrscope-<pid>', () => {
    const { gc } = block;
    assert.equal(block.bitness, 64);
    assert.ok(block.stable && block.updating, 'a consistent copy of a block its writer still updates');
    assert.equal(gc.processID, settled.pid);
    // Seen once in a fresh-clone run: a stable, updating block with this pid and no collections
    // while the stream had all 16. The whole block and the log say whose block it was next time.
    const seen = `block ${JSON.stringify({ header: block.header, gc, exceptions: block.exceptions, threads: block.locksAndThreads })}\nprofiler log:\n${run.log}`;
    assert.deepEqual([gc.genCollections0, gc.genCollections1, gc.genCollections2], settled.counts.gcCollectionCount, seen);
    assert.equal(block.exceptions.thrown, settled.counts.exceptionsThrown, seen);
  });
});
