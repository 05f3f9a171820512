// clrscope's own cost, as the profiler measures it in the program (PROTOCOL.md, STATS), against a
// real .NET program: present in the recording, in `record`'s summary and in `report`, its parts
// adding up to its whole, and the process CPU it is set against matching the program's own count.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { targetDll } from './support/paths.js';
import { resultOf, runCli, type CliRun } from './support/run-cli.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { OWN_COST_PARTS, ownCostTotalNs } from '../../structs/profile/own-cost.js';
import type { OwnCost } from '../../structs/wire/records.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-own-cost-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('clrscope reports its own cost in a recorded program', () => {
  const file = join(dir, 'cost.clrscope');
  let run: CliRun;
  let cost: OwnCost | undefined;

  before(async () => {
    // CPU on two threads, sleeping threads (wall samples), exceptions and lock waits (callbacks,
    // runtime events, event stacks).
    run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', 'sleep', 'exceptions', 'lock', '--seconds', '2'], { timeoutMs: 300_000 });
    assert.equal(run.code, 0, run.stderr);
    cost = (await readRecordingFile(file)).recording.stats?.cost;
  });

  it('measures every part, none negative, the sampler and the handler above 0, all of it below the process CPU', () => {
    assert.ok(cost !== undefined, 'the recording\'s STATS carries clrscope\'s own cost');
    for (const { key } of OWN_COST_PARTS) assert.ok(Number.isSafeInteger(cost[key]) && cost[key] >= 0, `${key} = ${cost[key]}`);
    assert.ok(cost.samplerNs > 0, 'the sampler thread used CPU');
    assert.ok(cost.handlerNs > 0, 'the signal handler took CPU samples');
    assert.ok(cost.runtimeEventsNs + cost.callbacksNs + cost.eventStacksNs > 0, 'exceptions and lock waits went through clrscope\'s callbacks');
    assert.ok(ownCostTotalNs(cost) < cost.processCpuNs, `own ${ownCostTotalNs(cost)} ns < process ${cost.processCpuNs} ns`);
  });

  it('sets it against the process CPU the program itself counts', () => {
    assert.ok(cost !== undefined);
    // The program reads its own CPU just before it ends; the last STATS comes a little later.
    const own = Number(resultOf(run.stdout).processCpuMs) * 1e6;
    assert.ok(own > 0, run.stdout);
    assert.ok(cost.processCpuNs >= own * 0.9, `profiler ${cost.processCpuNs} ns vs program ${own} ns`);
    assert.ok(cost.processCpuNs <= own * 1.2 + 300e6, `profiler ${cost.processCpuNs} ns vs program ${own} ns`);
  });

  it('says it in record\'s summary, parts summing to the total, with the collector\'s CPU apart', () => {
    const line = run.stderr.split('\n').find((l) => l.startsWith('clrscope\'s own cost:'));
    assert.ok(line !== undefined, run.stderr);
    const m = /^clrscope's own cost: ([\d.]+) ms CPU = ([\d.]+)% of the program's CPU \(([^)]*)\); the collector \(this command\) used [\d.]+ m?s of CPU outside the program\.$/.exec(line);
    assert.ok(m !== null, line);
    const parts = m[3].split(', ').map((p) => /^(.*) ([\d.]+)$/.exec(p));
    assert.deepEqual(parts.map((p) => p?.[1]), OWN_COST_PARTS.map((p) => p.label));
    const sum = parts.reduce((n, p) => n + Number(p?.[2]), 0);
    // Each part is rounded for display.
    assert.ok(Math.abs(sum - Number(m[1])) <= 0.01 * Number(m[1]) + 0.05 * parts.length, `${sum} vs ${m[1]}`);
  });

  it('is in report --format json, its parts adding up to its total', async () => {
    const r = await runCli(['report', file, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { ownCost?: OwnCost & { totalNs: number; programCpuNs: number; percentOfProgram: number } };
    const c = report.ownCost;
    assert.ok(c !== undefined, 'report has ownCost');
    assert.equal(OWN_COST_PARTS.reduce((n, p) => n + c[p.key], 0), c.totalNs);
    assert.equal(c.programCpuNs, c.processCpuNs - c.totalNs);
    assert.ok(c.percentOfProgram > 0 && c.percentOfProgram < 100, String(c.percentOfProgram));
    const text = await runCli(['report', file]);
    assert.match(text.stdout, /^clrscope's own cost: [\d.]+ ms CPU = [\d.]+% of the program's CPU \(handler /m);
  });
});
