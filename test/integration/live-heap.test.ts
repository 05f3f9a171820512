// The live heap (issue 12): Scenarios' live-heap keeps every Retained it makes in a list and drops
// every Transient at once, then collects; the program counts both itself. Recorded with
// `clrscope record --alloc on` on .NET 8, 9 (AllocationTick) and 10 (AllocationSampled) and read
// back by go tool pprof: after the last GC the live heap holds about the retained bytes of
// Retained, under the method that allocated them, and nothing of Transient. Lock-wait runs beside
// it: every wait names the thread that held the lock (the runtime's ContentionStart v2).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof } from './support/go-pprof.js';
import { targetOn, type RuntimeTfm } from './support/paths.js';
import { resultOf, runCli, type CliRun } from './support/run-cli.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-live-heap-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const UNITS: Record<string, number> = { '': 1, B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `go tool pprof -tags` totals of one tag as value -> total (bytes or a count). */
function tagTotals(text: string, tag: string): Map<string, number> {
  const out = new Map<string, number>();
  const at = text.indexOf(` ${tag}: Total`);
  if (at < 0) return out;
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s+([\d.]+)([a-zA-Z]*)\s+\(\s*[\d.]+%\):\s+(.+)$/.exec(line);
    if (m === null) break;
    out.set(m[3].trim(), Number(m[1]) * (UNITS[m[2]] ?? 1));
  }
  return out;
}

/** `go tool pprof -top` rows as name -> cum bytes. */
function cumByName(text: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^\s*\S+\s+\S+%\s+\S+%\s+([\d.]+)([kMG]?B)?\s+\S+%\s+(.+)$/.exec(line);
    if (m === null) continue;
    rows.set(m[3].trim(), Number(m[1]) * (UNITS[m[2] ?? ''] ?? 1));
  }
  return rows;
}

const RUNTIMES: readonly { label: string; tfm: RuntimeTfm }[] = [
  { label: '.NET 8', tfm: 'net8.0' },
  { label: '.NET 9', tfm: 'net9.0' },
  { label: '.NET 10', tfm: 'net10.0' },
];

for (const rt of RUNTIMES) {
  describe(`the live heap on ${rt.label}`, () => {
    const file = join(dir, `live-${rt.tfm}.pb.gz`);
    let run: CliRun;
    let facts: Record<string, number | string>;
    let holderTid: number;

    before(async () => {
      const { command, args } = targetOn('Scenarios', rt.tfm);
      run = await runCli(['record', '--alloc', 'on', '-o', file, '--', command, ...args, 'live-heap', 'lock-wait', '--allocate-mb', '160', '--seconds', '1'], { timeoutMs: 180000 });
      assert.equal(run.code, 0, run.stderr);
      const result = resultOf(run.stdout);
      facts = (result.scenarios as Record<string, Record<string, number | string>>)['live-heap'];
      holderTid = (result.threads as Record<string, { tid: number }>)['lock-wait-holder'].tid;
    });

    it('the summary gives the live heap after the last GC, the retained type first', () => {
      assert.match(run.stderr, /Live heap after the last GC: about [\d.]+ MiB in [\d,]+ objects/);
      assert.match(run.stderr, /top live types:\n\s+[\d.]+ MiB {2}Clrscope\.Targets\.Scenarios\.Retained\n/);
    });

    it('holds the retained bytes of the kept type within 15%, under Keep, and none of the dropped type (go tool pprof)', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const retained = Number(facts.retainedBytes);
      const types = tagTotals(goPprof(['-tags', '-sample_index=inuse-space'], file), 'type');
      const kept = types.get(`${NS}Retained`) ?? 0;
      const dropped = types.get(`${NS}Transient`) ?? 0;
      t.diagnostic(`Retained ${(kept / 2 ** 20).toFixed(1)} MiB live of ${(retained / 2 ** 20).toFixed(1)} MiB kept; Transient ${(dropped / 2 ** 20).toFixed(2)} MiB live of ${(Number(facts.transientBytes) / 2 ** 20).toFixed(1)} MiB made; GC.GetTotalMemory ${(Number(facts.totalMemoryAfterGc) / 2 ** 20).toFixed(1)} MiB`);
      assert.ok(Math.abs(kept - retained) <= 0.15 * retained, `Retained: ${kept} bytes live of ${retained}`);
      assert.ok(dropped <= 0.01 * retained, `Transient: ${dropped} bytes live, all were dropped`);
      const cum = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=inuse-space'], file));
      const underKeep = cum.get(`${NS}LiveHeapGrowth.Keep`) ?? 0;
      assert.ok(underKeep >= 0.85 * retained, `under LiveHeapGrowth.Keep: ${underKeep} of ${retained}`);
      assert.equal(cum.get(`${NS}LiveHeapGrowth.Churn`) ?? 0, 0, 'nothing live under Churn');
    });

    it('names the thread holding the lock on every lock wait (ContentionStart v2)', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const tags = goPprof(['-tags', '-sample_index=contentions'], file);
      assert.deepEqual([...tagTotals(tags, 'lock owner thread')], [['lock-wait-holder', 12]]);
      assert.deepEqual([...tagTotals(tags, 'lock owner thread id')], [[String(holderTid), 12]]);
    });

    it('counts the kept objects within 15% (inuse-objects)', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const objects = tagTotals(goPprof(['-tags', '-sample_index=inuse-objects'], file), 'type').get(`${NS}Retained`) ?? 0;
      const want = Number(facts.retainedObjects);
      t.diagnostic(`${objects} Retained objects live of ${want}`);
      assert.ok(Math.abs(objects - want) <= 0.15 * want, `${objects} of ${want}`);
    });
  });
}
