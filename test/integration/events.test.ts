// Exceptions, lock waits and allocations (issue 12) against programs that know what they did:
// Scenarios' throw-mix (exceptions of three types from three methods, 3:2:1), lock-wait (twelve
// waits on one monitor, timed by the waiters themselves) and alloc-ratio (two methods allocating
// about 3:1 in bytes, measured by the thread's own allocation counter). Recorded with
// `clrscope record` on .NET 8, 9 and 10, and after an attach on .NET 10, and read back by go tool
// pprof; throw-mix's messages (support/throw-mix-messages.ts) as pprof's "exception message" tag.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof } from './support/go-pprof.js';
import { targetOn, type RuntimeTfm } from './support/paths.js';
import { resultOf, runCli, type CliRun } from './support/run-cli.js';
import { messagesOf, TARGET_FAULT, throwMixMessages } from './support/throw-mix-messages.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';

const NS = 'Clrscope.Targets.Scenarios.';
const dir = mkdtempSync(join(tmpdir(), 'clrscope-events-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const UNITS: Record<string, number> = { '': 1, B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1 };

/** `go tool pprof -top` rows as name -> cum, in the sample type's base unit (bytes, seconds or a count). */
function cumByName(text: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^\s*\S+\s+\S+%\s+\S+%\s+([\d.]+)([a-zµ]*B?|[a-zµ]*s?)\s+\S+%\s+(.+)$/i.exec(line);
    if (m === null || !(m[2] in UNITS)) continue;
    rows.set(m[3].trim(), Number(m[1]) * UNITS[m[2]]);
  }
  return rows;
}

/** `go tool pprof -tags` totals of one tag as value -> total. */
function tagTotals(text: string, tag: string): Map<string, number> {
  const out = new Map<string, number>();
  const at = text.indexOf(` ${tag}: Total`);
  if (at < 0) return out;
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s+([\d.]+)([a-zA-Zµ]*)\s+\(\s*[\d.]+%\):\s+(.+)$/.exec(line);
    if (m === null) break;
    out.set(m[3].trim(), Number(m[1]) * (UNITS[m[2]] ?? 1));
  }
  return out;
}

const RUNTIMES: readonly { label: string; tfm: RuntimeTfm }[] = [
  { label: '.NET 8', tfm: 'net8.0' },
  { label: '.NET 9', tfm: 'net9.0' },
  { label: '.NET 10', tfm: 'net10.0' },
];

