// Attaching to .NET processes that were started without clrscope, and detaching so they carry on
// as if nothing happened (issue 5).

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

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

  it('for a process that already carries a profiler', async () => {
    // clrscope itself loaded at startup is the other profiler here: the runtime takes only one.
    const first = spawn(process.execPath, [join(import.meta.dirname, '../../../electron/cli/clrscope.js'), 'record', '-o', join(dir, 'first.pb.gz'), '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '15'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    first.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
    first.stderr?.on('data', () => undefined);
    try {
      const deadline = Date.now() + 20000;
      while (!out.includes('READY') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const pid = Number(/"pid":(\d+)/.exec(out)?.[1]);
      assert.ok(pid > 0, out);
      const r = await runCli(['record', '--pid', String(pid), '-o', join(dir, 'second.pb.gz')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^clrscope: .*profiler.*\.$/im);
    } finally {
      first.kill('SIGINT');
      await new Promise((r) => first.on('close', r));
    }
  });
});
