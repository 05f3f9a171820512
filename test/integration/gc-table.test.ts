// The GC table (report --gcs) of a program that mixes background, blocking and induced
// collections (test/targets/GcLoad --churn-mb): a clrscope recording has one row per collection
// the runtime counted, and a dotnet-trace recording of the same program reads row by row as
// TraceEvent's own TraceLoadedDotNetRuntime reads it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { recordingGcStats, type GcRow } from '../../structs/analysis/gc-stats.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { dotnetTrace } from './support/dotnet-trace.js';
import { targetDll } from './support/paths.js';
import { recordProgram, recordTarget, type TargetRun } from './support/record-target.js';
import { pwshDll } from '../soak/soak-programs.js';
import { resultOf, runCli } from './support/run-cli.js';
import { TRACE_CHECK, traceCheckBuilt } from './support/trace-check.js';

const MIXED = ['--churn-mb', '1500', '--gen0', '3', '--gen1', '3', '--gen2', '3'];

interface GcLoadCounts {
  gcCollectionCount: number[];
  gcCollectionCountAtStart: number[];
}

interface JsonRow { number: number; generation: number; type: string; reason: string; pauseMs: number; heapBeforeBytes: number | null; heapAfterBytes: number | null; promotedBytes: number | null }

/** TraceEvent's row (test/tools/TraceCheck --gcs). */
interface TraceEventGc { number: number; generation: number; type: string; reason: string; pauseMs: number; heapBeforeMB: number; heapAfterBytes?: number; promotedBytes?: number }

const TRACE_EVENT_TYPES: Record<string, string> = { NonConcurrentGC: 'blocking', BackgroundGC: 'background', ForegroundGC: 'foreground' };

/** A background GC that started with the gen 0/1 the runtime runs just before it: the next number, blocking, in the same suspension. */
function gen1BeforeBgc(rows: readonly GcRow[]): number {
  let n = 0;
  for (let i = 1; i < rows.length; i++) {
    const bgc = rows[i - 1];
    if (bgc.type === 'background' && rows[i].type === 'blocking' && rows[i].number === bgc.number + 1 && rows[i].generation < 2) n++;
  }
  return n;
}

describe('the GC table of a clrscope recording: every collection the runtime counted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-table-'));
  let run: TargetRun;
  let counts: GcLoadCounts;
  let rows: GcRow[];

  before(async () => {
    run = await recordTarget(targetDll('GcLoad'), MIXED);
    counts = resultOf(run.stdout) as unknown as GcLoadCounts;
    rows = recordingGcStats(run.rec).rows;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has as many rows as GC.CollectionCount(0) rose, numbered without a gap', (t) => {
    const runtime = counts.gcCollectionCount[0] - counts.gcCollectionCountAtStart[0];
    const suspensionsWithGc = run.rec.suspensions().filter((s) => s.generation >= 0).length;
    t.diagnostic(`runtime ${runtime} GCs, table ${rows.length} rows, suspensions with a GC ${suspensionsWithGc}; ${rows.filter((r) => r.type === 'background').length} background, ${gen1BeforeBgc(rows)} with a gen 1 before`);
    assert.ok(rows.some((r) => r.type === 'background'), 'the program ran background GCs');
    assert.ok(gen1BeforeBgc(rows) > 0, 'some background GC began with a gen 1 (the collection no profiler callback reports)');
    assert.equal(rows.length, runtime);
    assert.equal(rows[rows.length - 1].number - rows[0].number + 1, rows.length);
  });

  it('counts per generation as GC.CollectionCount does (a GC of gen g counts for every g\' <= g)', () => {
    for (let g = 0; g < 3; g++) {
      assert.equal(rows.filter((r) => r.generation >= g).length, counts.gcCollectionCount[g] - counts.gcCollectionCountAtStart[g], `generation ${g}`);
    }
  });

  it('gives every row its heap after, promoted bytes and a pause, and report --gcs prints the rows as JSON', async () => {
    for (const r of rows) {
      assert.ok(r.heapAfterBytes !== null && r.heapAfterBytes > 0, `GC ${r.number} has its heap after`);
      assert.ok(r.promotedBytes !== null, `GC ${r.number} has its promoted bytes`);
      assert.ok(r.pauseMs > 0 && r.pauseMs < 10_000, `GC ${r.number} pause ${r.pauseMs}`);
    }
    const file = join(dir, 'mixed.clrscope');
    writeFileSync(file, saveRecording(run.rec));
    const r = await runCli(['report', file, '--gcs', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { gcs: JsonRow[] };
    assert.deepEqual(Object.keys(out), ['gcs']);
    assert.deepEqual(Object.keys(out.gcs[0]).slice(0, 8), ['number', 'generation', 'type', 'reason', 'pauseMs', 'heapBeforeBytes', 'heapAfterBytes', 'promotedBytes']);
    assert.deepEqual(out.gcs.map((g) => g.number), rows.map((g) => g.number));
    const text = await runCli(['report', file, '--gcs']);
    assert.match(text.stdout, new RegExp(`^${rows.length} garbage collections, GC numbers ${rows[0].number} to ${rows[rows.length - 1].number}:`));
  });

  it('exports to .nettrace as the runtime\'s own GC events, which TraceEvent reads as the same collections', async (t) => {
    if (!traceCheckBuilt()) return t.skip(`${TRACE_CHECK} is missing: run bash scripts/build-targets.sh`);
    const file = join(dir, 'mixed-export.clrscope');
    writeFileSync(file, saveRecording(run.rec));
    const out = join(dir, 'mixed.nettrace');
    const c = await runCli(['convert', file, '-o', out]);
    assert.equal(c.code, 0, c.stderr);
    const peer = spawnSync('dotnet', [TRACE_CHECK, out, '--gcs'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(peer.status, 0, peer.stderr);
    const teRows = (JSON.parse(peer.stdout) as { processes: { gcs: TraceEventGc[] }[] }).processes.flatMap((p) => p.gcs);
    assert.deepEqual(
      teRows.map((g) => [g.number, g.generation, TRACE_EVENT_TYPES[g.type] ?? g.type, g.reason]),
      rows.map((r) => [r.number, r.generation, r.type, r.reason]),
    );
  });
});

describe('clrscope record\'s summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-summary-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the collections the runtime counted, background ones and their gen 1 included', async () => {
    // Two blocking gen2s and one induced in the background: whether churn alone starts a
    // background GC depends on the GC's budgets (600 MB did on one machine, not on another).
    const r = await runCli(['record', '-o', join(dir, 'mixed.clrscope'), '--', 'dotnet', targetDll('GcLoad'), '--churn-mb', '600', '--gen2', '2', '--background', '1']);
    assert.equal(r.code, 0, r.stderr);
    const counts = resultOf(r.stdout) as unknown as GcLoadCounts & { inducedCollections: { backgroundSeen: number } };
    assert.equal(counts.inducedCollections.backgroundSeen, 1, 'the program saw its background GC finish');
    const m = /GC pauses: (\d+) \((\d+) induced, (\d+) background\)/.exec(r.stderr);
    assert.ok(m !== null, r.stderr);
    assert.equal(Number(m[1]), counts.gcCollectionCount[0] - counts.gcCollectionCountAtStart[0]);
    assert.equal(Number(m[2]), 3);
    assert.ok(Number(m[3]) > 0, 'background GCs named');
  });
});

