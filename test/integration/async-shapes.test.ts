// Async call stacks across the shapes of await that real code uses (issue 14): ValueTask-returning
// async methods, ConfigureAwait(false) everywhere, a Task.WhenAll fan-out, and an ASP.NET Core
// minimal-API endpoint that is an async lambda. Each runs under `record --async` (AsyncChain's
// modes; AsyncWeb, which serves itself) and burns CPU in its innermost method after an await, so
// those samples are taken in a continuation on a pool thread: ≥ 90% of that CPU must have the
// method's logical callers right above its MoveNext in the .clrscope file read back.
//
// A ValueTask method built with PoolingAsyncValueTaskMethodBuilder makes no task, so the runtime
// raises no task event for it: from the events its continuations keep their physical stacks
// (README, "Limits"), which the test asserts as such. Read from the heap (`--async-source heap`),
// its pooled box is probed and walked like a task's (native-profiler/shim/async_heap.cpp): there
// the chain must be whole.
//
// The fan-out's branches are awaited by no TaskWaitBegin (CoreLib registers Task.WhenAll on its
// tasks directly); the profiler takes the operations begun just before the combinator on its
// thread as its branches (native-profiler/core/async_tracker.cpp, "Orphans"), so each branch
// sits under Request through an `[await] Task.WhenAll` frame.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AsyncSource, SUSPENDED_FRAME } from '../../structs/analysis/async-source.js';
import { openRecording } from '../../structs/formats/clrscope-file/open-recording.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-shapes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Logical {
  /** Root-first labels and the sample's value. */
  cpu: [string[], number][];
  wall: [string[], number][];
  result: Record<string, unknown>;
}

async function record(name: string, program: string[], source: 'events' | 'heap' = 'events'): Promise<Logical> {
  const file = join(dir, `${name}.clrscope`);
  const run = await runCli(['record', '--async-source', source, '-o', file, '--', 'dotnet', ...program], { timeoutMs: 180000 });
  assert.equal(run.code, 0, run.stderr);
  const src = new AsyncSource(openRecording(readFileSync(file)).recording);
  const cols = src.sampleColumns();
  const label = (f: number): string => { const fn = src.functionInfo(f); return fn === undefined ? '?' : frameLabel(fn); };
  const out: Logical = { cpu: [], wall: [], result: resultOf(run.stdout) };
  for (let i = 0; i < cols.stackId.length; i++) {
    const rootFirst = Array.from(src.stackFrames(cols.stackId[i]), label).reverse();
    if (cols.cpuNs[i] > 0) out.cpu.push([rootFirst, cols.cpuNs[i]]);
    if (cols.wallNs[i] > 0) out.wall.push([rootFirst, cols.wallNs[i]]);
  }
  return out;
}

// An [await] frame names its method's type when the recording has the state machine's MoveNext
// (a method that never ran when sampled, like a branch that only awaits, has none): optional.
const awaitOf = (type: string, method: string): RegExp => new RegExp(`^\\[await\\] ((\\S+\\.)?${type}\\.)?${method}$`);

interface Share { cpu: number; chained: number; samples: number; byCaller: Map<string, number> }

/**
 * CPU spent in `spin` under the innermost state machine `leaf`, and the part whose frames right
 * above `leaf` match `callers` (nearest first; a caller that is a list takes any of them).
 */
function share(stacks: [string[], number][], leaf: RegExp, spin: RegExp, callers: (RegExp | RegExp[])[]): Share {
  const s: Share = { cpu: 0, chained: 0, samples: 0, byCaller: new Map() };
  for (const [rootFirst, ns] of stacks) {
    const at = rootFirst.findIndex((l) => leaf.test(l));
    if (at < 0 || !rootFirst.slice(at + 1).some((l) => spin.test(l))) continue;
    s.cpu += ns;
    s.samples++;
    const ok = callers.every((c, k) => {
      const l = rootFirst[at - 1 - k];
      return l !== undefined && (Array.isArray(c) ? c.some((r) => r.test(l)) : c.test(l));
    });
    if (!ok) continue;
    s.chained += ns;
    const caller = rootFirst[at - 1];
    s.byCaller.set(caller, (s.byCaller.get(caller) ?? 0) + ns);
  }
  return s;
}

