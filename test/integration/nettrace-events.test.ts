// Allocations, lock waits and exceptions in the .nettrace export, read by TraceEvent: the target
// of events.test.ts (Scenarios' throw-mix, lock-wait, alloc-ratio) recorded to a .clrscope on
// .NET 10 (AllocationSampled) and .NET 8 (AllocationTick), converted with `clrscope convert`, and
// opened by test/tools/TraceCheck, whose ClrTraceEventParser must find the runtime's own
// GCAllocationTick, ContentionStart/Stop and ExceptionThrown events with what the recording holds:
// exceptions per type and their messages (ExceptionMessage), allocated bytes per type, the number of waits and their total time, and on
// every stacked event the same innermost frame as the recording's stack; the .etlx made from the
// same recording holds the same; and our own reader turns the events back into the same totals,
// as it does for a dotnet-trace file of the same program, where TraceEvent is the referee.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { traceLogMethodName } from '../../structs/formats/nettrace/method-layout.js';
import { totalsByLabel } from '../../structs/profile/event-metrics.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import type { Recording } from '../../structs/profile/recording.js';
import { EventKind, FunctionKind } from '../../structs/wire/records.js';
import { dotnetTrace } from './support/dotnet-trace.js';
import { targetOn, type RuntimeTfm } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';
import { traceCheck, type TraceCheck } from './support/trace-check.js';
import { messagesOf, tallyOf, throwMixMessages, withEmptyForNone } from './support/throw-mix-messages.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-nettrace-events-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Per event kind, how many stacked events have each innermost frame (named as TraceLog names it), and how many of those frames are managed. */
function leafFrames(rec: Recording, kind: number): { frames: Map<string, number>; managed: number; stacked: number } {
  const e = rec.events();
  const frames = new Map<string, number>();
  let managed = 0;
  let stacked = 0;
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] !== kind || e.stackId[i] < 0) continue;
    const ids = rec.stackFrames(e.stackId[i]);
    if (ids.length === 0) continue;
    const fn = rec.functionInfo(ids[0]);
    assert.ok(fn !== undefined, `function ${ids[0]} is not defined`);
    const label = traceLogMethodName(frameLabel(fn));
    const count = kind === EventKind.Exception ? e.value1[i] : 1;
    frames.set(label, (frames.get(label) ?? 0) + count);
    stacked += count;
    if (fn.kind === FunctionKind.Managed) managed += count;
  }
  return { frames, managed, stacked };
}

function withoutEmpty(frames: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(frames).filter(([name]) => name !== ''));
}

const RUNTIMES: readonly { label: string; tfm: RuntimeTfm }[] = [
  { label: '.NET 10', tfm: 'net10.0' },
  { label: '.NET 8', tfm: 'net8.0' },
];