// PowerShell building, grouping and serializing objects: blocking, foreground and background GCs
// of a program nobody here wrote, counted by the program itself around the work.
const PWSH_SCRIPT = `$c0 = [GC]::CollectionCount(0)
$keep = [System.Collections.Generic.List[object]]::new()
for ($r = 0; $r -lt 6; $r++) {
  $rows = 1..40000 | ForEach-Object { [pscustomobject]@{ Id = $_; Name = "item$_"; Tag = $_ % 17 } }
  $null = $rows | Group-Object Tag
  $keep.Add(($rows | ConvertTo-Json -Depth 2 -Compress))
  if ($keep.Count -gt 3) { $keep.RemoveAt(0) }
}
"GCCOUNT $c0 $([GC]::CollectionCount(0))"
`;

describe('the GC table of PowerShell', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-table-pwsh-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has one row per collection PowerShell counted during its work, numbered without a gap', async (t) => {
    let pwsh: string;
    try {
      pwsh = pwshDll();
    } catch (err) {
      return t.skip((err as Error).message);
    }
    const script = join(dir, 'gc.ps1');
    writeFileSync(script, PWSH_SCRIPT);
    const run = await recordProgram('dotnet', [pwsh, '-NoProfile', '-NonInteractive', '-File', script], { env: { ...process.env, POWERSHELL_TELEMETRY_OPTOUT: '1', POWERSHELL_UPDATECHECK: 'Off' } });
    assert.ok(run.result.stream !== undefined, run.stderr);
    const m = /GCCOUNT (\d+) (\d+)/.exec(run.stdout);
    assert.ok(m !== null, run.stdout);
    const [c0, c1] = [Number(m[1]), Number(m[2])];
    const rows = recordingGcStats(run.result.stream.recording).rows;
    const during = rows.filter((r) => r.number > c0 && r.number <= c1);
    const suspensionsWithGc = run.result.stream.recording.suspensions().filter((s) => s.generation >= 0).length;
    t.diagnostic(`PowerShell counted ${c1 - c0} GCs during the work (${c1} in all); table ${rows.length} rows (${rows.filter((r) => r.type === 'background').length} background); suspensions with a GC ${suspensionsWithGc}`);
    assert.ok(c1 - c0 > 20, 'the script collected');
    assert.equal(during.length, c1 - c0);
    assert.equal(rows[rows.length - 1].number - rows[0].number + 1, rows.length);
  });
});