function check(t: { diagnostic(m: string): void }, what: string, s: Share, stacks: [string[], number][], leaf: RegExp): void {
  t.diagnostic(`${what}: ${(s.chained / 1e6).toFixed(0)} of ${(s.cpu / 1e6).toFixed(0)} ms chained (${s.samples} samples)`);
  const unchained = stacks.filter(([st]) => st.some((l) => leaf.test(l))).slice(0, 3).map(([st]) => st.slice(-8).join(' ; '));
  assert.ok(s.samples >= 10, `only ${s.samples} CPU samples in the innermost method: ${unchained.join(' | ')}`);
  assert.ok(s.chained >= 0.9 * s.cpu, `${s.chained} of ${s.cpu} ns chained; e.g. ${unchained.join(' | ')}`);
}

const SPIN = /\.(Burn\.Spin|Burn\.Mix|Endpoints\.Spin)$/;

describe('async call stacks across await shapes (record --async)', () => {
  it("ValueTask: ≥ 90% of Inner's CPU under [await] Middle, [await] Outer and [await] Loop (async ValueTask<long> methods)", async (t) => {
    const r = await record('valuetask', [targetDll('AsyncChain'), 'valuetask', '--seconds', '3', '--parallel', '2']);
    assert.ok(Number(r.result.leafCalls) > 0, JSON.stringify(r.result));
    const leaf = /\.ValueChain\+<Inner>d__\d+\.MoveNext$/;
    check(t, 'valuetask', share(r.cpu, leaf, SPIN, [awaitOf('ValueChain', 'Middle'), awaitOf('ValueChain', 'Outer'), awaitOf('Loops', 'Loop')]), r.cpu, leaf);
  });

  it("pooled ValueTask (PoolingAsyncValueTaskMethodBuilder), the documented limit: no task is made for Middle and Inner, so Inner's CPU keeps its physical stack, no [await] frame above it", async (t) => {
    const r = await record('pooled', [targetDll('AsyncChain'), 'pooled', '--seconds', '3', '--parallel', '2']);
    assert.ok(Number(r.result.leafCalls) > 0, JSON.stringify(r.result));
    const leaf = /\.PooledChain\+<Inner>d__\d+\.MoveNext$/;
    const s = share(r.cpu, leaf, SPIN, []);
    const spliced = r.cpu.filter(([st]) => st.some((l) => leaf.test(l)) && st.some((l) => l.startsWith('[await]'))).reduce((a, [, ns]) => a + ns, 0);
    const pooled = r.cpu.filter(([st]) => st.some((l) => leaf.test(l)) && st.some((l) => /ThreadPoolWorkQueue\.Dispatch$/.test(l))).reduce((a, [, ns]) => a + ns, 0);
    t.diagnostic(`pooled: ${(spliced / 1e6).toFixed(0)} of ${(s.cpu / 1e6).toFixed(0)} ms under [await] frames, ${(pooled / 1e6).toFixed(0)} ms under the pool's dispatch (${s.samples} samples)`);
    assert.ok(s.samples >= 10, `only ${s.samples} CPU samples in Inner`);
    assert.ok(pooled >= 0.9 * s.cpu && spliced <= 0.1 * s.cpu, `${spliced} ns spliced, ${pooled} of ${s.cpu} ns physical`);
  });

  it("pooled ValueTask read from the heap (--async-source heap): ≥ 90% of Inner's CPU under [await] Middle, [await] Outer and [await] Loop", async (t) => {
    const r = await record('pooled-heap', [targetDll('AsyncChain'), 'pooled', '--seconds', '4', '--parallel', '2'], 'heap');
    assert.ok(Number(r.result.leafCalls) > 0, JSON.stringify(r.result));
    const leaf = /\.PooledChain\+<Inner>d__\d+\.MoveNext$/;
    check(t, 'pooled, heap', share(r.cpu, leaf, SPIN, [awaitOf('PooledChain', 'Middle'), awaitOf('PooledChain', 'Outer'), awaitOf('Loops', 'Loop')]), r.cpu, leaf);
  });

  it("ConfigureAwait(false): ≥ 90% of Inner's CPU under [await] Middle, [await] Outer and [await] Loop", async (t) => {
    const r = await record('configure-await', [targetDll('AsyncChain'), 'configure-await', '--seconds', '4', '--parallel', '2']);
    assert.ok(Number(r.result.leafCalls) > 0, JSON.stringify(r.result));
    const leaf = /\.ConfiguredChain\+<Inner>d__\d+\.MoveNext$/;
    check(t, 'configure-await', share(r.cpu, leaf, SPIN, [awaitOf('ConfiguredChain', 'Middle'), awaitOf('ConfiguredChain', 'Outer'), awaitOf('Loops', 'Loop')]), r.cpu, leaf);
  });

  it("Task.WhenAll fan-out: ≥ 90% of Leaf's CPU under its own branch (Left or Right, each ≥ 10%), then [await] Task.WhenAll and [await] Request; the branches' suspended time under Request too", async (t) => {
    const r = await record('fanout', [targetDll('AsyncChain'), 'fanout', '--seconds', '3', '--parallel', '2']);
    assert.ok(Number(r.result.leafCalls) > 0, JSON.stringify(r.result));
    const leaf = /\.FanOut\+<Leaf>d__\d+\.MoveNext$/;
    const branches = [awaitOf('FanOut', 'Left'), awaitOf('FanOut', 'Right')];
    const s = share(r.cpu, leaf, SPIN, [branches, /^\[await\] Task\.WhenAll$/, awaitOf('FanOut', 'Request'), awaitOf('Loops', 'Loop')]);
    check(t, 'fanout', s, r.cpu, leaf);
    branches.forEach((branch, k) => {
      const name = ['Left', 'Right'][k];
      const ns = [...s.byCaller].filter(([l]) => branch.test(l)).reduce((a, [, v]) => a + v, 0);
      t.diagnostic(`under ${name}: ${(ns / 1e6).toFixed(0)} ms`);
      assert.ok(ns >= 0.1 * s.cpu, `${ns} of ${s.cpu} ns under ${name}`);
    });
    // Suspended time: each branch's, under Request through the combinator.
    let underBranches = 0;
    for (const [st, ns] of r.wall) {
      const at = st.indexOf(SUSPENDED_FRAME);
      const wa = st.indexOf('[await] Task.WhenAll');
      if (at > wa && wa >= 1 && awaitOf('FanOut', 'Request').test(st[wa - 1])) underBranches += ns;
    }
    t.diagnostic(`branches' suspended time under Request: ${(underBranches / 1e6).toFixed(0)} ms`);
    assert.ok(underBranches > 0);
  });

  it("ASP.NET Core minimal API, async lambda endpoint: ≥ 90% of the lambda's CPU under RequestDelegateFactory's awaiter, then Kestrel's HttpProtocol.ProcessRequests", async (t) => {
    const r = await record('web', [targetDll('AsyncWeb'), '--seconds', '4', '--parallel', '2']);
    assert.ok(Number(r.result.handled) > 0 && r.result.handled === r.result.requests, JSON.stringify(r.result));
    const leaf = /\.Endpoints\+<>c\+<<Map>b__\d+_\d+>d\.MoveNext$/;
    // ASP.NET Core 10's own methods between the endpoint and Kestrel's request loop: the endpoint's
    // task is awaited by RequestDelegateFactory's local function (ExecuteTaskOfString's
    // ExecuteAwaited), which HttpProtocol.ProcessRequests awaits.
    const s = share(r.cpu, leaf, SPIN, [/^\[await\] Microsoft\.AspNetCore\.Http\.RequestDelegateFactory\.\S+$/, awaitOf('Microsoft\\.AspNetCore\\.Server\\.Kestrel\\.Core\\.Internal\\.Http\\.HttpProtocol', 'ProcessRequests')]);
    check(t, 'web', s, r.cpu, leaf);
    const chain = r.cpu.find(([st]) => st.some((l) => leaf.test(l)))?.[0].filter((l) => l.startsWith('[await]'));
    t.diagnostic(`chain: ${chain?.join(' → ')}`);
  });
});