for (const rt of RUNTIMES) {
  describe(`exceptions, lock waits and allocations on ${rt.label}`, () => {
    const file = join(dir, `events-${rt.tfm}.pb.gz`);
    let run: CliRun;
    let facts: Record<string, Record<string, number>>;

    before(async () => {
      const { command, args } = targetOn('Scenarios', rt.tfm);
      run = await runCli(['record', '--alloc', 'on', '-o', file, '--', command, ...args, 'throw-mix', 'lock-wait', 'alloc-ratio', '--exceptions', '20', '--seconds', '2', '--allocate-mb', '400'], { timeoutMs: 180000 });
      assert.equal(run.code, 0, run.stderr);
      facts = resultOf(run.stdout).scenarios as Record<string, Record<string, number>>;
    });

    it('the summary names the exception types, the waits and the allocating methods', () => {
      assert.match(run.stderr, /Exceptions: 120 thrown\./);
      assert.match(run.stderr, /\n\s+60 {2}System\.ArgumentException\n\s+message "clrscope test" \(60 of 60\)\n\s+40 {2}System\.Collections\.Generic\.KeyNotFoundException\n\s+message "key 0" \(2 of 40; 20 distinct\)\n\s+20 {2}Clrscope\.Targets\.Scenarios\.TargetFault<System\.Int32>\n\s+no message \(20 of 20\)\n/);
      assert.match(run.stderr, /Lock contention: 12 waits, [\d.]+ s waited in all\./);
      assert.match(run.stderr, /Allocations: about [\d.]+ MiB allocated/);
      assert.match(run.stderr, /top methods \(innermost managed frame\):\n\s+[\d.]+ MiB {2}Clrscope\.Targets\.Scenarios\.AllocRatio\.Big\n\s+[\d.]+ MiB {2}Clrscope\.Targets\.Scenarios\.AllocRatio\.Small/);
    });

    it('every exception counted by type and under the method that threw it (go tool pprof)', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const types = tagTotals(goPprof(['-tags', '-sample_index=exceptions'], file), 'type');
      const want = facts['throw-mix'];
      for (const [type, n] of Object.entries(want)) {
        if (type === 'elapsedMs') continue;
        assert.equal(types.get(type), n, `${type}: ${types.get(type)} of ${n}`);
      }
      const cum = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=exceptions'], file));
      assert.equal(cum.get(`${NS}ThrowMix.Argument`), 60);
      assert.equal(cum.get(`${NS}ThrowMix.KeyNotFound`), 40);
      assert.equal(cum.get(`${NS}ThrowMix.Generic`), 20);
      assert.equal(cum.get(`${NS}ThrowMix.Run`), 120, 'rooted in the thread that caught them');
    });

    it('every exception\'s message as the "exception message" tag, exactly as the program gave them (go tool pprof)', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const messages = tagTotals(goPprof(['-tags', '-sample_index=exceptions'], file), 'exception message');
      const want = new Map<string, number>();
      for (const [type, byMessage] of throwMixMessages(20)) {
        for (const [text, n] of byMessage) if (text !== null) want.set(text, n);
        else assert.equal(type, TARGET_FAULT);
      }
      assert.deepEqual(messages, want);
    });

    it('the waiters\' lock time within 5% of their own clocks, under the waiting method', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const waitedS = facts['lock-wait'].waitedMs / 1000;
      const delay = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=delay'], file)).get(`${NS}LockWait.Wait`) ?? 0;
      t.diagnostic(`delay under LockWait.Wait ${delay.toFixed(3)} s, the waiters measured ${waitedS.toFixed(3)} s`);
      assert.ok(Math.abs(delay - waitedS) <= 0.05 * waitedS, `${delay} s of ${waitedS} s`);
      const waits = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=contentions'], file)).get(`${NS}LockWait.Wait`);
      assert.equal(waits, facts['lock-wait'].waits);
    });

    it('allocated bytes per method within 10% of what each allocated, types named with their generic arguments', (t) => {
      if (!goAvailable()) return t.skip('go is not installed');
      const f = facts['alloc-ratio'];
      const cum = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=alloc-space'], file));
      const big = cum.get(`${NS}AllocRatio.Big`) ?? 0;
      const small = cum.get(`${NS}AllocRatio.Small`) ?? 0;
      t.diagnostic(`Big ${(big / 2 ** 20).toFixed(1)} MiB of ${(f.bigBytes / 2 ** 20).toFixed(1)}, Small ${(small / 2 ** 20).toFixed(1)} MiB of ${(f.smallBytes / 2 ** 20).toFixed(1)}`);
      assert.ok(Math.abs(big - f.bigBytes) <= 0.1 * f.bigBytes, `Big: ${big} of ${f.bigBytes} bytes`);
      assert.ok(Math.abs(small - f.smallBytes) <= 0.1 * f.smallBytes, `Small: ${small} of ${f.smallBytes} bytes`);
      const types = tagTotals(goPprof(['-tags', '-sample_index=alloc-space'], file), 'type');
      assert.ok((types.get('System.Byte[]') ?? 0) >= 0.9 * f.bigBytes, `System.Byte[]: ${types.get('System.Byte[]')}`);
      assert.ok((types.get(`${NS}Pair<System.Int64>`) ?? 0) >= 0.9 * f.smallBytes, `Pair<System.Int64>: ${types.get(`${NS}Pair<System.Int64>`)}`);
      const objects = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=alloc-objects'], file)).get(`${NS}AllocRatio.Small`) ?? 0;
      const smallObjects = f.smallBytes / 32;
      assert.ok(Math.abs(objects - smallObjects) <= 0.1 * smallObjects, `Small: ${objects} objects of ${smallObjects}`);
    });
  });
}