describe('the GC table of a dotnet-trace recording, against TraceEvent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-table-peer-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  // The GC keyword alone, and dotnet-trace's default profile, whose sample profiler suspends the
  // runtime every millisecond from a thread of its own (suspensions that interleave with the GCs').
  for (const [what, providers] of [['the GC keyword alone', ['--providers', 'Microsoft-Windows-DotNETRuntime:0x1:4']], ['dotnet-trace\'s default profile', []]] as const) {
  it(`equals TraceEvent's GCs row by row (${what}): number, generation, type, reason, heap after, promoted; heap before and pause to a microsecond`, async (t) => {
    const trace = dotnetTrace();
    if (trace.path === undefined) return t.skip(trace.why);
    if (!traceCheckBuilt()) return t.skip(`${TRACE_CHECK} is missing: run bash scripts/build-targets.sh`);
    const file = join(dir, `mixed-${providers.length}.nettrace`);
    const rec = spawnSync(trace.path, ['collect', ...providers, '-o', file, '--', 'dotnet', targetDll('GcLoad'), ...MIXED], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(rec.status, 0, rec.stderr);
    const peer = spawnSync('dotnet', [TRACE_CHECK, file, '--gcs'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(peer.status, 0, peer.stderr);
    const teRows = (JSON.parse(peer.stdout) as { processes: { gcs: TraceEventGc[] }[] }).processes.flatMap((p) => p.gcs);
    const ours = await runCli(['report', file, '--gcs', '--format', 'json']);
    assert.equal(ours.code, 0, ours.stderr);
    const rows = (JSON.parse(ours.stdout) as { gcs: JsonRow[] }).gcs;
    t.diagnostic(`TraceEvent ${teRows.length} GCs, clrscope ${rows.length}; ${rows.filter((r) => r.type === 'background').length} background`);
    assert.ok(rows.some((r) => r.type === 'background'));
    assert.deepEqual(
      rows.map((r) => [r.number, r.generation, r.type, r.reason, r.heapAfterBytes, r.promotedBytes]),
      teRows.map((g) => [g.number, g.generation, TRACE_EVENT_TYPES[g.type] ?? g.type, g.reason, g.heapAfterBytes ?? null, g.promotedBytes ?? null]),
    );
    for (let i = 0; i < rows.length; i++) {
      assert.ok(Math.abs(rows[i].pauseMs - teRows[i].pauseMs) < 1e-3, `GC ${rows[i].number}: pause ${rows[i].pauseMs} ms, TraceEvent ${teRows[i].pauseMs} ms`);
      assert.ok(Math.abs((rows[i].heapBeforeBytes ?? 0) / 1e6 - teRows[i].heapBeforeMB) < 1e-3, `GC ${rows[i].number}: heap before`);
    }
  });
  }
});

describe('the GC table of a recording of several processes (record --children)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-gc-children-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has each process\'s collections under its pid, as many as each program counted', async () => {
    // Two GcLoads at once: their GC numbers run side by side from 1, so mixed they would collide.
    const dll = targetDll('GcLoad');
    const outs = [join(dir, 'a.out'), join(dir, 'b.out')];
    const file = join(dir, 'two.clrscope');
    const r = await runCli(['record', '--children', '-o', file, '--', 'sh', '-c', `dotnet '${dll}' --churn-mb 400 > '${outs[0]}' & dotnet '${dll}' --churn-mb 250 > '${outs[1]}'; wait`], { timeoutMs: 180000 });
    assert.equal(r.code, 0, r.stderr);
    const report = await runCli(['report', file, '--gcs', '--format', 'json']);
    assert.equal(report.code, 0, report.stderr);
    const rows = (JSON.parse(report.stdout) as { gcs: (JsonRow & { pid?: number })[] }).gcs;
    const expected = new Map<number, number>();
    for (const out of outs) {
      const text = readFileSync(out, 'utf8');
      const counts = resultOf(text) as unknown as GcLoadCounts & { pid?: number };
      const pid = (JSON.parse(/^READY (\{.*\})$/m.exec(text)?.[1] ?? '{}') as { pid: number }).pid;
      expected.set(pid, counts.gcCollectionCount[0] - counts.gcCollectionCountAtStart[0]);
    }
    for (const [pid, n] of expected) {
      const mine = rows.filter((g) => g.pid === pid);
      assert.equal(mine.length, n, `pid ${pid}: ${mine.length} rows, the program counted ${n}`);
      assert.deepEqual(mine.map((g) => g.number), mine.map((_, i) => mine[0].number + i), `pid ${pid}: numbered without a gap`);
    }
    assert.equal(rows.length, [...expected.values()].reduce((a, b) => a + b, 0), 'no row of no process');
    const text = await runCli(['report', file, '--gcs']);
    assert.match(text.stdout, new RegExp(`^${rows.length} garbage collections in 2 processes \\(pid \\d+: \\d+, pid \\d+: \\d+\\), each numbered on its own:`));
  });
});
