// Async call stacks in every output written straight from `record --async` (issue 26): pprof read
// back by `go tool pprof -traces`, speedscope checked against speedscope's own schema and nettrace
// read by TraceEvent (test/tools/TraceCheck) must each have AsyncChain's chain, `[await] Middle`
// and `[await] Outer` above Inner's MoveNext, for ≥ 90% of Inner's CPU; the recording is never
// kept as a .clrscope in between. In nettrace, the suspended operations' samples are on a thread
// of their own, never on a "Thread (0)". The workstation's export of a launched session (its
// stream read back the way `record` reads it) has them in pprof too.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SYNTHETIC_TID_BASE } from '../../structs/formats/nettrace/recording-to-nettrace.js';
import { ASYNC_PROFILE_PREFIX } from '../../structs/formats/speedscope/profile-name.js';
import { speedscopeSchemaProblems } from '../../structs/formats/speedscope/schema-check.js';
import type { SpeedscopeFile } from '../../structs/formats/speedscope/speedscope-file.js';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { ASYNC_SOURCES, type AsyncSource } from '../../electron/services/profiler/profiler-env.js';
import { goAvailable, pprofTraces } from './support/go-pprof.js';
import { PROFILER, targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';
import { traceCheck } from './support/trace-check.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-outputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const INNER = /\+<Inner>d__\d+\.MoveNext$/;
const SPIN = /\.Burn\.(Spin|Mix)$/;
const awaitOf = (method: string): RegExp => new RegExp(`^\\[await\\] (\\S+\\.)?Chain\\.${method}$`);

/** Records AsyncChain's chain with --async (its chains from `source`) straight into `name`. */
async function recordTo(name: string, source: AsyncSource): Promise<string> {
  const out = join(dir, `${source}-${name}`);
  const run = await runCli(['record', '--async', '--async-source', source, '-o', out, '--', 'dotnet', targetDll('AsyncChain'), 'chain', '--seconds', '3', '--parallel', '2'], { timeoutMs: 180000 });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(Number(resultOf(run.stdout).innerCalls) > 0, run.stdout);
  return out;
}

/** The CPU stacks of `go tool pprof -traces`, root first, with their weights in ns. */
function pprofStacks(pb: string): { text: string; stacks: [string[], number][] } {
  return pprofTraces(pb, 'cpu');
}

/** Of root-first stacks with weights: the weight in Inner's continuation, and the part with [await] Middle and [await] Outer right above Inner's MoveNext. */
function share(stacks: Iterable<[string[], number]>): { inInner: number; chained: number; samples: number } {
  const s = { inInner: 0, chained: 0, samples: 0 };
  for (const [rootFirst, weight] of stacks) {
    const inner = rootFirst.findIndex((l) => INNER.test(l));
    if (inner < 0 || !rootFirst.some((l) => SPIN.test(l))) continue;
    s.inInner += weight;
    s.samples++;
    if (inner >= 2 && awaitOf('Middle').test(rootFirst[inner - 1]) && awaitOf('Outer').test(rootFirst[inner - 2])) s.chained += weight;
  }
  return s;
}

// Both sources of chains (native-profiler/ASYNC-STACKS-STUDY.md): the TPL events of every await, and
// the heap read at each sample, which has no suspended operations' time.
for (const source of ASYNC_SOURCES) describe(`record --async --async-source ${source} straight to every output`, () => {
  it("pprof (go tool pprof -traces): ≥ 90% of Inner's CPU under [await] Middle under [await] Outer", { timeout: 200000 }, async (t) => {
    if (!goAvailable()) {
      if (process.env.CI) assert.fail('`go` is not on PATH but CI is set');
      t.skip('go not found');
      return;
    }
    const pb = await recordTo('chain.pb.gz', source);
    const { text, stacks } = pprofStacks(pb);
    const s = share(stacks);
    t.diagnostic(`pprof: ${(s.chained / 1e6).toFixed(0)} of ${(s.inInner / 1e6).toFixed(0)} ms of Inner's CPU chained (${s.samples} stacks)`);
    assert.ok(s.samples >= 1 && s.inInner > 0 && s.chained >= 0.9 * s.inInner, `${s.chained} of ${s.inInner} ns chained:\n${text.slice(0, 3000)}`);
    assert.match(text, /^async stack:\s+logical$/m);
  });

  it("speedscope (its own schema): the 'async stacks · cpu' profile has ≥ 90% of Inner's CPU under [await] Middle under [await] Outer", { timeout: 200000 }, async (t) => {
    const json = await recordTo('chain.speedscope.json', source);
    const parsed = JSON.parse(readFileSync(json, 'utf8')) as SpeedscopeFile;
    assert.deepEqual(speedscopeSchemaProblems(parsed), []);
    const names = parsed.shared.frames.map((f) => f.name);
    const profile = parsed.profiles.find((p) => p.name === `${ASYNC_PROFILE_PREFIX}cpu`);
    assert.ok(profile !== undefined && profile.type === 'sampled', parsed.profiles.map((p) => p.name).join(', '));
    const s = share(profile.samples.map((st, i): [string[], number] => [st.map((f) => names[f]), profile.weights[i]]));
    t.diagnostic(`speedscope: ${(s.chained / 1e6).toFixed(0)} of ${(s.inInner / 1e6).toFixed(0)} ms of Inner's CPU chained`);
    assert.ok(s.inInner > 0 && s.chained >= 0.9 * s.inInner, `${s.chained} of ${s.inInner} chained`);
  });

  it('nettrace (TraceEvent): [await] Middle and [await] Outer over ≥ 90% of the samples in Inner\'s MoveNext; suspended operations on their own thread, no Thread (0)', { timeout: 200000 }, async (t) => {
    const file = await recordTo('chain.nettrace', source);
    const tc = traceCheck(file);
    const inclusive = (test: (method: string) => boolean): number => tc.methods.filter((m) => test(m.method)).reduce((a, m) => a + m.inclusive, 0);
    const inner = inclusive((m) => INNER.test(m));
    const middle = inclusive((m) => awaitOf('Middle').test(m));
    const outer = inclusive((m) => awaitOf('Outer').test(m));
    t.diagnostic(`TraceEvent: ${inner} samples in Inner's MoveNext, ${middle} under [await] Middle, ${outer} under [await] Outer; threads ${tc.threads.map((x) => `${x.tid}:${x.samples}`).join(' ')}`);
    assert.ok(inner >= 10, `only ${inner} samples in Inner's MoveNext`);
    assert.ok(middle >= 0.9 * inner && outer >= 0.9 * inner, tc.methods.slice(0, 20).map((m) => `${m.method} ${m.inclusive}`).join('\n'));
    assert.ok(!tc.threads.some((x) => x.tid === 0), `a Thread (0): ${JSON.stringify(tc.threads)}`);
    if (source === 'heap') return;
    const own = tc.threads.filter((x) => x.tid >= SYNTHETIC_TID_BASE);
    assert.equal(own.length, 1, 'the suspended operations have one thread of their own');
    assert.ok(own[0].samples > 0);
    // Their samples carry their chains: [suspended] under the operations' [await] frames.
    assert.ok(inclusive((m) => m.endsWith('[suspended]')) > 0, 'the [suspended] frame is there');
  });
});

describe('the workstation with async stacks', () => {
  it("the workstation's pprof export of a launched --async session: ≥ 90% of Inner's CPU under [await] Middle under [await] Outer", { timeout: 200000 }, async (t) => {
    if (!goAvailable()) {
      if (process.env.CI) assert.fail('`go` is not on PATH but CI is set');
      t.skip('go not found');
      return;
    }
    const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    try {
      const info = await workstation.launch({ command: 'dotnet', args: [targetDll('AsyncChain'), 'chain', '--seconds', '3', '--parallel', '2'], async: true });
      for (let waited = 0; !(await workstation.listSessions()).some((x) => x.id === info.id && x.state === 'stopped'); waited += 200) {
        assert.ok(waited < 150000, 'the session did not stop');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const pb = join(dir, 'exported.pb.gz');
      await workstation.exportRecording({ sessionId: info.id, format: 'pprof', path: pb });
      const { text, stacks } = pprofStacks(pb);
      const s = share(stacks);
      t.diagnostic(`workstation export: ${(s.chained / 1e6).toFixed(0)} of ${(s.inInner / 1e6).toFixed(0)} ms of Inner's CPU chained`);
      assert.ok(s.inInner > 0 && s.chained >= 0.9 * s.inInner, `${s.chained} of ${s.inInner} ns chained:\n${text.slice(0, 2000)}`);
    } finally {
      await workstation.shutdown();
    }
  });
});
