// Torture (issue 23, "Trust"): a program that closes every descriptor above stderr it did not
// open, as daemons and process supervisors do (clrscope's connection among them), then makes Unix
// socket pairs of its own and passes a known pattern through them. The profiler must notice that
// its descriptor is gone before it writes or reads there again (before, the program's pairs got
// tens of kilobytes of the stream and lost bytes to the command reader), keep the program
// unchanged, and say in the recording why it ended: END of reason ConnectionLost with the
// descriptor's number, sent on a second connection and added to the stream by the collector.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { formatSummary } from '../../electron/cli/run-summary.js';
import type { CollectedStream } from '../../electron/services/collector/collector.js';
import { EndReason } from '../../structs/wire/records.js';
import { PROFILER } from './support/paths.js';
import { samplesOf } from './support/record-target.js';
import { EXIT_CODE, INTERVALS, NS, assertUnchanged, libraryMapped, outcome, plainEnv, runPlain, runProfiled, tail, tortureArgs, type Outcome } from './support/torture.js';

const SCENARIO = 'close-descriptors';
const OWN_BYTES_ONLY = /"bytesWrong":0,"bytesNotTheProgramsOwn":0,"bytesLost":0,"failures":0/;

/** The stream ended with the profiler's word that the program took its connection, and the summary says so. */
function assertEndsWithTheReason(stream: CollectedStream | undefined, what: string): void {
  assert.ok(stream !== undefined, `${what}: no stream arrived`);
  const rec = stream.recording;
  assert.equal(stream.state, 'ended', `${what}: the stream ended ${stream.state}, not with the profiler's reason`);
  assert.equal(rec.end?.reason, EndReason.ConnectionLost, `${what}: the END says ${rec.end?.reason}`);
  const descriptor = rec.end?.descriptor;
  assert.ok(descriptor !== undefined && descriptor > 2, `${what}: the END names descriptor ${descriptor}`);
  assert.match(formatSummary(rec, true), new RegExp(`the program closed clrscope's connection \\(descriptor ${descriptor}\\)`), `${what}: the summary does not say why`);
  assert.ok(samplesOf(rec).some((s) => s.frames.includes(`${NS}Descriptors.Burn`)), `${what}: no sample of the burner before the close`);
}

describe(`torture: ${SCENARIO}`, () => {
  let plain: Outcome;
  before(async () => {
    plain = await runPlain(SCENARIO);
  });

  it('passes only its own bytes through its socket pairs without clrscope', () => {
    assert.equal(plain.signal, null, tail(plain.stderr));
    assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));
    assert.match(plain.result, OWN_BYTES_ONLY);
  });

  for (const interval of INTERVALS) {
    it(`launched under clrscope at ${interval.label}: unchanged, and the recording says the program closed its connection`, { timeout: 180000 }, async () => {
      const p = await runProfiled(SCENARIO, [], interval.ms);
      const what = `${SCENARIO} at ${interval.label}`;
      assertUnchanged(plain, p.outcome, what);
      assertEndsWithTheReason(p.stream, what);
      const fact = p.outcome.facts[0] as { lowestPairDescriptor: number };
      // The program's pairs took the lowest numbers; clrscope's connection was far above them.
      assert.ok((p.rec?.end?.descriptor ?? 0) >= 800, `${what}: clrscope's connection was at descriptor ${p.rec?.end?.descriptor}`);
      assert.ok(fact.lowestPairDescriptor < 100, `${what}: the pairs began at ${fact.lowestPairDescriptor}`);
    });
  }

  it('attached at --interval 1: unchanged, the recording says why, and the profiler detaches', { timeout: 180000 }, async (t) => {
    const child = spawn('dotnet', tortureArgs(SCENARIO), { env: plainEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<Outcome>((resolve) => child.once('close', (code, signal) => resolve(outcome(code, signal, out, err))));
    try {
      const deadline = Date.now() + 30000;
      while (!/^READY /m.test(out) && child.exitCode === null && Date.now() < deadline) await delay(20);
      assert.match(out, /^READY /m, `the program never got ready: ${tail(err)}`);
      const session = await attachProfiled({ pid: child.pid ?? 0, intervalMs: 1, wall: true, cpu: true, libraryPath: PROFILER });
      await delay(500);
      child.stdin.end('go\n');
      // The profiler notices at its next tick, says why, and detaches: the runtime unloads it
      // while the program still passes its bytes around (about 2 s).
      const pid = child.pid ?? 0;
      const asked = Date.now();
      let unloadedAfterMs: number | undefined;
      while (child.exitCode === null && unloadedAfterMs === undefined) {
        try {
          if (!libraryMapped(pid)) unloadedAfterMs = Date.now() - asked;
        } catch {
          break;  // the process is gone
        }
        await delay(20);
      }
      t.diagnostic(`libclrscope unmapped ${unloadedAfterMs ?? '(never, before the program exited)'} ms after the close`);
      assert.ok(unloadedAfterMs !== undefined, 'the profiler did not detach while the program ran on');
      const profiled = await exited;
      await session.stream.closed;
      assertUnchanged(plain, profiled, `${SCENARIO} attached`);
      assertEndsWithTheReason(session.stream, `${SCENARIO} attached`);
      await session.detach();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
