// Async call stacks, native side (issue 14, design A, experimental): AsyncChain's Outer → Middle →
// Inner chain, every level across a Task.Yield so each continuation runs on some pool thread, is
// recorded with CLRSCOPE_ASYNC=1. The profiler logs, for each sample taken in an async box, the
// box's logical chain (from the TPL events it read in-process) and the sample's innermost state
// machine MoveNext (from the physical stack): the CPU samples in Inner's MoveNext must have
// Middle and Outer above Inner in the chain. Without the switch, no TPL event may be read.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { targetDll } from './support/paths.js';
import { resultOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-chain-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface AsyncSample { moveNext: string; chain: string }

function asyncSamples(log: string): AsyncSample[] {
  const out: AsyncSample[] = [];
  for (const line of log.split('\n')) {
    const m = / async sample thread=\d+ box=\d+ movenext=(\S+) chain=(.*)$/.exec(line);
    if (m !== null) out.push({ moveNext: m[1], chain: m[2] });
  }
  return out;
}

async function record(name: string, env: NodeJS.ProcessEnv, seconds: number): Promise<{ log: string; result: Record<string, unknown> }> {
  const file = join(dir, `${name}.pb.gz`);
  const logFile = join(dir, `${name}.log`);
  const run = await runCli(['record', '-o', file, '--', 'dotnet', targetDll('AsyncChain'), 'chain', '--seconds', String(seconds), '--parallel', '2'], {
    env: { ...env, CLRSCOPE_LOG: logFile },
    timeoutMs: 180000,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(existsSync(file) && statSync(file).size > 0, 'the recording was written');
  return { log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '', result: resultOf(run.stdout) };
}

describe('async call stacks on AsyncChain (CLRSCOPE_ASYNC=1, native side)', () => {
  it("≥ 90% of the samples in Inner's MoveNext have Inner < Middle < Outer as their logical chain", async (t) => {
    const { log, result } = await record('async', { CLRSCOPE_ASYNC: '1', CLRSCOPE_ASYNC_LOG: '1' }, 3);
    assert.ok(Number(result.innerCalls) > 0, JSON.stringify(result));
    // The raw payloads the parsers were written against are logged too (native-profiler/TPL-EVENTS.md).
    assert.match(log, /tpl event 10, 20 bytes: /);
    assert.match(log, /tpl event 14, \d+ bytes: /);
    const inInner = asyncSamples(log).filter((s) => /\+<Inner>d__\d+\.MoveNext$/.test(s.moveNext));
    assert.ok(inInner.length >= 20, `only ${inInner.length} samples in Inner's MoveNext:\n${log.slice(-3000)}`);
    const chained = inInner.filter((s) => /^<Inner>d__\d+<<Middle>d__\d+<<Outer>d__\d+(<|$)/.test(s.chain));
    const share = chained.length / inInner.length;
    t.diagnostic(`${chained.length} of ${inInner.length} samples in Inner's MoveNext chained`);
    const others = inInner.filter((s) => !chained.includes(s)).slice(0, 5).map((s) => s.chain);
    assert.ok(share >= 0.9, `${chained.length} of ${inInner.length} chained; e.g. ${others.join(' | ')}`);
  });

  it('is off by default: no TPL event is read and no sample carries a box', async () => {
    const { log } = await record('plain', { CLRSCOPE_ASYNC_LOG: '1' }, 1);
    assert.match(log, /profiling pid \d+/);
    assert.doesNotMatch(log, /tpl event|async sample/);
  });
});
