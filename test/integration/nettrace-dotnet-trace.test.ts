// dotnet-trace files read as TraceEvent reads them: real programs recorded by dotnet-trace with its
// default profiles (the runtime's sample profiler on), then opened by clrscope and by
// test/tools/TraceCheck (TraceEvent 4). The sampler suspends the runtime for every tick (reason
// "other", no GC): TraceEvent's GC statistics follow only suspensions for a GC, and so must ours.
// The file has no CPU clock: the CPU is PerfView's thread time (a managed sample is worth the
// time until its thread's next sample), marked as estimated in report's text and JSON and in the
// pprof export's comments, and a thread the sampler stopped at a GC poll is charged to the method
// that was running, not to Thread.PollGC.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { summarizePauses } from '../../structs/profile/pause-summary.js';
import { dotnetTrace } from './support/dotnet-trace.js';
import { targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { traceCheck } from './support/trace-check.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-dotnet-trace-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** COR_PRF_SUSPEND_OTHER: the reason the sample profiler suspends the runtime with. */
const SUSPEND_OTHER = 0;

function record(t: { skip: (why: string) => void }, name: string, args: string[]): string | undefined {
  const tool = dotnetTrace();
  if (tool.path === undefined) {
    if (process.env.CI) assert.fail(`dotnet-trace is needed under CI: ${tool.why ?? ''}`);
    t.skip(tool.why ?? 'dotnet-trace not available');
    return undefined;
  }
  const file = join(dir, `${name}.nettrace`);
  const r = spawnSync(tool.path, ['collect', '-o', file, '--', 'dotnet', ...args], { encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, `dotnet-trace collect failed: ${r.stderr}`);
  return file;
}

describe('a dotnet-trace recording, read as TraceEvent reads it', () => {
  it('keeps the GC pauses and none of the sample profiler\'s own suspensions', async (t) => {
    const file = record(t, 'gcload', [targetDll('GcLoad'), '--gen0', '20', '--gen1', '5', '--gen2', '3', '--allocate-mb', '300', '--threads', '4']);
    if (file === undefined) return;
    const rec = (await readRecordingFile(file)).recording;
    const tc = traceCheck(file);
    const suspensions = rec.suspensions();
    const sampler = suspensions.filter((s) => s.generation < 0 && s.reason === SUSPEND_OTHER).length;
    const withGc = suspensions.filter((s) => s.generation >= 0);
    const ourMs = withGc.reduce((a, s) => a + s.durationNs, 0) / 1e6;
    const theirMs = tc.gc.pauses.reduce((a, p) => a + p.durationMs, 0);
    t.diagnostic(`TraceEvent: ${tc.gc.suspendEEStart ?? 0} suspensions, ${tc.gc.pausesWithoutGc} without a GC, ${tc.gc.pauses.length} pauses with one (${theirMs.toFixed(2)} ms); ours: ${withGc.length} (${ourMs.toFixed(2)} ms), ${summarizePauses(suspensions).other.count} other`);
    assert.ok(tc.gc.pausesWithoutGc > 20, `the sampler suspended the runtime only ${tc.gc.pausesWithoutGc} times`);
    assert.equal(sampler, 0, 'the sample profiler\'s suspensions are not the program\'s pauses');
    assert.ok(tc.gc.pauses.length >= 28, `${tc.gc.pauses.length} GC pauses`);
    assert.equal(withGc.length, tc.gc.pauses.length);
    assert.ok(Math.abs(ourMs - theirMs) <= 0.01 * theirMs + 0.01, `${ourMs} ms of pauses, TraceEvent ${theirMs} ms`);
  });

  it('estimates CPU as PerfView\'s thread time does, and says it is an estimate', async (t) => {
    const file = record(t, 'demo', [targetDll('Demo'), '--seconds', '3']);
    if (file === undefined) return;
    const tc = traceCheck(file);
    const run = await runCli(['report', file, '--format', 'json', '--top', '0']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { sampleType: string; totalValue: number; cpuEstimated?: boolean; functions: { name: string; self: number }[] };
    const ourMs = report.totalValue / 1e6;
    const pollGc = tc.methods.filter((m) => m.method.includes('PollGC')).reduce((a, m) => a + m.exclusive, 0);
    t.diagnostic(`CPU: ours ${ourMs.toFixed(1)} ms, PerfView's thread time ${tc.threadTime.cpuMs} ms in ${tc.threadTime.cpuSamples} samples; ${pollGc} samples stopped at a GC poll`);
    assert.equal(report.sampleType, 'cpu');
    assert.equal(report.cpuEstimated, true);
    // A thread's last sample has no next one to measure to: worth at most one typical gap here.
    const threads = new Set(tc.threads.map((x) => x.tid)).size;
    assert.ok(Math.abs(ourMs - tc.threadTime.cpuMs) <= 0.01 * tc.threadTime.cpuMs + 2 * threads, `${ourMs} ms against ${tc.threadTime.cpuMs} ms`);
    assert.deepEqual(report.functions.filter((f) => f.name.includes('PollGC')), []);
    const text = await runCli(['report', file, '--top', '3']);
    assert.match(text.stdout.split('\n')[0], /cpu time \(estimated[^)]*\)/);
    // The export says it too: pprof's comments carry the mark, read back as estimated.
    const pprof = join(dir, 'demo.pb.gz');
    const conv = await runCli(['convert', file, '-o', pprof]);
    assert.equal(conv.code, 0, conv.stderr);
    assert.equal((await readRecordingFile(pprof)).recording.meta?.approximateCpu, true);
  });
});
