// Wire v2 from the real profiler in real .NET processes (test/targets/WireLoad): stacks sent
// once and named by id (a few bytes a sample instead of v1's ~130), modules with their full
// path and MVID, functions with their metadata tokens, as the program itself reports them.

import assert from 'node:assert/strict';
import { isAbsolute } from 'node:path';
import { before, describe, it } from 'node:test';
import { FunctionKind, ModuleKind, OffsetKind } from '../../structs/wire/records.js';
import { resultOf } from './support/run-cli.js';
import { targetDll } from './support/paths.js';
import { recordTarget, type TargetRun } from './support/record-target.js';

const NS = 'Clrscope.Targets.WireLoad.';

describe('wire v2 from a CPU-bound program over thousands of call paths (WireLoad stacks)', () => {
  let run: TargetRun;
  let result: Record<string, unknown>;

  before(async () => {
    run = await recordTarget(targetDll('WireLoad'), ['stacks', '--threads', '2', '--seconds', '3']);
    result = resultOf(run.stdout);
  });

  it('names the program\'s module by its full path and MVID, and its methods by their tokens', () => {
    const rec = run.rec;
    const module = rec.modules().find((m) => m.path.endsWith('/WireLoad.dll'));
    assert.ok(module !== undefined, `no WireLoad.dll among ${rec.modules().map((m) => m.path).join(', ')}`);
    assert.ok(isAbsolute(module.path), module.path);
    assert.equal(module.kind, ModuleKind.Managed);
    assert.equal(module.mvid, result.moduleVersionId);
    const tokens = result.tokens as Record<string, number>;
    for (const name of ['Leaf.Burn', 'CallPath.Run']) {
      const fn = rec.functions().find((f) => f.name === `${NS}${name}`);
      assert.ok(fn !== undefined, `${name} was sampled`);
      assert.equal(fn.token, tokens[name], name);
      assert.equal(fn.moduleId, module.id, name);
      assert.equal(fn.module, 'WireLoad.dll');
    }
    const coreclr = rec.modules().find((m) => m.path.endsWith('/libcoreclr.so'));
    assert.ok(coreclr !== undefined && isAbsolute(coreclr.path) && coreclr.kind === ModuleKind.Native);
    assert.equal(coreclr.mvid, '0'.repeat(32));
  });

  it('sends each stack once and then only its id: a few bytes a sample', (t) => {
    const rec = run.rec;
    const stream = run.result.stream;
    assert.ok(stream !== undefined);
    const perSample = stream.bytesReceived / rec.sampleCount;
    t.diagnostic(`${rec.sampleCount} samples, ${rec.stackCount} stacks, ${stream.bytesReceived} bytes: ${perSample.toFixed(1)} bytes a sample`);
    // Hundreds of distinct stacks within 3 s, most defined once and sampled once or twice, so
    // definitions dominate here; v1 took 113 bytes a sample on this program.
    assert.ok(rec.stackCount > 200, `${rec.stackCount} stacks`);
    assert.ok(perSample < 40, `${perSample.toFixed(1)} bytes a sample`);
    // Frames are places in functions: an IL offset in managed code the runtime's map knows,
    // else the function as a whole; each (function, offset) once.
    assert.ok(rec.hasFrames);
    const places = new Set<string>();
    let il = 0;
    for (const f of rec.frames()) {
      const fn = rec.functionInfo(f.functionId);
      assert.ok(fn !== undefined);
      assert.ok(f.offsetKind === OffsetKind.None || (f.offsetKind === OffsetKind.IL && fn.kind === FunctionKind.Managed), JSON.stringify(f));
      if (f.offsetKind === OffsetKind.IL) il++;
      const place = `${f.functionId}:${f.offsetKind}:${f.offset}`;
      assert.ok(!places.has(place), `frame ${place} defined twice`);
      places.add(place);
    }
    assert.ok(il > 0, 'managed frames carry IL offsets');
  });
});

describe('wire v2 from many threads blocked on one lock (WireLoad lock)', () => {
  let run: TargetRun;
  let result: Record<string, unknown>;

  before(async () => {
    run = await recordTarget(targetDll('WireLoad'), ['lock', '--threads', '100', '--seconds', '3']);
    result = resultOf(run.stdout);
  });

  it('puts every waiter on the same stack and sends a few bytes a sample', (t) => {
    const rec = run.rec;
    const stream = run.result.stream;
    assert.ok(stream !== undefined);
    assert.equal(result.acquired, 100);
    const wait = rec.functions().find((f) => f.name === `${NS}LockLoad.Wait`);
    assert.ok(wait !== undefined);
    assert.equal(wait.token, (result.tokens as Record<string, number>)['LockLoad.Wait']);
    // Which stacks hold the waiters' wall samples: one blocked stack takes nearly all of them.
    const byStack = new Map<number, number>();
    const c = rec.sampleColumns();
    for (let i = 0; i < rec.sampleCount; i++) {
      const name = rec.thread(c.threadId[i])?.name ?? '';
      if (name.startsWith('waiter-') && Array.from(rec.stackFrames(c.stackId[i])).includes(wait.id)) byStack.set(c.stackId[i], (byStack.get(c.stackId[i]) ?? 0) + 1);
    }
    const counts = [...byStack.values()].sort((a, b) => b - a);
    const waiting = counts.reduce((a, b) => a + b, 0);
    t.diagnostic(`${rec.sampleCount} samples (${waiting} of waiters in Wait) on ${byStack.size} stacks; ${stream.bytesReceived} bytes: ${(stream.bytesReceived / rec.sampleCount).toFixed(2)} bytes a sample`);
    assert.ok(waiting > 2000, `${waiting} waiter samples`);
    assert.ok(counts[0] / waiting > 0.9, `the commonest waiting stack has ${counts[0]} of ${waiting}`);
    assert.ok(stream.bytesReceived / rec.sampleCount < 6, `${(stream.bytesReceived / rec.sampleCount).toFixed(2)} bytes a sample`);
  });
});
