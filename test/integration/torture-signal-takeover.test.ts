// Torture: a library takes the profiler's signal (SIGURG) over while clrscope is attached, the
// way a Go c-shared library does, and passes the signals it did not expect on to the handler it
// replaced. When the workstation goes away, clrscope must leave that library's handler in place
// (giving the signal "back" would take it from its new owner), and must stay loaded: the
// library keeps clrscope's handler as the one it passes signals on to, long after the detach.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { describe, it } from 'node:test';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { EndReason } from '../../structs/wire/records.js';
import { PROFILER } from './support/paths.js';
import { samplesOf } from './support/record-target.js';
import { formatSummary } from '../../electron/cli/run-summary.js';
import { EXIT_CODE, NS, assertUnchanged, libraryMapped, outcome, plainEnv, tail, tortureArgs, type Outcome } from './support/torture.js';

interface Running {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<Outcome>;
}

function start(): Running {
  const child = spawn('dotnet', tortureArgs('signal-takeover'), { env: plainEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<Outcome>((resolve) => child.once('close', (code, signal) => resolve(outcome(code, signal, out, err))));
  return { child, out: () => out, err: () => err, exited };
}

async function waitFor(run: Running, pattern: RegExp, what: string): Promise<void> {
  const deadline = Date.now() + 30000;
  while (!pattern.test(run.out()) && run.child.exitCode === null && Date.now() < deadline) await delay(20);
  assert.match(run.out(), pattern, `${what}; stderr: ${tail(run.err())}`);
}

describe('torture: signal-takeover', () => {
  it('leaves SIGURG to the library that took it over, stays loaded for its hand-ons, and the program runs on unchanged', { timeout: 120000 }, async (t) => {
    const plainRun = start();
    await waitFor(plainRun, /^READY /m, 'the plain run never got ready');
    plainRun.child.stdin.write('take\n');
    await waitFor(plainRun, /^TAKEN$/m, 'the plain run never took SIGURG');
    plainRun.child.stdin.end('finish\n');
    const plain = await plainRun.exited;
    assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));
    assert.match(plain.result, /"ownSignalsSeen":50,"ownerAtEnd":"own-handler"/);

    const run = start();
    const pid = run.child.pid ?? 0;
    try {
      await waitFor(run, /^READY /m, 'the program never got ready');
      const session = await attachProfiled({ pid, intervalMs: 1, wall: true, cpu: true, libraryPath: PROFILER });
      await delay(400);
      run.child.stdin.write('take\n');
      await waitFor(run, /^TAKEN$/m, 'the program never took SIGURG');
      // The sampler notices at its next tick that its handler is gone and stops asking.
      await delay(300);
      await session.detach();
      assert.equal(session.stream.state, 'ended', `the stream is ${session.stream.state}`);
      assert.equal(session.stream.recording.end?.reason, EndReason.Detached, `the END says ${session.stream.recording.end?.reason}`);
      const rec = session.stream.recording;
      const samples = samplesOf(rec);
      assert.ok(samples.some((s) => s.frames.includes(`${NS}SignalTakeover.Burn`)), `no sample in SignalTakeover.Burn (${samples.length} samples)`);
      // The recording says when sampling stopped, after the take and before the detach, and no
      // sample comes after it.
      const lost = rec.stats?.signalLostMono;
      assert.ok(lost !== undefined, 'the recording does not say that sampling stopped');
      let after = 0;
      rec.forEachSample((_i, mono) => { if (mono > lost) after++; });
      assert.equal(after, 0, `${after} samples were taken after sampling stopped`);
      assert.match(formatSummary(rec, true), /CPU and wall sampling stopped [\d.]+ m?s in: a library in the program took over clrscope's signal/);
      // Given time to unload, it must not: the library may still pass signals on to its handler.
      await delay(1500);
      assert.equal(run.child.exitCode, null, `the program exited at the detach: ${tail(run.err())}`);
      const mappedAfterDetach = libraryMapped(pid);
      // 50 raised (its own) and 50 queued, which its handler passes on to clrscope's.
      run.child.stdin.end('finish\n');
      const profiled = await run.exited;
      assertUnchanged(plain, profiled, 'signal-takeover under an attach and detach');
      assert.ok(mappedAfterDetach, 'libclrscope was unloaded though another library keeps its handler to pass signals on to');
      const passedOn = (profiled.facts[0] as { passedOn: number }).passedOn;
      t.diagnostic(`signals passed on to the replaced handler: ${passedOn} (${plain.facts[0]?.passedOn} without clrscope)`);
      assert.ok(passedOn >= 50, `only ${passedOn} signals were passed on`);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  });
});
