// .nettrace and .etlx against independent readers: a real recording exported with toNettrace is
// opened by TraceEvent (test/tools/TraceCheck, TraceLog and its stack source), whose per-method
// sample counts must equal what go tool pprof reads from our pprof export of the same recording
// with -sample_index=samples (both count every clrscope sample once: CPU and wall samples alike);
// the GC pauses must come out as the runtime's GC events at the same times; the .etlx made by
// the converter must hold the same; and a trace recorded by dotnet-trace must read back with
// CpuWork.Heavy on top.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toEtlx } from '../../electron/services/export/etlx.js';
import { gzippedPprof } from '../../structs/formats/pprof/pprof.test-support.js';
import { fromNettraceAsync } from '../../structs/formats/nettrace/nettrace-reader.js';
import { nettraceChunks } from '../../structs/formats/nettrace/recording-to-nettrace.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import type { Recording } from '../../structs/profile/recording.js';
import { topMethods } from '../../structs/profile/top-methods.js';
import { FunctionKind } from '../../structs/wire/records.js';
import { GC_EVENTS, GcEventId } from '../../structs/wire/timeline/gc-events.js';
import { recordingGcStats } from '../../structs/analysis/gc-stats.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { recordTarget, type TargetRun } from './support/record-target.js';
import { dotnetTrace } from './support/dotnet-trace.js';
import { traceCheck, type TraceCheck, type TraceCheckMethod } from './support/trace-check.js';

/** A method's name as go tool pprof prints it: generic argument lists that follow a name are left out. */
function pprofName(name: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === '<' && (depth > 0 || /\w/.test(name[i - 1] ?? ''))) depth++;
    else if (c === '>' && depth > 0) depth--;
    else if (depth === 0) out += c;
  }
  // pprof also drops a C++ symbol's parameter list: libstdc++.so.6!operator delete[](void*)
  // shows as libstdc++.so.6!operator delete[].
  if (out.endsWith(')')) {
    let open = 0;
    for (let i = out.length - 1; i >= 0; i--) {
      if (out[i] === ')') open++;
      else if (out[i] === '(' && --open === 0) return out.slice(0, i);
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'clrscope-nettrace-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function writeNettrace(rec: Recording, file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const chunk of nettraceChunks(rec)) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** TraceEvent shows a name without a '.' (a synthetic frame) after an empty namespace, as ".name". */
const traceEventName = (m: TraceCheckMethod): string => (m.method.startsWith('.') && !m.method.startsWith('..') ? m.method.slice(1) : m.method);

/** Per frame label: samples with it as the leaf (exclusive) and samples containing it (inclusive, once per sample). */
function sampleCounts(rec: Recording): Map<string, { exclusive: number; inclusive: number }> {
  const out = new Map<string, { exclusive: number; inclusive: number }>();
  rec.forEachSample((_i, _m, _t, stackId) => {
    const labels = Array.from(rec.stackFrames(stackId), (id) => frameLabel(rec.functionInfo(id) ?? { id, kind: 2, name: '', module: '', file: '', moduleId: 0, token: 0 }));
    labels.forEach((label, i) => {
      const c = out.get(label) ?? { exclusive: 0, inclusive: 0 };
      if (i === 0) c.exclusive++;
      if (labels.indexOf(label) === i) c.inclusive++;
      out.set(label, c);
    });
  });
  return out;
}

/** Unix ns of an ISO time with 100 ns digits, as .NET's "O" format writes it. */
function isoToUnixNs(iso: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,7}))?Z$/.exec(iso);
  assert.ok(m, iso);
  const seconds = BigInt(Date.parse(`${m[1]}Z`)) / 1000n;
  return seconds * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(7, '0')) * 100n;
}

