// Measuring methods exactly (issue 15): a real .NET program whose methods run a known number of
// times, measured from launch and after an attach, then reverted. The counts must be exact, the
// exceptions too, the latency of a 20 ms sleep near 20 ms, and the wrapped methods must behave
// as the unwrapped ones (the target compares them itself).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MeasureChannels, type MeasureChannel } from '../../electron/services/measure/measure-channel.js';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay, launchProfiled } from '../../electron/services/recording/profiled-launch.js';
import type { MeasuredMethod } from '../../structs/measure/measurements.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-measure-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const NS = 'Clrscope.Targets.Measure';
const WORK = `${NS}.Work.*`;
// Tier-up without the usual 100 ms call-counting delay, so --warmup gets the loops compiled at
// tier 1 (with Work.A and Work.B inlined) in well under a second.
const FAST_TIERING = { DOTNET_TC_CallCountingDelayMs: '0' };

interface CheckLine {
  ok: boolean;
  cases: number;
  mismatches: string[];
  calls: Record<string, number>;
}

const lineOf = (text: string, tag: string): string[] => text.split('\n').filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));

function byName(methods: readonly { name: string }[], short: string): number {
  return methods.findIndex((m) => m.name === `${NS}.${short}`);
}

/** One round's exact counts (Work.A x10,000, B x3,000, C x500 with 100 throws, D x50), times `rounds`. */
function assertWork(methods: readonly Pick<MeasuredMethod, 'name' | 'calls' | 'exceptions' | 'p50Ns' | 'state'>[], rounds: number, how: string): void {
  const get = (short: string): Pick<MeasuredMethod, 'name' | 'calls' | 'exceptions' | 'p50Ns' | 'state'> => {
    const i = byName(methods, short);
    assert.ok(i >= 0, `${how}: ${short} was not measured: ${JSON.stringify(methods.map((m) => m.name))}`);
    return methods[i];
  };
  assert.equal(get('Work.A').calls, 10_000 * rounds, `${how}: Work.A calls`);
  assert.equal(get('Work.B').calls, 3_000 * rounds, `${how}: Work.B calls (both instantiations)`);
  assert.equal(get('Work.C').calls, 500 * rounds, `${how}: Work.C calls`);
  assert.equal(get('Work.C').exceptions, 100 * rounds, `${how}: Work.C exceptions`);
  assert.equal(get('Work.A').exceptions, 0, `${how}: Work.A exceptions`);
  assert.equal(get('Work.D').calls, 50 * rounds, `${how}: Work.D calls`);
  const p50 = get('Work.D').p50Ns;
  assert.ok(Math.abs(p50 - 20_000_000) <= 2_000_000, `${how}: Work.D sleeps 20 ms, p50 ${(p50 / 1e6).toFixed(2)} ms`);
}

/** The Shapes' calls as the target counted them, against what was measured. */
function assertShapes(methods: readonly Pick<MeasuredMethod, 'name' | 'calls' | 'exceptions' | 'state' | 'asyncSynchronousPart'>[], check: CheckLine, times: number): void {
  assert.ok(check.ok, `wrapped and unwrapped shapes differ: ${check.mismatches.join('; ')}`);
  for (const [short, calls] of Object.entries(check.calls)) {
    const name = short === 'Bump' ? 'Shapes+Counter.Bump' : `Shapes.${short}`;
    const i = byName(methods, name);
    assert.ok(i >= 0, `${name} was not measured`);
    assert.equal(methods[i].calls, calls * times, `${name} calls`);
  }
  const n = check.calls.Thrower;
  assert.equal(methods[byName(methods, 'Shapes.Thrower')].exceptions, n * times, 'every Thrower call left by an exception');
  // Filtered throws for -5..-1 (its filter catches only below -5): five escape per check.
  assert.equal(methods[byName(methods, 'Shapes.Filtered')].exceptions, 5 * times, 'exceptions escaping a filter');
  assert.equal(methods[byName(methods, 'Shapes.AddLaterAsync')].asyncSynchronousPart, true, 'async methods are marked');
}