for (const rt of RUNTIMES) {
  describe(`allocations, lock waits and exceptions in the nettrace export, read by TraceEvent (${rt.label})`, () => {
    let rec: Recording;
    let saved: string;
    let nettrace: string;
    let tc: TraceCheck;
    let facts: Record<string, Record<string, number>>;

    before(async () => {
      saved = join(dir, `events-${rt.tfm}.clrscope`);
      nettrace = join(dir, `events-${rt.tfm}.nettrace`);
      const { command, args } = targetOn('Scenarios', rt.tfm);
      const run = await runCli(['record', '--alloc', 'on', '-o', saved, '--', command, ...args, 'throw-mix', 'lock-wait', 'alloc-ratio', '--exceptions', '20', '--seconds', '2', '--allocate-mb', '200'], { timeoutMs: 180000 });
      assert.equal(run.code, 0, run.stderr);
      facts = resultOf(run.stdout).scenarios as Record<string, Record<string, number>>;
      const conv = await runCli(['convert', saved, '-o', nettrace]);
      assert.equal(conv.code, 0, conv.stderr);
      rec = (await readRecordingFile(saved)).recording;
      tc = traceCheck(nettrace);
    });

    it('every exception, by type, as ExceptionThrown_V1 with the innermost frame the recording has', (t) => {
      const x = tc.runtimeEvents.exceptions;
      t.diagnostic(`TraceEvent: ${x.events} exceptions (${x.withStack} with a stack), top frames ${JSON.stringify(x.topFrames)}`);
      assert.deepEqual(x.versions, { 1: x.events });
      const want = totalsByLabel(rec, 'exceptions');
      assert.deepEqual(new Map(Object.entries(x.byType).map(([type, t]) => [type, t.events])), new Map(want.map((t) => [t.label, t.value])));
      // And the program's own count: 3:2:1 of 20 rounds.
      assert.equal(x.byType['System.ArgumentException']?.events, facts['throw-mix']['System.ArgumentException']);
      assert.equal(x.events, 120);
      const leaf = leafFrames(rec, EventKind.Exception);
      assert.equal(leaf.managed, leaf.stacked, 'the recording\'s exception stacks start at a managed frame');
      assert.equal(x.withStack, leaf.stacked);
      assert.deepEqual(withoutEmpty(x.topFrames), leaf.frames);
      assert.equal(x.topFrames[`${NS}ThrowMix.Argument`], 60, JSON.stringify(x.topFrames));
    });

    it('the .clrscope read back holds every exception\'s message, exactly as the program gave them', () => {
      assert.deepEqual(messagesOf(rec), throwMixMessages(20));
    });

    it('every exception\'s message as ExceptionThrown_V1\'s ExceptionMessage, and our reader takes them back', async (t) => {
      const got = tallyOf(tc.runtimeEvents.exceptionMessages);
      t.diagnostic(`TraceEvent: ${JSON.stringify(tc.runtimeEvents.exceptionMessages['System.ArgumentException'])} and ${got.get('System.Collections.Generic.KeyNotFoundException')?.size} distinct KeyNotFoundException messages`);
      assert.deepEqual(got, withEmptyForNone(throwMixMessages(20)));
      assert.deepEqual(messagesOf((await readRecordingFile(nettrace)).recording), throwMixMessages(20));
    });

    it('every allocation sample as GCAllocationTick_V4: type names and summed AllocationAmount64 as the recording\'s bytes', (t) => {
      const a = tc.runtimeEvents.allocationTicks;
      t.diagnostic(`TraceEvent: ${a.events} ticks, ${JSON.stringify(Object.fromEntries(Object.entries(a.byType).map(([k, v]) => [k, `${v.events} ticks, ${((v.amount64 ?? 0) / 2 ** 20).toFixed(1)} MiB`])))}`);
      assert.deepEqual(a.versions, { 4: a.events });
      const want = totalsByLabel(rec, 'alloc-space');
      assert.ok(want.length >= 2, `allocation types: ${want.map((t) => t.label).join(', ')}`);
      assert.deepEqual(Object.keys(a.byType).sort(), want.map((t) => t.label).sort());
      for (const t of want) {
        const got = a.byType[t.label];
        assert.equal(got.events, t.events, t.label);
        // AllocationAmount64 is a whole number of bytes: at most half a byte per event apart.
        assert.ok(Math.abs((got.amount64 ?? 0) - t.value) <= 0.5 * t.events, `${t.label}: ${got.amount64} of ${t.value} bytes`);
      }
      assert.ok((a.byType['System.Byte[]']?.amount64 ?? 0) > 0 && (a.byType[`${NS}Pair<System.Int64>`]?.amount64 ?? 0) > 0, JSON.stringify(Object.keys(a.byType)));
      // The documented mapping of a sample's values to the tick's object: ObjectSize = bytes / objects, large from 85,000 bytes.
      const e = rec.events();
      let objectBytes = 0;
      let large = 0;
      for (let i = 0; i < e.kind.length; i++) {
        if (e.kind[i] !== EventKind.Allocation) continue;
        const size = Math.round(e.value1[i] / e.value2[i]);
        objectBytes += size;
        if (size >= 85_000) large++;
      }
      assert.equal(tc.runtimeEvents.allocationObjectBytes, objectBytes);
      assert.equal(tc.runtimeEvents.allocationKinds.Large ?? 0, large);
      assert.equal((tc.runtimeEvents.allocationKinds.Small ?? 0) + large, a.events);
      const leaf = leafFrames(rec, EventKind.Allocation);
      assert.equal(a.withStack, leaf.stacked);
      assert.deepEqual(withoutEmpty(a.topFrames), leaf.frames);
      assert.ok((a.topFrames[`${NS}AllocRatio.Big`] ?? 0) > 0 && (a.topFrames[`${NS}AllocRatio.Small`] ?? 0) > 0, JSON.stringify(a.topFrames));
    });

    it('every lock wait as ContentionStart_V2 and ContentionStop_V1, the durations summing to the recording\'s', (t) => {
      const { contentionStarts: starts, contentionStops: stops, contentionDurationNs } = tc.runtimeEvents;
      t.diagnostic(`TraceEvent: ${starts.events} starts, ${stops.events} stops, ${(contentionDurationNs / 1e9).toFixed(3)} s; top frames ${JSON.stringify(stops.topFrames)}`);
      assert.deepEqual(starts.versions, { 2: starts.events });
      assert.deepEqual(stops.versions, { 1: stops.events });
      const delay = totalsByLabel(rec, 'delay').reduce((s, t) => s + t.value, 0);
      const waits = totalsByLabel(rec, 'contentions').reduce((s, t) => s + t.value, 0);
      assert.equal(waits, facts['lock-wait'].waits);
      assert.equal(stops.events, waits);
      assert.equal(starts.events, waits);
      assert.ok(Math.abs(contentionDurationNs - delay) <= 1, `${contentionDurationNs} ns of ${delay}`);
      const leaf = leafFrames(rec, EventKind.Contention);
      assert.equal(stops.withStack, leaf.stacked);
      assert.deepEqual(withoutEmpty(stops.topFrames), leaf.frames);
      assert.deepEqual(withoutEmpty(starts.topFrames), leaf.frames);
    });

    it('our reader turns the events back into the same totals by type', async () => {
      const back = (await readRecordingFile(nettrace)).recording;
      for (const metric of ['exceptions', 'contentions', 'alloc-samples'] as const) {
        assert.deepEqual(totalsByLabel(back, metric).map((t) => [t.label, t.value]), totalsByLabel(rec, metric).map((t) => [t.label, t.value]), metric);
      }
      const bytes = new Map(totalsByLabel(back, 'alloc-space').map((t) => [t.label, t.value]));
      for (const t of totalsByLabel(rec, 'alloc-space')) assert.ok(Math.abs((bytes.get(t.label) ?? 0) - t.value) <= 0.5 * t.events, `${t.label}: ${bytes.get(t.label)} of ${t.value}`);
      const delay = (r: Recording): number => totalsByLabel(r, 'delay').reduce((sum, t) => sum + t.value, 0);
      assert.ok(Math.abs(delay(back) - delay(rec)) <= totalsByLabel(rec, 'contentions').reduce((sum, t) => sum + t.value, 0), `${delay(back)} ns of ${delay(rec)}`);
    });

    // One runtime is enough for the .etlx: it is made from the same file by the same converter.
    if (rt.tfm === 'net10.0') it('the .etlx made from it holds the same events for TraceLog', async () => {
      const etlx = join(dir, `events-${rt.tfm}.etlx`);
      const conv = await runCli(['convert', saved, '-o', etlx]);
      assert.equal(conv.code, 0, conv.stderr);
      assert.deepEqual(traceCheck(etlx).runtimeEvents, tc.runtimeEvents);
    });
  });
}

