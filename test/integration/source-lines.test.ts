// Source lines end to end: a real .NET program whose hot loop is one known line (Scenarios
// hot-line; the line is found by its `// HOT LINE` marker), recorded by clrscope, then read
// back per line by Go's pprof tool (`-lines`, `-list`) from our pprof, by `clrscope report
// --lines`, and from our speedscope file: each must put at least 80% of the method's self CPU
// on that line.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { ROOT, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import type { Report } from '../../structs/analysis/report-model.js';

const SOURCE = join(ROOT, 'test', 'targets', 'Scenarios', 'HotLine.cs');
const METHOD = 'Clrscope.Targets.Scenarios.HotLineWork.Mix';
const HOT_LINE = readFileSync(SOURCE, 'utf8').split('\n').findIndex((l) => /;\s*\/\/ HOT LINE$/.test(l)) + 1;
const dir = mkdtempSync(join(tmpdir(), 'clrscope-lines-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('source lines of a hot loop', () => {
  const clr = join(dir, 'hot.clrscope');
  const pprof = join(dir, 'hot.pb.gz');
  const speedscope = join(dir, 'hot.speedscope.json');

  before(async () => {
    assert.ok(HOT_LINE > 0, 'the marker line in HotLine.cs');
    const r = await runCli(['record', '-o', clr, '--', 'dotnet', targetDll('Scenarios'), 'hot-line', '--seconds', '3']);
    assert.equal(r.code, 0, r.stderr);
    for (const out of [pprof, speedscope]) {
      const c = await runCli(['convert', clr, '-o', out]);
      assert.equal(c.code, 0, c.stderr);
    }
  });

  it('go tool pprof -lines puts at least 80% of the method\'s self CPU on the hot line, and -list shows it', (t) => {
    if (!goAvailable()) {
      assert.ok(!process.env.CI, 'go is required in CI (scripts/setup.sh installs golang-go)');
      t.skip('go is not installed');
      return;
    }
    const rows = parseTop(goPprof(['-top', '-lines', '-nodecount=100000', '-nodefraction=0', '-sample_index=cpu'], pprof))
      .filter((r) => r.name.startsWith(`${METHOD} `));
    const all = rows.reduce((s, r) => s + r.flat, 0);
    const hot = rows.filter((r) => r.name.endsWith(`HotLine.cs:${HOT_LINE}`)).reduce((s, r) => s + r.flat, 0);
    // On a loaded machine the thread may get little CPU; the share needs some samples, not many.
    assert.ok(all >= 0.1, `the method has self CPU (${all} s): ${JSON.stringify(rows)}`);
    assert.ok(hot / all >= 0.8, `${(100 * hot / all).toFixed(1)}% on line ${HOT_LINE}: ${JSON.stringify(rows)}`);
    // -list reads the source file the PDB names and puts the time beside its lines.
    const listing = goPprof(['-list', 'HotLineWork.Mix', '-sample_index=cpu'], pprof);
    const hotRow = listing.split('\n').find((l) => /;\s*\/\/ HOT LINE$/.test(l));
    assert.ok(hotRow !== undefined, listing);
    assert.match(hotRow, new RegExp(`^\\s*\\S+s\\s+\\S+\\s+${HOT_LINE}:`), listing);
  });

  it('clrscope report --lines puts at least 80% of the method\'s self CPU on the hot line', async () => {
    const run = await runCli(['report', clr, '--lines', '--top', '0', '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.equal(report.lines, true);
    const rows = report.functions!.filter((f) => f.name.startsWith(`${METHOD} [`) || f.name === METHOD);
    const all = rows.reduce((s, r) => s + r.self, 0);
    const hot = rows.filter((r) => r.name === `${METHOD} [HotLine.cs:${HOT_LINE}]`).reduce((s, r) => s + r.self, 0);
    assert.ok(rows.reduce((n, r) => n + r.selfSamples, 0) >= 10, JSON.stringify(rows));
    assert.ok(hot / all >= 0.8, `${(100 * hot / all).toFixed(1)}% on line ${HOT_LINE}: ${JSON.stringify(rows)}`);
    // The text form names the line too, and says which modules had no PDB (the framework's).
    const text = await runCli(['report', clr, '--lines', '--top', '5']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`HotLineWork\\.Mix \\[HotLine\\.cs:${HOT_LINE}\\]`));
  });

  it('speedscope frames carry the file and line', () => {
    const file = JSON.parse(readFileSync(speedscope, 'utf8')) as { shared: { frames: { name: string; file?: string; line?: number }[] } };
    const frames = file.shared.frames.filter((f) => f.name === METHOD && f.line !== undefined);
    assert.ok(frames.some((f) => f.line === HOT_LINE && f.file === SOURCE), JSON.stringify(frames));
  });
});

// Scenarios osr calls OsrWork.Burn six times, each one long loop: too few calls for the method to
// be re-compiled whole (tiering counts 30), so after the loop's first patchpoint hits (a few
// thousand iterations, docs/design/features/OnStackReplacement.md in dotnet/runtime) nearly all of
// its time is in the on-stack-replaced body the runtime compiled mid-loop. That body has its own
// IL map, which the profiler finds among the method's code versions like any tier's.
describe('source lines of on-stack-replaced code', () => {
  const OSR_SOURCE = join(ROOT, 'test', 'targets', 'Scenarios', 'Osr.cs');
  const BURN = 'Clrscope.Targets.Scenarios.OsrWork.Burn';
  const lines = readFileSync(OSR_SOURCE, 'utf8').split('\n');
  const loopFirst = lines.findIndex((l) => l.includes('for (long i = 0; i < iterations; i++)')) + 1;
  const loopLast = lines.findIndex((l) => l.includes('x ^= x << 17;')) + 1;
  const clr = join(dir, 'osr.clrscope');

  it('puts at least 90% of Burn\'s self CPU on lines of its loop', async (t) => {
    assert.ok(loopFirst > 0 && loopLast > loopFirst, 'the loop in Osr.cs');
    const r = await runCli(['record', '-o', clr, '--', 'dotnet', targetDll('Scenarios'), 'osr', '--seconds', '3']);
    assert.equal(r.code, 0, r.stderr);
    const run = await runCli(['report', clr, '--lines', '--top', '0', '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const rows = (JSON.parse(run.stdout) as Report).functions!.filter((f) => f.name === BURN || f.name.startsWith(`${BURN} [`));
    const samples = rows.reduce((n, r) => n + r.selfSamples, 0);
    const inLoop = rows.filter((r) => {
      const m = /\[Osr\.cs:(\d+)\]$/.exec(r.name);
      return m !== null && Number(m[1]) >= loopFirst && Number(m[1]) <= loopLast;
    }).reduce((n, r) => n + r.selfSamples, 0);
    t.diagnostic(`${inLoop} of Burn's ${samples} self samples on lines ${loopFirst}-${loopLast}: ${rows.map((r) => `${r.name.slice(BURN.length)} ${r.selfSamples}`).join(', ')}`);
    assert.ok(samples >= 20, `Burn has ${samples} self samples`);
    assert.ok(inLoop / samples >= 0.9, `${inLoop} of ${samples}`);
  });
});
