// The torture suite's harness (test/targets/Torture): each case runs a program once without
// clrscope and then under clrscope at --interval 1 and at the default interval, and holds the
// profiled runs to the plain one: same exit code, same RESULT line (the program prints only
// what its arguments determine there), no signal, and a recording that is sane: its stream
// ended cleanly and the scenario's hot frames are in its samples.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import type { CollectedStream } from '../../../electron/services/collector/collector.js';
import { DEFAULT_INTERVAL_MS } from '../../../electron/services/workstation/workstation-service.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { targetDll } from './paths.js';
import { recordProgram, samplesOf, type SampleView } from './record-target.js';

export const NS = 'Clrscope.Targets.Torture.';
/** Every torture case exits with this code, so that a crash or a lost exit code shows. */
export const EXIT_CODE = 42;

export interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The RESULT line, or '' when the program printed none. */
  result: string;
  /** The FACT lines, parsed. */
  facts: Record<string, unknown>[];
}

export function outcome(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): Outcome {
  const lines = stdout.split('\n');
  const result = lines.filter((l) => l.startsWith('RESULT ')).at(-1) ?? '';
  const facts = lines.filter((l) => l.startsWith('FACT ')).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  return { code, signal, stdout, stderr, result, facts };
}

/** The environment of a program started without clrscope: ours less every profiler variable. */
export function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CORECLR_') || key.startsWith('CLRSCOPE_')) delete env[key];
  return { ...env, ...extra };
}

export function tortureArgs(scenario: string, args: readonly string[] = []): string[] {
  return [targetDll('Torture'), scenario, '--exit-code', String(EXIT_CODE), ...args];
}

export function runPlain(scenario: string, args: readonly string[] = []): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('dotnet', tortureArgs(scenario, args), { env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(outcome(code, signal, out, err)));
  });
}

export interface Profiled {
  outcome: Outcome;
  stream: CollectedStream | undefined;
  rec: Recording | undefined;
  samples: SampleView[];
}

export async function runProfiled(scenario: string, args: readonly string[], intervalMs: number, options: { env?: NodeJS.ProcessEnv; libraryPath?: string } = {}): Promise<Profiled> {
  const run = await recordProgram('dotnet', tortureArgs(scenario, args), { intervalMs, env: options.env ?? plainEnv(), libraryPath: options.libraryPath });
  const stream = run.result.stream;
  const rec = stream?.recording;
  return {
    outcome: outcome(run.result.exitCode, run.result.exitSignal, run.stdout, run.stderr),
    stream,
    rec,
    samples: rec === undefined ? [] : samplesOf(rec),
  };
}

/** Whether the profiler's library is mapped into process `pid` now. */
export function libraryMapped(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libclrscope');
}

/** The last lines of a program's stderr, for assertion messages. */
export function tail(text: string, lines = 8): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** The program's exit and RESULT under clrscope are those of the plain run. */
export function assertUnchanged(plain: Outcome, profiled: Outcome, what: string): void {
  assert.equal(profiled.signal, null, `${what}: the program was killed by ${profiled.signal}; its stderr:\n${tail(profiled.stderr)}`);
  assert.equal(profiled.code, plain.code, `${what}: exit code ${profiled.code}, ${plain.code} without clrscope; its stderr:\n${tail(profiled.stderr)}`);
  assert.equal(profiled.result, plain.result, `${what}: the program's RESULT changed`);
}

/** The recording ended cleanly and holds samples with every one of `hot` (frame labels) somewhere. */
export function assertSane(p: Profiled, hot: readonly string[], what: string): void {
  assert.ok(p.stream !== undefined, `${what}: no stream arrived`);
  assert.equal(p.stream.state, 'ended', `${what}: the stream ended ${p.stream.state}, not cleanly`);
  assert.ok(p.samples.length > 0, `${what}: no samples`);
  for (const frame of hot) {
    assert.ok(p.samples.some((s) => s.frames.includes(frame)), `${what}: no sample has ${frame}`);
  }
}

export const has = (s: SampleView, frame: string): boolean => s.frames.includes(frame);

export interface TortureCase {
  scenario: string;
  args?: readonly string[];
  /** Frame labels that must appear in the recording. */
  hot: readonly string[];
  /** More checks of one profiled run. */
  check?: (p: Profiled, plain: Outcome, what: string, intervalMs: number) => void;
  /** Checks of the plain run: that the program did what makes the case a test (e.g. the library really landed in the hole). */
  checkPlain?: (plain: Outcome) => void;
}

export const INTERVALS: readonly { label: string; ms: number }[] = [
  { label: '--interval 1', ms: 1 },
  { label: `the default interval (${DEFAULT_INTERVAL_MS} ms)`, ms: DEFAULT_INTERVAL_MS },
];

/** One describe() per case: the plain run, then one test per interval. */
export function tortureCase(c: TortureCase): void {
  describe(`torture: ${c.scenario}`, () => {
    let plain: Outcome;
    before(async () => {
      plain = await runPlain(c.scenario, c.args);
    });

    it('runs to its RESULT without clrscope', () => {
      assert.equal(plain.signal, null, tail(plain.stderr));
      assert.equal(plain.code, EXIT_CODE, tail(plain.stderr));
      assert.match(plain.result, /^RESULT \{/);
      c.checkPlain?.(plain);
    });

    for (const interval of INTERVALS) {
      it(`under clrscope at ${interval.label}: output and exit code unchanged, recording sane`, { timeout: 180000 }, async () => {
        const p = await runProfiled(c.scenario, c.args ?? [], interval.ms);
        const what = `${c.scenario} at ${interval.label}`;
        assertUnchanged(plain, p.outcome, what);
        assertSane(p, c.hot, what);
        c.check?.(p, plain, what, interval.ms);
      });
    }
  });
}