describe('a dotnet-trace file with the runtime\'s allocation, contention and exception events', () => {
  it('reads into event samples that agree with TraceEvent and with the program', async (t) => {
    const tool = dotnetTrace();
    if (tool.path === undefined) {
      if (process.env.CI) assert.fail(`dotnet-trace is needed under CI: ${tool.why ?? ''}`);
      t.skip(tool.why ?? 'dotnet-trace not available');
      return;
    }
    const file = join(dir, 'dotnet-trace-events.nettrace');
    const { command, args } = targetOn('Scenarios', 'net10.0');
    // GC (AllocationTick is Verbose), Contention and Exception keywords; rundown names the methods.
    const r = spawnSync(tool.path, ['collect', '--providers', 'Microsoft-Windows-DotNETRuntime:0xC001:5,Microsoft-DotNETCore-SampleProfiler', '-o', file, '--',
      command, ...args, 'throw-mix', 'lock-wait', 'alloc-ratio', '--exceptions', '20', '--seconds', '2', '--allocate-mb', '100'], { encoding: 'utf8', timeout: 180_000 });
    assert.equal(r.status, 0, `dotnet-trace collect failed: ${r.stderr}`);
    const rec = (await readRecordingFile(file)).recording;
    const tc = traceCheck(file);
    const exceptions = new Map(totalsByLabel(rec, 'exceptions').map((x) => [x.label, x.value]));
    t.diagnostic(`ours: ${JSON.stringify(Object.fromEntries(exceptions))}; TraceEvent: ${tc.runtimeEvents.exceptions.events} exceptions, ${tc.runtimeEvents.allocationTicks.events} ticks, ${tc.runtimeEvents.contentionStops.events} waits`);
    assert.deepEqual(exceptions, new Map(Object.entries(tc.runtimeEvents.exceptions.byType).map(([type, x]) => [type, x.events])));
    // The runtime's ExceptionMessage is the Message property (a parameter's name appended, a
    // default text where _message is null): ours read from it agree with TraceEvent's.
    assert.deepEqual(withEmptyForNone(messagesOf(rec)), tallyOf(tc.runtimeEvents.exceptionMessages));
    assert.equal(exceptions.get('System.ArgumentException'), 60);
    assert.equal([...exceptions.values()].reduce((a, b) => a + b, 0), 120);
    const bytes = new Map(totalsByLabel(rec, 'alloc-space').map((x) => [x.label, x.value]));
    assert.deepEqual(bytes, new Map(Object.entries(tc.runtimeEvents.allocationTicks.byType).map(([type, x]) => [type, x.amount64])));
    assert.ok((bytes.get('System.Byte[]') ?? 0) > 0, JSON.stringify([...bytes.keys()]));
    const waits = totalsByLabel(rec, 'contentions').reduce((a, x) => a + x.value, 0);
    const delay = totalsByLabel(rec, 'delay').reduce((a, x) => a + x.value, 0);
    assert.equal(waits, 12);
    assert.equal(tc.runtimeEvents.contentionStops.events, waits);
    assert.ok(Math.abs(delay - tc.runtimeEvents.contentionDurationNs) <= waits, `${delay} ns of ${tc.runtimeEvents.contentionDurationNs}`);
    // The runtime's stacks, read through our symbolizer: every thrown exception under the thread that threw it.
    const e = rec.events();
    let underRun = 0;
    for (let i = 0; i < e.kind.length; i++) {
      if (e.kind[i] !== EventKind.Exception || e.stackId[i] < 0) continue;
      if (Array.from(rec.stackFrames(e.stackId[i])).some((id) => rec.functionInfo(id)?.name === `${NS}ThrowMix.Run`)) underRun++;
    }
    assert.equal(underRun, 120);
  });
});
