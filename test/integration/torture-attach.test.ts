// Torture (issue 10, "Attach leaks"): 20 attach/detach cycles into one running program. The
// program carries on unharmed (its exit code and RESULT are those of a run without clrscope),
// every attach records its hot method and ends cleanly, the library is unmapped after each
// detach, and the program's resident memory after the 20th detach is within 5 MB of what it
// was after the first: a profiler that leaves its engine behind on every detach fails here.
// Cycles alternate between --interval 1 and the default interval.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { PROFILER } from './support/paths.js';
import { samplesOf } from './support/record-target.js';
import { EndReason } from '../../structs/wire/records.js';
import { EXIT_CODE, INTERVALS, NS, assertUnchanged, libraryMapped, plainEnv, runPlain, tail, tortureArgs, type Outcome } from './support/torture.js';

const CYCLES = 20;
const RSS_GROWTH_LIMIT_KB = 5 * 1024;

function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

describe('torture: 20 attach/detach cycles', () => {
  it('leaves the program unharmed and its memory where it was after the first detach', { timeout: 240000 }, async (t) => {
    // The program's RESULT does not depend on how long it ran; a short plain run gives it.
    const plain = await runPlain('serve', ['--seconds', '1']);
    assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));

    const child = spawn('dotnet', tortureArgs('serve', ['--seconds', '600']), { env: plainEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<Outcome>((resolve) => child.once('close', (code, signal) => {
      const result = out.split('\n').filter((l) => l.startsWith('RESULT ')).at(-1) ?? '';
      resolve({ code, signal, stdout: out, stderr: err, result, facts: [] });
    }));
    const pid = child.pid ?? 0;
    try {
      const deadline = Date.now() + 30000;
      while (!/^READY /m.test(out) && child.exitCode === null && Date.now() < deadline) await delay(50);
      assert.match(out, /^READY /m, `the program never got ready: ${err}`);

      const rss: number[] = [];
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        const interval = INTERVALS[cycle % INTERVALS.length];
        const what = `cycle ${cycle} at ${interval.label}`;
        const session = await attachProfiled({ pid, intervalMs: interval.ms, wall: true, cpu: true, libraryPath: PROFILER });
        await delay(400);
        await session.detach();
        // A detach asks the profiler to end its stream (the reader shuts its sending side) and
        // waits for it: the stream ends with the profiler's own END, never cut.
        assert.equal(session.stream.state, 'ended', `${what}: the stream ${session.stream.state === 'open' ? 'stayed open' : `is ${session.stream.state}`}`);
        assert.equal(session.stream.recording.end?.reason, EndReason.Detached, `${what}: the END says ${session.stream.recording.end?.reason}`);
        const samples = samplesOf(session.stream.recording);
        assert.ok(samples.some((s) => s.frames.includes(`${NS}Serve.Steady`)), `${what}: no sample in Serve.Steady (${samples.length} samples)`);
        const until = Date.now() + 5000;
        while (libraryMapped(pid) && Date.now() < until) await delay(50);
        assert.ok(!libraryMapped(pid), `${what}: libclrscope still mapped 5 s after the detach`);
        assert.equal(child.exitCode, null, `${what}: the program exited (${child.exitCode}, ${child.signalCode}): ${tail(err)}`);
        rss.push(rssKb(pid));
      }
      const growth = rss[CYCLES - 1] - rss[0];
      t.diagnostic(`RSS after each detach (kB): ${rss.join(' ')}; growth after the first ${growth} kB, ${(growth / (CYCLES - 1)).toFixed(0)} kB per cycle`);

      child.stdin.end();
      const plainEnd = await exited;
      assertUnchanged(plain, plainEnd, 'after 20 attach/detach cycles');
      assert.ok(growth <= RSS_GROWTH_LIMIT_KB, `RSS grew ${growth} kB from the 1st to the ${CYCLES}th detach (${(growth / (CYCLES - 1)).toFixed(0)} kB per cycle); the limit is ${RSS_GROWTH_LIMIT_KB} kB`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
