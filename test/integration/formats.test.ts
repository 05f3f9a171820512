// Recording files against recordings of the real targets: the save format keeps everything,
// speedscope and pprof keep what they can (compared as collapsed stacks per thread), `clrscope
// convert` and `clrscope record -o` pick formats by extension, bad input ends in one sentence,
// and a large .clrscope file converts without being loaded whole.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { CountersPoint } from '../../structs/api/contract.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { dumpRecording } from '../../structs/profile/recording-dump.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { fromPprof } from '../../structs/formats/pprof/from-pprof.js';
import { fromSpeedscope } from '../../structs/formats/speedscope/from-speedscope.js';
import { speedscopeSchemaProblems } from '../../structs/formats/speedscope/schema-check.js';
import { toSpeedscope, toSpeedscopeJson } from '../../structs/formats/speedscope/to-speedscope.js';
import { toCollapsed } from '../../structs/formats/collapsed/to-collapsed.js';
import { pauseEntries } from '../../structs/profile/pause-summary.js';
import type { Recording } from '../../structs/profile/recording.js';
import { topMethods } from '../../structs/profile/top-methods.js';
import { WireEncoder } from '../../structs/wire/encoder.js';
import { gzippedPprof } from '../../structs/formats/pprof/pprof.test-support.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { CLI, targetDll } from './support/paths.js';
import { recordTarget, type TargetRun } from './support/record-target.js';
import { resultOf, runCli, type CliRun } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-formats-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Metric = 'cpu' | 'wall' | 'samples';
const byThread = (rec: Recording, metric: Metric): string => toCollapsed(rec, { metric, groupByThread: true });

/**
 * Self time per frame name, the ten largest: what the summary's "top methods" says, independent
 * of whether same-named functions (two unsymbolized addresses in one library) stay apart.
 */
function topSelf(rec: Recording, metric: Metric): string {
  const byName = new Map<string, number>();
  for (const r of topMethods(rec, metric, Number.MAX_SAFE_INTEGER)) byName.set(r.name, (byName.get(r.name) ?? 0) + r.selfValue);
  return [...byName].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10).map(([n, v]) => `${n} ${v}`).join('\n');
}

/** One sentence on stderr, no stack trace, a non-zero exit. */
function assertOneSentence(r: CliRun, pattern: RegExp): void {
  assert.notEqual(r.code, 0, `expected a failure: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${r.stderr}`);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at |internal error/, 'no stack trace');
}

/** The counters series `clrscope counters --format json` printed, as the workstation's points. */
function countersPoints(stdout: string): CountersPoint[] {
  return stdout.trim().split('\n').map((line) => {
    const { timestamp, pid: _pid, ...values } = JSON.parse(line) as Record<string, unknown>;
    return { timeMs: Date.parse(timestamp as string), values: values as Record<string, Record<string, number>> };
  });
}

