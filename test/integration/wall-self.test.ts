// Wall time's self where the program waited (issue 25; structs/analysis/wait-self.ts). Scenarios'
// lock: three waiters block on a monitor in LockWork.Wait while LockWork.Hold holds it, sleeping
// in Thread.Sleep. By the innermost frame their wall time was `[runtime]`'s (the runtime's wait
// on the monitor, the C library's nanosleep); charged to the program's own method that waited,
// LockWork.Wait tops wall-time self with the waiters' own waited time, and Hold has its sleep.
// `record`'s summary and `report` give the same rows.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { targetDll } from './support/paths.js';
import { resultOf, runCli, type CliRun } from './support/run-cli.js';
import type { Report } from '../../structs/analysis/report-model.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-wall-self-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The summary's wall-time rows as [self text, name]. */
function summaryWallRows(stderr: string): [string, string][] {
  const at = stderr.indexOf('Top methods by wall time');
  assert.ok(at >= 0, stderr);
  const rows: [string, string][] = [];
  for (const line of stderr.slice(at).split('\n').slice(2)) {
    const m = /^\s+[\d.]+%\s+([\d.]+ m?s)\s+[\d.]+%\s+(.+)$/.exec(line);
    if (m === null) break;
    rows.push([m[1], m[2]]);
  }
  return rows;
}

function seconds(text: string): number {
  const [n, unit] = text.split(' ');
  return Number(n) * (unit === 'ms' ? 1e-3 : 1);
}

describe('wall-time self: the method that waited', () => {
  const file = join(dir, 'lock.clrscope');
  let run: CliRun;
  let facts: { waiters: number; heldMs: number; waitedMs: Record<string, number> };

  before(async () => {
    run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('Scenarios'), 'lock', '--seconds', '2'], { timeoutMs: 120000 });
    assert.equal(run.code, 0, run.stderr);
    facts = (resultOf(run.stdout).scenarios as Record<string, typeof facts>).lock;
  });

  it('record\'s summary: LockWork.Wait first, with the waiters\' own waited time; Hold with its sleep', () => {
    const rows = summaryWallRows(run.stderr);
    assert.equal(rows[0][1], `${NS}LockWork.Wait`, rows.map((r) => r.join(' ')).join('\n'));
    const waited = Object.values(facts.waitedMs).reduce((a, b) => a + b, 0) / 1000;
    const self = seconds(rows[0][0]);
    assert.ok(Math.abs(self - waited) <= 0.1 * waited, `Wait: ${self} s of the waiters' ${waited} s`);
    const hold = rows.find((r) => r[1] === `${NS}LockWork.Hold`);
    assert.ok(hold !== undefined, 'Hold, sleeping inside the lock, has its own row');
    assert.ok(Math.abs(seconds(hold[0]) - facts.heldMs / 1000) <= 0.1 * facts.heldMs / 1000, `Hold: ${hold[0]} of ${facts.heldMs} ms`);
    assert.ok(rows.every((r) => !/^\[runtime\]$/.test(r[1]) || seconds(r[0]) < self), '[runtime] is not above the waiting method');
  });

  it('report --sample-type wall gives the same rows as the summary', async () => {
    const r = await runCli(['report', file, '--sample-type', 'wall', '--top', '5', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    const functions = report.functions ?? [];
    assert.equal(functions[0].name, `${NS}LockWork.Wait`);
    const rows = summaryWallRows(run.stderr);
    for (let i = 0; i < 4; i++) {
      assert.equal(functions[i].name, rows[i][1], `row ${i}`);
      const self = functions[i].self / 1e9;
      assert.ok(Math.abs(self - seconds(rows[i][0])) <= 0.01 * self + 0.0001, `${rows[i][1]}: report ${self} s, summary ${rows[i][0]}`);
    }
  });
});
