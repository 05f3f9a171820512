// The bounded part of the harmlessness soak (issue 23; the whole soak is scripts/soak.mjs): two real
// programs, each run once without clrscope, once launched under `clrscope record` and once attached
// to with `clrscope record --pid`, at --interval 1 with every event type on (--alloc on --locks on
// --exceptions on --async). A profiled run must end as the bare run did (exit code 0, no signal, no
// hang), print the same (normalized) output, write the same files, and leave a sane recording
// (samples counted, no failure in the profiler's log).
//
//   PowerShell 7.6.10 (a .NET tool from NuGet, installed by scripts/soak/setup-soak.sh) running
//   test/soak/soak.ps1: the language, the pipeline, regex, 14 kinds of exception, thread jobs and a
//   background job (a child process, recorded with --children);
//   SoakWeb, an ASP.NET Core minimal API, under 20,000 requests from 8 connections on 127.0.0.1,
//   with exceptions (a null dereference among them) turned into responses by a middleware.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { programByName } from '../soak/soak-programs.js';
import { differences, failureOf, runOnce, type Mode, type RunResult } from '../soak/soak-run.js';

const workDir = mkdtempSync(join(tmpdir(), 'clrscope-soak-test-'));
after(() => rmSync(workDir, { recursive: true, force: true }));

const describeRun = (r: RunResult): string => `exit ${r.code}, signal ${r.signal}, ${r.timedOut ? 'hung, ' : ''}stderr:\n${r.stderrTail}`;

for (const name of ['pwsh', 'aspnet']) {
  describe(`soak: ${name}, bare and under clrscope at --interval 1 with every event type on`, () => {
    const spec = programByName(name);
    let bare: RunResult;
    before(async () => {
      bare = await runOnce(spec, 'bare', { round: 1, workDir });
    });

    it('runs to its end without clrscope', () => {
      assert.equal(failureOf(bare), undefined, describeRun(bare));
      // The output is what makes the comparison a test: the program's own lines.
      assert.match(bare.output, name === 'pwsh' ? /^exceptions: deep: at the bottom;.*exceptions in a pipeline: 50$/m : /^CAUGHT System\.NullReferenceException 333$/m);
      if (name === 'pwsh') assert.equal(bare.files?.count, 4);
      if (name === 'aspnet') assert.match(bare.output, /^LOAD 20000 requests, digest [0-9a-f]{64}$/m);
    });

    for (const mode of ['launch', 'attach'] as const satisfies readonly Mode[]) {
      it(`${mode === 'launch' ? 'launched under record' : 'attached to with record --pid'}: same exit, output and files, a sane recording`, { timeout: 300_000 }, async () => {
        const r = await runOnce(spec, mode, { round: 1, workDir });
        const what = `${name} ${mode}`;
        assert.equal(failureOf(r), undefined, `${what}: ${describeRun(r)}`);
        assert.deepEqual(differences(bare, r), [], `${what} differs from the bare run`);
        assert.deepEqual(r.problems, [], `${what}: the recording is not sane`);
        assert.ok((r.samples ?? 0) > 1000, `${what}: ${r.samples} samples at --interval 1`);
      });
    }
  });
}