describe('recordings of the real targets in every format', () => {
  let scenarios: TargetRun;
  let gcLoad: TargetRun;
  let counters: CountersPoint[];

  before(async () => {
    scenarios = await recordTarget(targetDll('Scenarios'), ['cpu-ratio', 'sleep', 'lock', 'async', 'exceptions', 'pinvoke', '--seconds', '2'], { intervalMs: 2 });
    gcLoad = await recordTarget(targetDll('GcLoad'), ['--gen0', '5', '--gen1', '3', '--gen2', '2', '--allocate-mb', '100', '--threads', '8']);
    const c = await runCli(['counters', '--format', 'json', '--refresh', '50', '--', 'dotnet', targetDll('GcLoad'), '--gen0', '3', '--gen2', '1', '--allocate-mb', '50', '--wait-start', '200']);
    assert.equal(c.code, 0, c.stderr);
    counters = countersPoints(c.stdout);
  });

  it('has what the round trips need: many samples, GC pauses, a counters series', () => {
    assert.ok(scenarios.rec.sampleCount > 1000, `${scenarios.rec.sampleCount} samples`);
    assert.ok(gcLoad.rec.suspensions().filter((s) => s.generation >= 0).length >= 10, 'GC pauses');
    assert.ok(counters.length >= 3, `${counters.length} counters readings`);
  });

  it('.clrscope: save, open: every sample, thread and value, the pauses and the counters, exactly', () => {
    for (const rec of [scenarios.rec, gcLoad.rec]) {
      const bytes = saveRecording(rec, counters);
      const opened = openRecording(bytes);
      assert.equal(dumpRecording(opened.recording), dumpRecording(rec));
      for (const metric of ['cpu', 'wall', 'samples'] as const) assert.equal(byThread(opened.recording, metric), byThread(rec, metric), metric);
      assert.deepEqual(pauseEntries(opened.recording.suspensions(), 0), pauseEntries(rec.suspensions(), 0));
      assert.deepEqual(opened.counters, counters);
      // Saving what was opened gives the same bytes: nothing drifts on a second round.
      assert.deepEqual(saveRecording(opened.recording, opened.counters), bytes);
    }
  });

  it('speedscope: export, import: the same cpu and wall trees per thread, to the nanosecond', () => {
    const rec = scenarios.rec;
    const file = toSpeedscope(rec);
    assert.deepEqual(speedscopeSchemaProblems(file), []);
    assert.ok(file.profiles.some((p) => p.name.startsWith('burn-heavy (tid ') && p.name.endsWith(' · cpu')));
    const back = fromSpeedscope(toSpeedscopeJson(rec));
    assert.equal(byThread(back, 'cpu'), byThread(rec, 'cpu'));
    assert.equal(byThread(back, 'wall'), byThread(rec, 'wall'));
    assert.equal(topSelf(back, 'cpu'), topSelf(rec, 'cpu'));
    assert.equal(topSelf(back, 'wall'), topSelf(rec, 'wall'));
  });

  it('pprof: export, import: the same cpu, wall and sample-count trees per thread', () => {
    for (const rec of [scenarios.rec, gcLoad.rec]) {
      const back = fromPprof(gunzipSync(gzippedPprof(rec)));
      for (const metric of ['cpu', 'wall', 'samples'] as const) assert.equal(byThread(back, metric), byThread(rec, metric), metric);
      assert.equal(topSelf(back, 'wall'), topSelf(rec, 'wall'));
      // pprof keeps function identity, so even same-named functions rank as they did.
      assert.deepEqual(topMethods(back, 'wall', 10), topMethods(rec, 'wall', 10));
    }
  });

  it('clrscope convert chains formats through files, and go tool pprof reads the result', async (t) => {
    const saved = join(dir, 'scenarios.clrscope');
    writeFileSync(saved, saveRecording(scenarios.rec, counters));
    const steps: [string, string][] = [[saved, 'a.speedscope.json'], ['a.speedscope.json', 'b.clrscope'], [saved, 'c.pb.gz'], ['c.pb.gz', 'd.clrscope'], [saved, 'e.clrscope']];
    for (const [from, to] of steps) {
      const r = await runCli(['convert', from.startsWith('/') ? from : join(dir, from), '-o', join(dir, to)]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`^clrscope: wrote ${join(dir, to).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`));
    }
    const open = (name: string): Recording => openRecording(readFileSync(join(dir, name))).recording;
    assert.equal(byThread(open('b.clrscope'), 'cpu'), byThread(scenarios.rec, 'cpu'));
    assert.equal(byThread(open('b.clrscope'), 'wall'), byThread(scenarios.rec, 'wall'));
    assert.equal(byThread(open('d.clrscope'), 'samples'), byThread(scenarios.rec, 'samples'));
    assert.deepEqual(readFileSync(join(dir, 'e.clrscope')), readFileSync(saved));
    if (!goAvailable()) {
      assert.ok(!process.env.CI, 'go is required in CI');
      t.skip('go is not installed');
      return;
    }
    const top = parseTop(goPprof(['-top', '-sample_index=cpu'], join(dir, 'c.pb.gz'))).filter((r) => r.name.startsWith('Clrscope.'));
    assert.equal(top[0]?.name, 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
  });

  it('clrscope record -o picks the format from the extension', async () => {
    const file = join(dir, 'rec.clrscope');
    const r = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /clrscope: wrote .*rec\.clrscope \(clrscope recording\)\. Convert it with: clrscope convert/);
    const rec = openRecording(readFileSync(file)).recording;
    assert.equal(resultOf(r.stdout).exitCode, 0);
    assert.ok(rec.threads().some((t) => t.name === 'burn-heavy'));
    assert.equal(rec.cut, false);
    const json = join(dir, 'rec.speedscope.json');
    const s = await runCli(['record', '-o', json, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', '--seconds', '1']);
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual(speedscopeSchemaProblems(JSON.parse(readFileSync(json, 'utf8'))), []);
  });
});

describe('clrscope convert refuses bad input with one sentence and a non-zero exit', () => {
  let good: string;

  before(() => {
    const enc = new WireEncoder().preamble()
      .hello({ pid: 1, flags: 3, mono: 0, unixNs: 0n, intervalNs: 1_000_000, wallThreadsPerTick: 1, runtimeVersion: '10.0.0', profilerVersion: 'test' })
      .function({ functionId: 1, kind: 0, name: 'A.Main', module: 'A.dll', file: '' })
      .thread({ threadId: 1, osTid: 5, clrThreadId: 0, mono: 0, name: 'main' });
    for (let i = 0; i < 100; i++) enc.sample({ mono: i * 1000, threadId: 1, flags: 1, cpuNs: 1000, wallNs: 0, frames: [1] });
    enc.end({ mono: 200_000, reason: 0 });
    good = join(dir, 'good.clrscope');
    writeFileSync(good, enc.bytes());
  });

  const file = (name: string, bytes: Uint8Array | string): string => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    return p;
  };

  it('truncated files, wrong magic, unknown extensions, unreadable input, unwritable output', async () => {
    const bytes = readFileSync(good);
    const pb = gzippedPprof(openRecording(bytes).recording);
    const cases: [string[], RegExp][] = [
      [[file('cut.clrscope', bytes.subarray(0, bytes.length - 7)), '-o', join(dir, 'o1.pb.gz')], /^clrscope: Cannot read .*cut\.clrscope: the clrscope file is truncated: it ends at byte \d+, inside the record that starts at byte \d+\.$/],
      [[file('zip.clrscope', 'PK\u0003\u0004 definitely a zip'), '-o', join(dir, 'o2.pb.gz')], /^clrscope: Cannot read .*zip\.clrscope: not a clrscope stream: the first 8 bytes at byte 0 are not the magic "CLRSCOPE"\.$/],
      [[file('cut.pb.gz', pb.subarray(0, pb.length - 12)), '-o', join(dir, 'o3.clrscope')], /^clrscope: Cannot read .*cut\.pb\.gz: its gzip data is truncated or corrupt/],
      [[file('cut.speedscope.json', toSpeedscopeJson(openRecording(bytes).recording).slice(0, 80)), '-o', join(dir, 'o4.clrscope')], /^clrscope: Cannot read .*: not a readable speedscope file: the text is not valid JSON/],
      [[good, '-o', join(dir, 'o5.docx')], /^clrscope: Unknown output format for .*o5\.docx: use a \.clrscope, /],
      [[file('notes.txt', 'x'), '-o', join(dir, 'o6.pb.gz')], /^clrscope: Unknown input format for .*notes\.txt: use a \.clrscope, /],
      [[join(dir, 'absent.clrscope'), '-o', join(dir, 'o7.pb.gz')], /^clrscope: Cannot read .*absent\.clrscope: no such file\.$/],
      [[good, '-o', join(dir, 'no-such-dir', 'o8.pb.gz')], /^clrscope: Cannot write .*o8\.pb\.gz: the folder .*no-such-dir does not exist\.$/],
      // The output is checked first: an unwritable output is reported even when the input is bad too.
      [[join(dir, 'absent.clrscope'), '-o', '/proc/o9.clrscope'], /^clrscope: Cannot write \/proc\/o9\.clrscope: /],
    ];
    if (process.getuid?.() !== 0) {
      const locked = file('locked.clrscope', bytes);
      spawnSync('chmod', ['000', locked]);
      cases.push([[locked, '-o', join(dir, 'o10.pb.gz')], /^clrscope: Cannot read .*locked\.clrscope: permission denied\.$/]);
    }
    for (const [args, pattern] of cases) assertOneSentence(await runCli(['convert', ...args]), pattern);
    assert.ok(!existsSync(join(dir, 'o1.pb.gz')) && !existsSync(join(dir, 'o3.clrscope')), 'no output from bad input');
  });

  it('a nettrace from a newer format version', async () => {
    const nettrace = join(dir, 'good.nettrace');
    const w = await runCli(['convert', good, '-o', nettrace]);
    assert.equal(w.code, 0, w.stderr);
    const bytes = Buffer.from(readFileSync(nettrace));
    // The Trace object's version (an int32 after the "Nettrace" magic, the serialization
    // signature and the object's opening tags) says 4 in every file the runtime writes.
    const at = bytes.indexOf('Trace', 8) - 12;
    assert.equal(bytes.readInt32LE(at), 4);
    bytes.writeInt32LE(6, at);
    assertOneSentence(await runCli(['convert', file('newer.nettrace', bytes), '-o', join(dir, 'n.clrscope')]), /^clrscope: Cannot read .*newer\.nettrace: this \.nettrace file's Trace object is version 6, newer than the version 4 of nettrace formats 4 and 5, which clrscope reads\.$/);
  });

  it('.etlx when its converter is built, or one sentence saying it is not', async () => {
    const r = await runCli(['convert', good, '-o', join(dir, 'x.etlx')]);
    if (r.code === 0) assert.ok(statSync(join(dir, 'x.etlx')).size > 0);
    else assertOneSentence(r, /^clrscope: (Writing \.etlx files needs the \.etlx converter, which is not built at .*\.|Cannot write .*x\.etlx: .*)$/);
  });
});

describe('a large .clrscope file is converted in pieces, not loaded whole', () => {
  const big = join(dir, 'big.clrscope');
  const SAMPLES = 1_600_000;
  const FRAMES = 40;

  before(() => {
    // About 300 MB: 16 threads, 4,096 distinct 40-frame stacks, written in 4 MiB pieces. A wire
    // v1 file (every sample with its frames), as recordings before wire v2 are: the same samples
    // in v2 take a small fraction of the space, so v1 is where a file gets this large.
    const fd = openSync(big, 'w');
    const enc = new WireEncoder(5 << 20).preamble(1)
      .hello({ pid: 2, flags: 3, mono: 0, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: 'synthetic' });
    for (let f = 1; f <= 600; f++) enc.function({ functionId: f, kind: f % 7 === 0 ? 1 : 0, name: `Synthetic.Namespace.Type${f % 50}.Method${f}`, module: f % 7 === 0 ? 'libc.so.6' : 'App.dll', file: '' });
    for (let t = 1; t <= 16; t++) enc.thread({ threadId: t, osTid: 1000 + t, clrThreadId: t, mono: 0, name: `worker-${t}` });
    const frames = new Uint32Array(FRAMES);
    for (let i = 0; i < SAMPLES; i++) {
      const stack = (i * 2654435761) % 4096;
      for (let k = 0; k < FRAMES; k++) frames[k] = 1 + ((stack * 31 + k * 17 + (k < 3 ? stack : 0)) % 600);
      enc.sample({ mono: i * 10_000, threadId: 1 + (i % 16), flags: 3, cpuNs: 900_000 + (i % 7), wallNs: 1_000_000, frames });
      if (enc.byteLength >= 4 << 20) writeSync(fd, enc.takeBytes(true));
    }
    enc.end({ mono: SAMPLES * 10_000, reason: 0 });
    writeSync(fd, enc.bytes());
    closeSync(fd);
  });

  /** Runs the CLI under /usr/bin/time; returns its peak resident memory in bytes. */
  function convertMeasured(out: string, extra: string[]): { code: number | null; stderr: string; peakBytes: number } {
    const r = spawnSync('/usr/bin/time', ['-f', 'PEAK_KB %M', process.execPath, CLI, 'convert', big, '-o', out, ...extra], { encoding: 'utf8', timeout: 600_000 });
    const m = /PEAK_KB (\d+)/.exec(r.stderr);
    return { code: r.status, stderr: r.stderr, peakBytes: m === null ? Number.NaN : Number(m[1]) * 1024 };
  }

  // speedscope gets one metric: both would write twice the text for no more coverage.
  for (const [out, extra] of [['big.pb.gz', []], ['big.speedscope.json', ['--metric', 'cpu']], ['big2.clrscope', []]] as [string, string[]][]) {
    it(`to ${out.replace(/^big2?/, '')}: peak memory well below the file's size`, (t) => {
      if (!existsSync('/usr/bin/time')) {
        t.skip('/usr/bin/time is not installed');
        return;
      }
      const size = statSync(big).size;
      const r = convertMeasured(join(dir, out), extra);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      t.diagnostic(`input ${(size / 2 ** 20).toFixed(0)} MiB, output ${(statSync(join(dir, out)).size / 2 ** 20).toFixed(0)} MiB, peak RSS ${(r.peakBytes / 2 ** 20).toFixed(0)} MiB`);
      assert.ok(size > 250 * 2 ** 20, `the input is ${size} bytes`);
      // The model takes 33 bytes a sample (about 50 MiB here, up to twice that while its
      // columns grow) against ~196 bytes a sample on disk. Loading the file whole would take
      // its size on top of the model and Node itself; streamed, the peak stays below the size.
      assert.ok(r.peakBytes < size, `peak ${r.peakBytes} bytes for a ${size}-byte input`);
      rmSync(join(dir, out), { force: true });
    });
  }
});
