// Attaching to .NET processes that were started without clrscope, and detaching so they carry on
// as if nothing happened (issue 5).

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processAlive } from '../../electron/services/recording/profiled-attach.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';
import { startUnderClrscope } from './support/under-clrscope.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-attach-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** Starts a target normally (no profiler) and waits for its READY line. */
async function startTarget(dll: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn('dotnet', [dll, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 20000;
  while (!out.includes('READY') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(out.includes('READY'), `the target never printed READY: ${out}`);
  return { child, pid: child.pid ?? 0, stdout: () => out, exited };
}

function libclrscopeMapped(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope');
}

// The profiler the targets here already have is clrscope's own, loaded at startup by `clrscope record`.
const FALLBACK_SENTENCE = /^clrscope: Process (\d+) already has clrscope's profiler loaded, so clrscope cannot load it a second time; recording with the runtime's EventPipe sample profiler instead \(CPU time is approximate\)\.$/m;

/** Heavy's share of the CPU samples' time among the target's own methods, from go tool pprof. */
function heavyShare(file: string): { top: string; share: number } {
  const rows = parseTop(goPprof(['-top', '-sample_index=cpu'], file)).filter((row) => row.name.startsWith('Clrscope.'));
  const total = rows.reduce((a, r) => a + r.flat, 0);
  const heavy = rows.find((r) => r.name === 'Clrscope.Targets.Scenarios.CpuWork.Heavy')?.flat ?? 0;
  return { top: rows[0]?.name ?? '', share: total > 0 ? heavy / total : 0 };
}

describe('record --pid on a process started normally', () => {
  it('finds the hot method, detaches, can attach again, and the program finishes as if nothing happened', async () => {
    const target = await startTarget(targetDll('Scenarios'), ['cpu-ratio', 'sleep', '--seconds', '12', '--exit-code', '6']);
    try {
      for (const round of [1, 2]) {
        const file = join(dir, `attach-${round}.pb.gz`);
        const r = await runCli(['record', '--pid', String(target.pid), '--duration', '2', '-o', file]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, new RegExp(`detached from pid ${target.pid}; it keeps running`));
        assert.doesNotMatch(r.stderr, /stream ended without its END/, 'a detach is a normal end');
        assert.match(r.stderr, /Top methods by CPU time[^\n]*\n[^\n]*\n\s+[\d.]+%\s+\S+ m?s\s+[\d.]+%\s+Clrscope\.Targets\.Scenarios\.CpuWork\.(Heavy|Light)/);
        if (goAvailable()) {
          const top = parseTop(goPprof(['-top', '-sample_index=cpu'], file)).filter((row) => row.name.startsWith('Clrscope.'));
          assert.equal(top[0]?.name, 'Clrscope.Targets.Scenarios.CpuWork.Heavy', `round ${round}`);
          // The detach ended the recording cleanly: the saved file says nothing of a cut.
          assert.doesNotMatch(goPprof(['-raw'], file), /cut before its END/);
        }
        // Detached: the library is gone from the process (it was unloaded) and so is its block.
        const deadline = Date.now() + 3000;
        while (libclrscopeMapped(target.pid) && Date.now() < deadline) await new Promise((r2) => setTimeout(r2, 50));
        assert.ok(!libclrscopeMapped(target.pid), `round ${round}: libclrscope still mapped after detach`);
        assert.ok(!existsSync(`/dev/shm/clrscope-${target.pid}`), 'the counters block went with the profiler');
      }
      const code = await target.exited;
      assert.equal(code, 6, 'the exit code is the program\'s own');
      const result = resultOf(target.stdout());
      const scen = result.scenarios as Record<string, Record<string, number>>;
      assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
    } finally {
      target.child.kill('SIGKILL');
    }
  });
});

describe('attaching during heavy phases', () => {
  it('does not crash or hang a program that collects or contends while the profiler comes and goes', async () => {
    const target = await startTarget(targetDll('GcLoad'), ['--gen0', '30', '--allocate-mb', '20', '--lock-contention', '200', '--exceptions', '200', '--duration', '8', '--repeat-every', '0']);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await runCli(['record', '--pid', String(target.pid), '--duration', '1', '-o', join(dir, `busy-${i}.pb.gz`)]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /GC pauses: \d+/);
      }
      const code = await Promise.race([target.exited, new Promise<'hang'>((r) => setTimeout(() => r('hang'), 30000))]);
      assert.equal(code, 0, 'the program ended on its own, normally');
      assert.match(target.stdout(), /^RESULT /m);
    } finally {
      target.child.kill('SIGKILL');
    }
  });
});

describe('attach refuses with one sentence', () => {
  it('for a pid that does not exist', async () => {
    const r = await runCli(['record', '--pid', '999999999', '-o', join(dir, 'x.pb.gz')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^clrscope: .*999999999.*\.$/m);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  it('for a process that is not .NET', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      const r = await runCli(['record', '--pid', String(sleeper.pid), '-o', join(dir, 'y.pb.gz')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^clrscope: .*not a \.NET/im);
    } finally {
      sleeper.kill();
    }
  });

  it('for a .NET process with diagnostics disabled', async () => {
    const target = await startTarget(targetDll('Scenarios'), ['sleep', '--seconds', '10'], { DOTNET_EnableDiagnostics: '0' });
    try {
      const r = await runCli(['record', '--pid', String(target.pid), '-o', join(dir, 'z.pb.gz')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^clrscope: .*(EnableDiagnostics|diagnostics).*\.$/m);
    } finally {
      target.child.kill('SIGKILL');
    }
  });

  it('for a process that already carries a profiler, with --no-fallback', async () => {
    // clrscope itself loaded at startup is the other profiler here: the runtime takes only one.
    const first = await startUnderClrscope(targetDll('Scenarios'), ['sleep', '--seconds', '15'], join(dir, 'first.pb.gz'));
    try {
      const r = await runCli(['record', '--pid', String(first.pid), '--no-fallback', '-o', join(dir, 'second.pb.gz')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^clrscope: .*another profiler is already loaded in it.*\.$/im);
      assert.doesNotMatch(r.stderr, /EventPipe/);
      assert.ok(!existsSync(join(dir, 'second.pb.gz')));
    } finally {
      first.child.kill('SIGINT');
      await first.exited;
    }
  });
});

describe('record --pid when the runtime refuses clrscope\'s profiler: an EventPipe session instead', () => {
  it('records the hot method with approximate CPU, survives being killed, records again, and the program finishes as if nothing happened', async (t) => {
    const first = await startUnderClrscope(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '16', '--exit-code', '6'], join(dir, 'profiler.pb.gz'));
    try {
      for (const round of [1, 2]) {
        const file = join(dir, `eventpipe-${round}.pb.gz`);
        const pauses = join(dir, `eventpipe-${round}.json`);
        const r = await runCli(['record', '--pid', String(first.pid), '--duration', '2', '-o', file, '--pauses', pauses]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(FALLBACK_SENTENCE.exec(r.stderr)?.[1], String(first.pid), r.stderr);
        assert.match(r.stderr, /^clrscope: CPU time is approximate: /m);
        assert.match(r.stderr, new RegExp(`stopped the EventPipe session in pid ${first.pid}; it keeps running`));
        assert.match(r.stderr, /Top methods by CPU time[^\n]*\n[^\n]*\n\s+[\d.]+%\s+\S+ m?s\s+[\d.]+%\s+Clrscope\.Targets\.Scenarios\.CpuWork\.Heavy/);
        // The sampler's own suspensions (one per tick) are not the program's pauses.
        assert.ok(!(JSON.parse(readFileSync(pauses, 'utf8')) as { reason: number }[]).some((p) => p.reason === 0), 'no sampler suspensions');
        if (goAvailable()) {
          const raw = goPprof(['-raw'], file);
          assert.match(raw, /^Comment: CPU time is approximate/m);
          const { top, share } = heavyShare(file);
          assert.equal(top, 'Clrscope.Targets.Scenarios.CpuWork.Heavy', `round ${round}`);
          t.diagnostic(`EventPipe round ${round}: Heavy ${(100 * share).toFixed(1)} % of the target's CPU samples`);
        }
        if (round === 1) {
          // Killed mid-session: the runtime ends the session itself when its socket goes away.
          const killed = await runCli(['record', '--pid', String(first.pid), '--duration', '30', '-o', join(dir, 'killed.pb.gz')], {
            started: (child) => setTimeout(() => child.kill('SIGKILL'), 2500),
          });
          assert.equal(killed.signal, 'SIGKILL');
          assert.match(killed.stderr, FALLBACK_SENTENCE);
          assert.ok(processAlive(first.pid), 'the target outlives a killed clrscope');
        }
      }
      const code = await first.exited;
      assert.equal(code, 6, `the exit code is the program's own: ${first.stderr()}`);
      const result = resultOf(first.stdout());
      const scen = result.scenarios as Record<string, Record<string, number>>;
      assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
      if (goAvailable()) {
        const profiler = heavyShare(join(dir, 'profiler.pb.gz'));
        assert.equal(profiler.top, 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
        t.diagnostic(`clrscope's profiler, whole run: Heavy ${(100 * profiler.share).toFixed(1)} % of the target's CPU samples`);
      }
    } finally {
      first.kill();
    }
  });

  it('finds the GC pauses of a program that collects', async () => {
    const first = await startUnderClrscope(targetDll('GcLoad'), ['--gen0', '20', '--allocate-mb', '20', '--duration', '8', '--repeat-every', '100'], join(dir, 'gc-profiler.pb.gz'));
    try {
      const pauses = join(dir, 'gc-eventpipe.json');
      const r = await runCli(['record', '--pid', String(first.pid), '--duration', '2', '-o', join(dir, 'gc-eventpipe.pb.gz'), '--pauses', pauses]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, FALLBACK_SENTENCE);
      assert.match(r.stderr, /^GC pauses: [1-9][\d,]* \([1-9][\d,]* induced(, [\d,]+ background)?\)/m);
      assert.match(r.stderr, /^\s+gen0\s+[1-9]/m);
      const list = JSON.parse(readFileSync(pauses, 'utf8')) as { generation: number | null; durationNs: number; induced: boolean; reason: string }[];
      assert.ok(list.length >= 10, `${list.length} pauses`);
      assert.ok(list.every((p) => p.durationNs > 0), 'every pause has a duration');
      // The sample profiler's own suspensions (reason "other", no GC) are dropped. A suspension
      // for a GC whose events show no GCStart is still a pause of the program and is kept, so only
      // most pauses have a generation. Here that is one such suspension per GcLoad round (every
      // 100 ms, 0.03-3.4 ms long, nearly all of it suspending: 17-21 of 416 pauses in 6 runs on
      // main before and after the events merge, 21 of 419 in one CI run); which runtime path
      // raises them is not known yet. The bound allows twice that.
      assert.ok(!list.some((p) => p.reason === 'other' && p.generation === null), 'no sampler suspensions');
      const withGc = list.filter((p) => p.generation !== null).length;
      assert.ok(withGc >= 0.9 * list.length, `${withGc} of ${list.length} pauses ran a GC`);
      const code = await first.exited;
      assert.equal(code, 0, first.stderr());
      assert.match(first.stdout(), /^RESULT /m);
    } finally {
      first.kill();
    }
  });

  it('a process started with DOTNET_EnableDiagnostics_Profiler=0 is still recorded, by clrscope\'s own profiler', async () => {
    // The setting keeps startup profilers out (ProfilingAPIUtility::InitializeProfiling), but the
    // pinned runtime (.NET 10.0.12) does not check it for an attach, so clrscope's own profiler
    // loads and no EventPipe fallback is needed. A runtime that refused would get the fallback,
    // naming the setting (profiler-refusal.test.ts); should the pinned runtime start refusing,
    // this test is the one to say so.
    const target = await startTarget(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '6'], { DOTNET_EnableDiagnostics_Profiler: '0' });
    try {
      const file = join(dir, 'profiler-off.pb.gz');
      const r = await runCli(['record', '--pid', String(target.pid), '--duration', '1.5', '-o', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /EventPipe/);
      assert.match(r.stderr, new RegExp(`^clrscope: detached from pid ${target.pid}; it keeps running\\.$`, 'm'));
      if (goAvailable()) assert.equal(heavyShare(file).top, 'Clrscope.Targets.Scenarios.CpuWork.Heavy');
      assert.equal(await target.exited, 0);
    } finally {
      target.child.kill('SIGKILL');
    }
  });
});

