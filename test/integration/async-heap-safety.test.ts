// Async stacks read from the heap (native-profiler/ASYNC-STACKS-STUDY.md §8) walk objects from a
// signal handler while the GC moves them. Under a tiny gen0 budget (DOTNET_GCgen0size=0x10000:
// thousands of GCs a second) and 1 ms sampling, AsyncChain's `churn` (8 operations looping
// Gateway → Basket → Tax over Task.Yield, every level allocating, every value checked by its
// caller) must finish with its own check clean, and the profiler's log must say what the walks
// did: how many were kept and reached the root, how many were thrown away because a runtime
// suspension overlapped them, and how many reads were rejected. Its samples keep their chain.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AsyncSource } from '../../structs/analysis/async-source.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-heap-safety-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SECONDS = 20;
const TAX = /\+<Tax>d__\d+\.MoveNext$/;
const awaitOf = (method: string): RegExp => new RegExp(`^\\[await\\] (\\S+\\.)?Churn\\.${method}$`);

describe('async stacks read from the heap under constant GCs (record --async-source heap)', () => {
  it('the program checks every value right, the walks are counted and the chains hold', { timeout: (SECONDS + 180) * 1000 }, async (t) => {
    const file = join(dir, 'churn.clrscope');
    const log = join(dir, 'churn.log');
    const run = await runCli(['record', '--interval', '1', '--async-source', 'heap', '-o', file, '--', 'dotnet', targetDll('AsyncChain'), 'churn', '--seconds', String(SECONDS), '--parallel', '8'], {
      env: { DOTNET_GCgen0size: '0x10000', CLRSCOPE_LOG: log },
      timeoutMs: (SECONDS + 150) * 1000,
    });
    assert.equal(run.code, 0, run.stderr);
    const result = resultOf(run.stdout);
    t.diagnostic(`program: ${JSON.stringify(result)}`);
    assert.equal(result.wrong, 0, 'the program found a wrong value');
    assert.ok(Number(result.calls) > 10000, `only ${String(result.calls)} calls`);
    assert.ok(Number(result.gen0) >= 1000, `only ${String(result.gen0)} gen0 GCs: the budget did not take`);

    assert.ok(existsSync(log), 'the profiler wrote its log');
    const text = readFileSync(log, 'utf8');
    const walks = /async heap: (\d+) walks \((\d+) to the root, (\d+) cut at a type not classified yet, (\d+) rejected by a read, (\d+) cut by depth\) in \d+ ns, \d+ of them in native code; (\d+) thrown away \(the runtime suspended\)/.exec(text);
    assert.ok(walks !== null, `no walk counts in the log:\n${text.split('\n').filter((l) => l.includes('async')).join('\n')}`);
    const [kept, root, , rejected, , thrown] = walks.slice(1).map(Number);
    t.diagnostic(`walks: ${kept} kept (${root} to the root), ${rejected} rejected by a read, ${thrown} thrown away during suspensions`);
    assert.ok(kept >= 100, `only ${kept} walks kept`);
    assert.ok(thrown > 0, 'no walk overlapped a suspension: the GCs did not meet the walks');
    assert.ok(root >= 0.9 * kept, `${root} of ${kept} walks reached the root`);

    // The chains that made it are right: Tax's samples with an [await] frame above its MoveNext have
    // Basket and then Gateway there. (Most of Tax's samples land in the GCs its allocations start,
    // while the runtime is suspended: those keep their physical stack.)
    const src = new AsyncSource(openRecording(readFileSync(file)).recording);
    const cols = src.sampleColumns();
    const label = (f: number): string => { const fn = src.functionInfo(f); return fn === undefined ? '?' : frameLabel(fn); };
    let inTax = 0;
    let withAwait = 0;
    let chained = 0;
    for (let i = 0; i < cols.stackId.length; i++) {
      if (cols.cpuNs[i] <= 0) continue;
      const rootFirst = Array.from(src.stackFrames(cols.stackId[i]), label).reverse();
      const tax = rootFirst.findIndex((l) => TAX.test(l));
      if (tax < 0) continue;
      inTax++;
      if (tax >= 1 && rootFirst[tax - 1].startsWith('[await] ')) withAwait++;
      if (tax >= 2 && awaitOf('Basket').test(rootFirst[tax - 1]) && awaitOf('Gateway').test(rootFirst[tax - 2])) chained++;
    }
    t.diagnostic(`${inTax} CPU samples in Tax's MoveNext, ${withAwait} with [await] frames, ${chained} of them under Basket and Gateway`);
    assert.ok(withAwait >= 10, `only ${withAwait} of ${inTax} samples in Tax have [await] frames`);
    assert.ok(chained >= 0.95 * withAwait, `${chained} of ${withAwait} chains are Tax < Basket < Gateway`);
  });
});