/** A target whose stdin we write, with its stdout collected. */
function startTarget(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn('dotnet', [targetDll('Measure'), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...FAST_TIERING, ...env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    pid: child.pid ?? 0,
    out: () => out,
    exited,
    async send(command: string, tag: string): Promise<string> {
      const before = lineOf(out, tag).length;
      child.stdin.write(`${command}\n`);
      const deadline = Date.now() + 60000;
      while (lineOf(out, tag).length === before && Date.now() < deadline) await delay(20);
      const lines = lineOf(out, tag);
      assert.ok(lines.length > before, `no ${tag} line after '${command}': ${out}`);
      return lines[lines.length - 1];
    },
    kill(): void {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    exit(): Promise<number | null> {
      child.stdin.write('exit\n');
      return exited;
    },
    async ready(): Promise<void> {
      const deadline = Date.now() + 30000;
      while (!out.includes('READY') && Date.now() < deadline) await delay(20);
      assert.ok(out.includes('READY'), `the target never printed READY: ${out}`);
    },
  };
}

/** Waits until every method of `names` has been measured `calls` times (figures come every 250 ms). */
async function settled(channel: MeasureChannel, expect: Record<string, number>): Promise<void> {
  const ok = (): boolean => Object.entries(expect).every(([short, calls]) => channel.measurements.methods().find((m) => m.name === `${NS}.${short}`)?.calls === calls);
  await channel.until(ok, 10000);
}

describe('clrscope measure -- COMMAND (from the first call)', () => {
  it('counts every call and exception exactly, times a 20 ms sleep near 20 ms, and wraps every shape faithfully', async () => {
    const r = await runCli(['measure', '--json', '-m', WORK, '-m', `${NS}.Shapes.*`, '-m', `${NS}.Shapes+Counter.*`, '-m', `${NS}.ISized.*`,
      '--', 'dotnet', targetDll('Measure'), '--do', 'round,check,round'], { env: FAST_TIERING, timeoutMs: 120000 });
    assert.equal(r.code, 0, r.stderr);
    const json = r.stdout.trim().split('\n').pop() ?? '';
    const methods = JSON.parse(json) as (MeasuredMethod & { name: string })[];
    assertWork(methods, 2, 'at launch');
    const check = JSON.parse(lineOf(r.stdout, 'CHECK')[0]) as CheckLine;
    assertShapes(methods, check, 1);
    const sized = methods[byName(methods, 'ISized.Size')];
    assert.equal(sized.state, 'refused');
    assert.equal(sized.detail, 'it has no IL body (abstract, extern, P/Invoke or implemented by the runtime)');
    assert.equal(methods.filter((m) => m.state === 'refused').length, 1, 'only the abstract method was refused');
  });

  it('refuses a pattern that names no method, and a missing --method, in one sentence before launching', async () => {
    const bad = await runCli(['measure', '-m', 'Main', '--', 'dotnet', targetDll('Measure')]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "clrscope: 'Main' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*.\n");
    assert.equal(bad.stdout, '', 'nothing was launched');
    const none = await runCli(['measure', '--', 'dotnet', targetDll('Measure')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^clrscope: Name the methods to measure with --method Namespace\.Type\.Method \(or Namespace\.Type\.\*\)\.\n$/);
  });
});

describe('measuring at launch, then reverting', () => {
  it('stops counting once the methods are reverted', async () => {
    const channels = new MeasureChannels();
    let out = '';
    const launch = await launchProfiled({
      command: 'dotnet', args: [targetDll('Measure'), '--do', 'round,sleep:3,round'], intervalMs: 10, cpu: false, wall: false, libraryPath: PROFILER,
      extraEnv: { ...FAST_TIERING, CLRSCOPE_MEASURE: WORK }, onChunk: channels.onChunk, output: (_, d) => { out += d.toString(); },
    });
    try {
      const deadline = Date.now() + 60000;
      while (lineOf(out, 'ROUND').length === 0 && Date.now() < deadline) await delay(20);
      const stream = launch.collector.streams.find((s) => s.pid === launch.pid);
      assert.ok(stream !== undefined, 'the program connected');
      const channel = channels.of(stream);
      await settled(channel, { 'Work.A': 10_000, 'Work.D': 50 });
      assertWork(channel.measurements.methods(), 1, 'first round');
      const reply = await channel.revert(0);
      assert.equal(reply.status, 0, reply.message);
      assert.equal(reply.matched, 4);
      const exit = await launch.exited;
      assert.equal(exit.code, 0, out);
      assert.equal(lineOf(out, 'ROUND').length, 2, 'the second round ran');
      await launch.finish();
      const after = channel.measurements.methods();
      assert.ok(after.every((m) => m.state === 'reverted'), JSON.stringify(after.map((m) => [m.name, m.state])));
      assertWork(after, 1, 'after the revert and a second round');
    } finally {
      await launch.collector.close();
    }
  });
});

describe('measuring after an attach', () => {
  it('counts calls of tiered-up, inlined methods exactly, reverts, and leaves the program running', async () => {
    const log = join(dir, 'attach.log');
    const channels = new MeasureChannels();
    const target = startTarget(['--warmup'], { CLRSCOPE_LOG: log });
    let attach;
    try {
      await target.ready();
      attach = await attachProfiled({ pid: target.pid, intervalMs: 10, cpu: false, wall: false, libraryPath: PROFILER, onChunk: channels.onChunk });
    } catch (err) {
      target.kill();
      throw err;
    }
    try {
      const channel = channels.of(attach.stream);
      await channel.waitReady(10000);
      for (const pattern of [WORK, `${NS}.Shapes.*`, `${NS}.Shapes+Counter.*`]) {
        const reply = await channel.measure(pattern);
        assert.equal(reply.status, 0, reply.message);
      }
      await target.send('round', 'ROUND');
      const check = JSON.parse(await target.send('check', 'CHECK')) as CheckLine;
      await target.send('round', 'ROUND');
      await settled(channel, { 'Work.A': 20_000, 'Work.D': 100, 'Shapes.Mixed': check.calls.Mixed });
      assertWork(channel.measurements.methods(), 2, 'after an attach');
      assertShapes(channel.measurements.methods(), check, 1);
      // Work.A and Work.B were inlined into the warmed-up loops: those were compiled again.
      const profilerLog = readFileSync(log, 'utf8');
      assert.match(profilerLog, /compiled again, as an inliner of a measured method: CallA/);
      assert.match(profilerLog, /compiled again, as an inliner of a measured method: CallB/);

      const reply = await channel.revert(0);
      assert.equal(reply.status, 0, reply.message);
      await target.send('round', 'ROUND');
      await delay(800);
      const after = channel.measurements.methods();
      assert.ok(after.every((m) => m.state === 'reverted'), JSON.stringify(after.map((m) => [m.name, m.state])));
      assertWork(after, 2, 'a round after the revert is not counted');
    } catch (err) {
      target.kill();
      throw err;
    } finally {
      await attach.detach();
    }
    try {
      // The runtime keeps a profiler that used ReJIT: it stays, idle; the program carries on.
      const staying = /methods were measured, so the runtime keeps clrscope loaded: staying quiet/;
      const deadline = Date.now() + 5000;
      while (!staying.test(readFileSync(log, 'utf8')) && Date.now() < deadline) await delay(50);
      assert.match(readFileSync(log, 'utf8'), staying);
      const check = JSON.parse(await target.send('check', 'CHECK')) as CheckLine;
      assert.ok(check.ok);
      assert.equal(await target.exit(), 0, target.out());
    } finally {
      target.kill();
    }
  });

  it('clrscope measure --pid prints the exact counts of what ran while it measured', async () => {
    const target = startTarget(['--warmup'], {});
    try {
      await target.ready();
      let stderr = '';
      const run = runCli(['measure', '--pid', String(target.pid), '--json', '-m', WORK, '--duration', '8'], {
        timeoutMs: 60000,
        started: (child) => child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); }),
      });
      const deadline = Date.now() + 20000;
      while (!stderr.includes('4 methods match') && Date.now() < deadline) await delay(20);
      assert.match(stderr, /clrscope: 4 methods match Clrscope\.Targets\.Measure\.Work\.\*\./);
      await target.send('round', 'ROUND');
      await target.send('round', 'ROUND');
      const r = await run;
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`process ${target.pid} keeps running with its original code`));
      const methods = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as MeasuredMethod[];
      assertWork(methods, 2, 'clrscope measure --pid');
      assert.ok(methods.every((m) => m.state === 'reverted'));
      assert.equal(await target.exit(), 0, target.out());
    } finally {
      target.kill();
    }
  });
});

