// Torture: parts of the profiler that fail. Every callback body runs inside guarded()
// (shim/guarded.h), which must keep any exception from reaching the runtime. CLRSCOPE_INJECT_THROW
// makes the named callbacks throw before their body runs; with nearly all of them failing, on
// programs that make the runtime call them tens of thousands of times (exceptions, threads, GCs,
// JIT, collectible load contexts), the program's exit code and RESULT stay those of the plain run,
// the stream still ends cleanly, and the log names each failing callback a few times, not once per
// call. The sampler's own thread failing (SamplerTick) stops sampling, not the program.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertUnchanged, EXIT_CODE, plainEnv, runPlain, runProfiled, tail, type Outcome } from './support/torture.js';

// All but the ones that start and end the session (Initialize, InitializeForAttach, Shutdown,
// the attach and detach notifications): with those failing there is no session to watch.
const FAILING = [
  'ThreadCreated', 'ThreadDestroyed', 'ThreadAssignedToOSThread', 'ThreadNameChanged',
  'ExceptionThrown', 'ExceptionSearchFilterEnter', 'ExceptionUnwindFinallyEnter',
  'GarbageCollectionStarted', 'GarbageCollectionFinished',
  'RuntimeSuspendStarted', 'RuntimeSuspendFinished', 'RuntimeSuspendAborted', 'RuntimeResumeFinished',
  'ModuleLoadFinished', 'ModuleUnloadStarted', 'ClassLoadFinished', 'AssemblyLoadFinished', 'AssemblyUnloadFinished',
  'AppDomainCreationFinished', 'AppDomainShutdownFinished', 'JITCompilationStarted', 'JITCompilationFinished',
  'EventPipeEventDelivered', 'GetReJITParameters', 'ReJITCompilationFinished', 'ReJITError',
];

const logs = mkdtempSync(join(tmpdir(), 'clrscope-inject-'));
after(() => rmSync(logs, { recursive: true, force: true }));

interface FailureCase {
  scenario: string;
  /** Callbacks the runtime must have called (and so the log must name) in this program. */
  called: readonly string[];
}

const CASES: FailureCase[] = [
  { scenario: 'exceptions', called: ['ThreadCreated', 'ExceptionThrown', 'JITCompilationFinished', 'RuntimeSuspendStarted', 'GarbageCollectionStarted'] },
  { scenario: 'dynamic-code', called: ['ModuleLoadFinished', 'AssemblyLoadFinished', 'ClassLoadFinished', 'JITCompilationStarted', 'AssemblyUnloadFinished'] },
];

for (const c of CASES) {
  describe(`torture: ${c.scenario} with the profiler's callbacks throwing`, () => {
    let plain: Outcome;
    before(async () => {
      plain = await runPlain(c.scenario);
    });

    it('the program is unchanged, the stream ends, and the log names each failing callback a few times', { timeout: 180000 }, async () => {
      assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));
      const log = join(logs, `${c.scenario}.log`);
      // Counters watched, so that the JIT and class-load callbacks are asked for too (they count for the counters block only).
      const p = await runProfiled(c.scenario, [], 10, { env: plainEnv({ CLRSCOPE_INJECT_THROW: FAILING.join(','), CLRSCOPE_LOG: log, CLRSCOPE_RUNTIME_COUNTERS: '1' }) });
      const what = `${c.scenario} with failing callbacks`;
      assertUnchanged(plain, p.outcome, what);
      assert.ok(p.stream !== undefined, `${what}: no stream arrived`);
      assert.equal(p.stream.state, 'ended', `${what}: the stream ended ${p.stream.state}, not cleanly`);
      const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes(': unexpected exception ('));
      for (const name of c.called) {
        const mine = lines.filter((l) => l.includes(`] ${name}: unexpected exception (`));
        assert.ok(mine.length > 0, `${what}: the log never names ${name} failing`);
        // The first three failures, then every thousandth: a count, not a line per call.
        const counts = mine.map((l) => Number(/\((\d+) so far\)/.exec(l)?.[1]));
        assert.ok(counts.every((n) => n <= 3 || n % 1000 === 0), `${what}: ${name} logged at ${counts.join(', ')}`);
      }
      const exceptions = lines.filter((l) => l.includes('] ExceptionThrown: unexpected exception ('));
      if (c.scenario === 'exceptions') {
        const last = Number(/\((\d+) so far\)/.exec(exceptions[exceptions.length - 1] ?? '')?.[1]);
        assert.ok(last >= 60000 - 1000, `${what}: ExceptionThrown failed ${last} times for the program's 60,000 exceptions`);
        assert.ok(exceptions.length <= 3 + 60, `${what}: ${exceptions.length} log lines for ExceptionThrown`);
      }
    });
  });
}

describe('torture: exceptions with the sampler thread failing', () => {
  it('the program is unchanged, the stream ends, and the log says sampling stopped', { timeout: 180000 }, async () => {
    const plain = await runPlain('exceptions');
    assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));
    const log = join(logs, 'sampler.log');
    const p = await runProfiled('exceptions', [], 10, { env: plainEnv({ CLRSCOPE_INJECT_THROW: 'SamplerTick', CLRSCOPE_LOG: log }) });
    const what = 'exceptions with a failing sampler';
    assertUnchanged(plain, p.outcome, what);
    assert.ok(p.stream !== undefined, `${what}: no stream arrived`);
    assert.equal(p.stream.state, 'ended', `${what}: the stream ended ${p.stream.state}, not cleanly`);
    assert.match(readFileSync(log, 'utf8'), /the sampler failed \(injected\); sampling stopped, the program carries on/);
  });
});