describe('a Scenarios recording as .nettrace, read by TraceEvent', () => {
  let run: TargetRun;
  let check: TraceCheck;
  const nettrace = join(dir, 'scenarios.nettrace');
  const pprof = join(dir, 'scenarios.pb.gz');

  before(async () => {
    run = await recordTarget(targetDll('Scenarios'), ['cpu-ratio', 'sleep', 'exceptions', '--seconds', '2'], { intervalMs: 5 });
    writeNettrace(run.rec, nettrace);
    writeFileSync(pprof, gzippedPprof(run.rec));
    check = traceCheck(nettrace);
  });

  it('has every sample, on the threads clrscope saw, and loses no event', (t) => {
    t.diagnostic(`${run.rec.sampleCount} samples, ${check.events} events, ${check.methods.length} distinct frames`);
    assert.equal(check.samples, run.rec.sampleCount);
    assert.equal(check.stackSourceSamples, run.rec.sampleCount);
    assert.equal(check.eventsLost, 0);
    assert.equal(check.unresolvedFrames, 0, 'every address resolves to a method');
    const cpu = Array.from(run.rec.sampleColumns().flags).filter((f) => f & 1).length;
    assert.equal(check.samplesByType.managed, cpu, 'CPU samples are written as managed (type 2) samples');
    assert.equal(check.samplesByType.external, run.rec.sampleCount - cpu);
    const perThread = new Map<number, number>();
    run.rec.forEachSample((_i, _m, threadId) => {
      const tid = run.rec.thread(threadId)?.osTid ?? -1;
      perThread.set(tid, (perThread.get(tid) ?? 0) + 1);
    });
    assert.deepEqual(check.threads.map((x) => [x.tid, x.samples]), [...perThread].sort((a, b) => a[0] - b[0]));
    assert.deepEqual(check.processes, [run.rec.meta?.pid]);
  });

  it('gives the top methods the same exclusive and inclusive sample counts as go tool pprof -sample_index=samples', (t) => {
    if (!goAvailable()) {
      if (process.env.CI) assert.fail('go is not on PATH but CI is set: install golang-go.');
      t.skip('go not found; compared with the Recording only');
    }
    const ours = sampleCounts(run.rec);
    const traceEvent = new Map(check.methods.map((m) => [traceEventName(m), m]));
    const top = [...ours].sort((a, b) => b[1].exclusive - a[1].exclusive || b[1].inclusive - a[1].inclusive).slice(0, 12);
    const rows = goAvailable() ? parseTop(goPprof(['-top', '-sample_index=samples', '-nodecount=100000', '-nodefraction=0', '-edgefraction=0'], pprof)) : [];
    const pprofRow = new Map(rows.map((r) => [r.name, r]));
    for (const [name, c] of top) {
      const te = traceEvent.get(name);
      assert.ok(te, `TraceEvent has no frame for ${name}`);
      t.diagnostic(`${name}: clrscope ${c.exclusive}/${c.inclusive}, TraceEvent ${te.exclusive}/${te.inclusive}${pprofRow.has(name) ? `, pprof ${pprofRow.get(name)?.flat}/${pprofRow.get(name)?.cum}` : ''}`);
      assert.deepEqual([te.exclusive, te.inclusive], [c.exclusive, c.inclusive], name);
      if (rows.length > 0) {
        // go tool pprof shows generic arguments dropped (Dictionary<K,V>.FindValue as
        // Dictionary.FindValue) and merges what then reads the same; compare where unambiguous.
        const shown = pprofName(name);
        if ([...ours.keys()].filter((n) => pprofName(n) === shown).length > 1) continue;
        const p = pprofRow.get(name) ?? pprofRow.get(shown);
        assert.ok(p, `pprof -top has no row for ${name}`);
        assert.deepEqual([te.exclusive, te.inclusive], [p.flat, p.cum], `${name} against pprof`);
      }
    }
    assert.equal(traceEventName(check.methods.filter((m) => m.module.endsWith('Scenarios.dll'))[0]), 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
  });

  it('places samples at the same wall-clock times', () => {
    const meta = run.rec.meta;
    assert.ok(meta);
    const firstMono = Math.min(...run.rec.sampleColumns().mono);
    const expected = meta.startUnixNs + BigInt(firstMono - meta.startMono);
    const got = isoToUnixNs(check.firstSampleUtc);
    assert.ok(got - expected < 100n && expected - got < 100n, `TraceEvent ${check.firstSampleUtc} (${got}), clrscope ${expected}`);
  });

  it('makes an .etlx that TraceLog reopens with the same samples and methods', async () => {
    const etlx = join(dir, 'scenarios.etlx');
    const result = await toEtlx(run.rec, etlx);
    assert.equal(result.samples, run.rec.sampleCount);
    const fromEtlx = traceCheck(etlx);
    assert.equal(fromEtlx.samples, check.samples);
    assert.deepEqual(fromEtlx.threads, check.threads);
    assert.deepEqual(fromEtlx.methods, check.methods);
    assert.deepEqual(fromEtlx.gc, check.gc);
  });
});

describe('GC pauses as the runtime\'s GC events', () => {
  let run: TargetRun;
  let check: TraceCheck;

  before(async () => {
    run = await recordTarget(targetDll('GcLoad'), ['--gen0', '3', '--gen1', '2', '--gen2', '2', '--allocate-mb', '100']);
    const file = join(dir, 'gcload.nettrace');
    writeNettrace(run.rec, file);
    check = traceCheck(file);
  });

  // The recording kept the runtime's own GC events (GC_EVENT records): the file carries those, so
  // TraceEvent sees every collection the runtime counted, at the times the runtime raised them.
  it('has the runtime\'s own GCSuspendEE…RestartEE events and a GCStart/GCEnd per GC, by generation', () => {
    const events = run.rec.timeline(GC_EVENTS);
    const count = (id: number): number => events.filter((e) => e.event === id).length;
    assert.ok(count(GcEventId.GCStart) >= 7, `${count(GcEventId.GCStart)} GCs recorded`);
    assert.equal(check.gc.suspendEEStart, count(GcEventId.GCSuspendEEBegin));
    assert.equal(check.gc.suspendEEStop, count(GcEventId.GCSuspendEEEnd));
    assert.equal(check.gc.restartEEStart, count(GcEventId.GCRestartEEBegin));
    assert.equal(check.gc.restartEEStop, count(GcEventId.GCRestartEEEnd));
    assert.equal(check.gc.gcStart, count(GcEventId.GCStart));
    assert.equal(check.gc.gcEnd, count(GcEventId.GCEnd));
    assert.deepEqual(check.gc.generations, [0, 1, 2].map((g) => events.filter((e) => e.event === GcEventId.GCStart && e.b === g).length));
    assert.equal(count(GcEventId.GCStart), recordingGcStats(run.rec).rows.length);
  });

  it('puts each GC pause at its time, with its duration, generation and induced flag', () => {
    const meta = run.rec.meta;
    assert.ok(meta);
    const sessionStartNs = isoToUnixNs(check.sessionStartUtc);
    // Pauses as TraceCheck's GcTally reads them: GCSuspendEEBegin to GCRestartEEEnd, with the GCStarts in between.
    const pauses: { mono: number; durationNs: number; generation: number; induced: boolean }[] = [];
    let open: (typeof pauses)[number] | undefined;
    for (const e of [...run.rec.timeline(GC_EVENTS)].sort((x, y) => x.mono - y.mono)) {
      if (e.event === GcEventId.GCSuspendEEBegin) open = { mono: e.mono, durationNs: 0, generation: -1, induced: false };
      else if (e.event === GcEventId.GCStart && open !== undefined) {
        open.generation = Math.max(open.generation, e.b);
        open.induced ||= [1, 7, 9, 10].includes(e.c);
      } else if (e.event === GcEventId.GCRestartEEEnd && open !== undefined) {
        open.durationNs = e.mono - open.mono;
        if (open.generation >= 0) pauses.push(open);
        open = undefined;
      }
    }
    assert.equal(check.gc.pauses.length, pauses.length);
    pauses.forEach((s, i) => {
      const p = check.gc.pauses[i];
      const startMs = Number(meta.startUnixNs + BigInt(s.mono - meta.startMono) - sessionStartNs) / 1e6;
      assert.ok(Math.abs(p.startMs - startMs) < 0.001, `pause ${i}: TraceEvent ${p.startMs} ms, clrscope ${startMs} ms`);
      assert.ok(Math.abs(p.durationMs - s.durationNs / 1e6) < 0.001, `pause ${i} duration`);
      assert.equal(p.generation, s.generation);
      assert.equal(p.induced, s.induced);
    });
  });
});

describe('a trace recorded by dotnet-trace', () => {
  it('reads with rundown names, CpuWork.Heavy on top, and agrees with TraceEvent', async (t) => {
    const tool = dotnetTrace();
    if (tool.path === undefined) {
      if (process.env.CI) assert.fail(`dotnet-trace is needed under CI: ${tool.why ?? ''}`);
      t.skip(tool.why ?? 'dotnet-trace not available');
      return;
    }
    const file = join(dir, 'dotnet-trace.nettrace');
    const r = spawnSync(tool.path, ['collect', '--show-child-io', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '2'], { encoding: 'utf8', timeout: 180_000 });
    assert.equal(r.status, 0, `dotnet-trace collect failed: ${r.stderr}`);
    let lastProgress = 0;
    const rec = await fromNettraceAsync(createReadStream(file, { highWaterMark: 64 * 1024 }), { onProgress: (read) => { lastProgress = read; } });
    assert.ok(lastProgress > 0);
    const top = topMethods(rec, 'cpu', 5);
    t.diagnostic(top.map((row) => `${row.name} ${row.selfPct.toFixed(1)}%`).join(', '));
    assert.equal(top[0].name, 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
    assert.equal(rec.functionInfo(rec.functions().find((f) => f.name === top[0].name)?.id ?? -1)?.kind, FunctionKind.Managed);
    assert.equal(rec.meta?.runtimeVersion.split('.')[0], '10');
    const check = traceCheck(file);
    assert.equal(rec.sampleCount, check.samples);
    const heavy = check.methods.find((m) => m.method.startsWith('Clrscope.Targets.Scenarios.CpuWork.Heavy('));
    assert.ok(heavy);
    assert.deepEqual(sampleCounts(rec).get('Clrscope.Targets.Scenarios.CpuWork.Heavy'), { exclusive: heavy.exclusive, inclusive: heavy.inclusive });
  });
});