describe('exceptions over the stack budget', () => {
  it('are counted by type without a stack, so the counts stay exact', async (t) => {
    if (!goAvailable()) return t.skip('go is not installed');
    const file = join(dir, 'budget.pb.gz');
    const { command, args } = targetOn('Scenarios', 'net10.0');
    const r = await runCli(['record', '-o', file, '--', command, ...args, 'throw-mix', '--exceptions', '500'], { env: { CLRSCOPE_EXCEPTION_STACKS: '50' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Exceptions: 3,000 thrown\./);
    const types = tagTotals(goPprof(['-tags', '-sample_index=exceptions'], file), 'type');
    assert.equal(types.get('System.ArgumentException'), 1500);
    assert.equal(types.get('System.Collections.Generic.KeyNotFoundException'), 1000);
    assert.equal(types.get(`${NS}TargetFault<System.Int32>`), 500);
    const cum = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=exceptions'], file));
    const stacked = cum.get(`${NS}ThrowMix.Run`) ?? 0;
    const unstacked = cum.get('[no stack: over the stack budget]') ?? 0;
    t.diagnostic(`${stacked} with stacks, ${unstacked} counted without`);
    assert.equal(stacked + unstacked, 3000);
    // 50 a second: the program throws for well under 10 s here.
    assert.ok(stacked >= 50 && stacked <= 500, `${stacked} stacks`);
  });
});

describe('after an attach', () => {
  it('exceptions thrown after the attach, each with its type, thrower and message', async () => {
    const { command, args } = targetOn('Scenarios', 'net10.0');
    // throw-mix waits for a line on stdin, sent once the profiler is in: every exception falls after the attach.
    const target = spawn(command, [...args, 'throw-mix', '--exceptions', '20', '--throw-on-stdin'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let out = '';
      target.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      for (let i = 0; i < 200 && !out.includes('READY '); i++) await new Promise((r) => setTimeout(r, 50));
      const pid = /"pid":(\d+)/.exec(out)?.[1];
      assert.ok(pid !== undefined, `no READY line: ${out}`);
      const file = join(dir, 'attached-exceptions.clrscope');
      const recording = runCli(['record', '--pid', pid, '--duration', '60', '-o', file]);
      // The counters block is made as the profiler starts, just before it begins recording events.
      for (let i = 0; i < 400 && !existsSync(`/dev/shm/clrscope-${pid}`); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(existsSync(`/dev/shm/clrscope-${pid}`), 'the profiler did not start in the target');
      await new Promise((r) => setTimeout(r, 500));
      target.stdin.end('go\n');
      const r = await recording;
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /exited during the recording/);
      const facts = resultOf(out).scenarios as Record<string, Record<string, number>>;
      assert.equal(facts['throw-mix']['System.ArgumentException'], 60);
      assert.match(r.stderr, /Exceptions: 120 thrown\./);
      const rec = (await readRecordingFile(file)).recording;
      assert.equal(rec.meta?.attached, true);
      assert.deepEqual(messagesOf(rec), throwMixMessages(20));
      const top = new Map<string, number>();
      const e = rec.events();
      for (let i = 0; i < e.kind.length; i++) {
        if (e.stackId[i] < 0) continue;
        const leaf = Array.from(rec.stackFrames(e.stackId[i]), (id) => rec.functionInfo(id)).find((f) => f?.kind === 0)?.name ?? '?';
        top.set(leaf, (top.get(leaf) ?? 0) + e.value1[i]);
      }
      assert.deepEqual(top, new Map([[`${NS}ThrowMix.Argument`, 60], [`${NS}ThrowMix.KeyNotFound`, 40], [`${NS}ThrowMix.Generic`, 20]]));
    } finally {
      target.kill('SIGKILL');
    }
  });

  it('lock waits and allocations of a running program, on threads born before and after the attach', async (t) => {
    if (!goAvailable()) return t.skip('go is not installed');
    const { command, args } = targetOn('Scenarios', 'net10.0');
    // Rounds of 3 s: each ends with three waits of about 3 s on threads started in that round.
    const target = spawn(command, [...args, 'lock-wait', 'alloc-ratio', '--seconds', '12', '--allocate-mb', '100000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      target.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      for (let i = 0; i < 200 && !out.includes('READY '); i++) await new Promise((r) => setTimeout(r, 50));
      const pid = /"pid":(\d+)/.exec(out)?.[1];
      assert.ok(pid !== undefined, `no READY line: ${out}`);
      const file = join(dir, 'attached.pb.gz');
      const r = await runCli(['record', '--pid', pid, '--alloc', 'on', '--duration', '7', '-o', file]);
      assert.equal(r.code, 0, r.stderr);
      const waits = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=contentions'], file)).get(`${NS}LockWait.Wait`) ?? 0;
      const delay = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=delay'], file)).get(`${NS}LockWait.Wait`) ?? 0;
      t.diagnostic(`${waits} waits, ${delay.toFixed(2)} s`);
      assert.ok(waits >= 3 && delay >= 2.5 * waits, `${waits} waits, ${delay} s`);
      const space = cumByName(goPprof(['-top', '-nodefraction=0', '-sample_index=alloc-space'], file));
      const big = space.get(`${NS}AllocRatio.Big`) ?? 0;
      const small = space.get(`${NS}AllocRatio.Small`) ?? 0;
      t.diagnostic(`Big:Small ${(big / small).toFixed(2)}`);
      assert.ok(big / small > 2.6 && big / small < 3.3, `Big:Small ${big}:${small}`);
    } finally {
      target.kill('SIGKILL');
    }
  });
});
