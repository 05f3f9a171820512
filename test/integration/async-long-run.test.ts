// Async call stacks stay right for as long as the program runs (issue 26): AsyncChain's `service`
// mode runs 32 operations, each looping Gateway → Basket → Tax over Task.Yield for 60 s, so
// millions of tasks begin and end around 32 loops that live the whole run. In the last 10 s,
// ≥ 95% of the leaf's CPU (Tax burning) must still be chained up to the loop at the root:
// `[await] Loop` above `[await] Gateway` above `[await] Basket` above Tax's MoveNext. With edges
// kept by the task id's low 18 bits the root went first (100% `[await] ?` in a 30 s run's last 10 s).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ASYNC_SOURCES } from '../../electron/services/profiler/profiler-env.js';
import { AsyncSource } from '../../structs/analysis/async-source.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-long-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SECONDS = 60;
const LAST_S = 10;
const TAX = /\+<Tax>d__\d+\.MoveNext$/;
const SPIN = /\.Burn\.(Spin|Mix)$/;
const awaitOf = (method: string): RegExp => new RegExp(`^\\[await\\] (\\S+\\.)?Service\\.${method}$`);

// Both sources of chains (native-profiler/ASYNC-STACKS-STUDY.md): the TPL events' tables, whose
// entries must live as long as their operations, and the heap read at each sample, which keeps
// nothing per operation.
for (const source of ASYNC_SOURCES) describe(`async call stacks in a long run (record --async --async-source ${source}, 60 s)`, () => {
  it(`the last ${LAST_S} s keep ≥ 95% of Tax's CPU chained to the loop at the root`, { timeout: (SECONDS + 240) * 1000 }, async (t) => {
    const file = join(dir, `service-${source}.clrscope`);
    const run = await runCli(['record', '--async', '--async-source', source, '-o', file, '--', 'dotnet', targetDll('AsyncChain'), 'service', '--seconds', String(SECONDS), '--parallel', '32'], { timeoutMs: (SECONDS + 200) * 1000 });
    assert.equal(run.code, 0, run.stderr);
    const result = resultOf(run.stdout);
    assert.ok(Number(result.taxCalls) > 0, run.stdout);
    const rec = openRecording(readFileSync(file)).recording;
    const src = new AsyncSource(rec);
    const cols = src.sampleColumns();
    const label = (f: number): string => { const fn = src.functionInfo(f); return fn === undefined ? '?' : frameLabel(fn); };
    let end = 0;
    for (let i = 0; i < cols.mono.length; i++) if (cols.cpuNs[i] > 0 && cols.mono[i] > end) end = cols.mono[i];
    const from = end - LAST_S * 1e9;
    let inTax = 0;
    let chained = 0;
    let unknownRoot = 0;
    let samples = 0;
    for (let i = 0; i < cols.stackId.length; i++) {
      if (cols.cpuNs[i] <= 0 || cols.mono[i] < from) continue;
      const rootFirst = Array.from(src.stackFrames(cols.stackId[i]), label).reverse();
      const tax = rootFirst.findIndex((l) => TAX.test(l));
      if (tax < 0 || !rootFirst.some((l) => SPIN.test(l))) continue;
      samples++;
      inTax += cols.cpuNs[i];
      if (tax >= 3 && awaitOf('Basket').test(rootFirst[tax - 1]) && awaitOf('Gateway').test(rootFirst[tax - 2]) && awaitOf('Loop').test(rootFirst[tax - 3])) chained += cols.cpuNs[i];
      else if (rootFirst.includes('[await] ?')) unknownRoot += cols.cpuNs[i];
    }
    t.diagnostic(`last ${LAST_S} s: ${(chained / 1e6).toFixed(0)} of ${(inTax / 1e6).toFixed(0)} ms of Tax's CPU chained to Loop (${samples} samples; ${(unknownRoot / 1e6).toFixed(0)} ms under [await] ?); ${String(result.taxCalls)} Tax calls`);
    assert.ok(samples >= 50, `only ${samples} CPU samples in Tax in the last ${LAST_S} s`);
    assert.ok(chained >= 0.95 * inTax, `${(chained / 1e6).toFixed(0)} of ${(inTax / 1e6).toFixed(0)} ms chained to the root`);
  });
});
