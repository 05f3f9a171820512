// The profiler built with AddressSanitizer+UBSan (native-profiler/build-asan, from
// scripts/build-native-sanitizers.sh) loaded into real .NET programs: CPU-heavy, lock-heavy and
// GC-heavy work at --interval 1, where the signal handler, the sampler and the runtime
// callbacks run most. The program's exit code and output stay its own, and neither sanitizer
// says anything (their reports go to files in a fresh folder, which must stay empty).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { attachProfiled } from '../../electron/services/recording/profiled-attach.js';
import { delay } from '../../electron/services/recording/profiled-launch.js';
import { EventKind } from '../../structs/wire/records.js';
import { ROOT, targetDll } from './support/paths.js';
import { recordProgram, samplesOf } from './support/record-target.js';
import { resultOf } from './support/run-cli.js';
import { plainEnv, tail } from './support/torture.js';

const ASAN_PROFILER = join(ROOT, 'native-profiler', 'build-asan', 'libclrscope.so');
const logs = mkdtempSync(join(tmpdir(), 'clrscope-asan-'));
after(() => rmSync(logs, { recursive: true, force: true }));

/** gcc's ASan runtime, which must be the first library of the process (LD_PRELOAD). */
function asanRuntime(): string {
  return execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
}

function asanEnv(name: string): NodeJS.ProcessEnv {
  return plainEnv({
    LD_PRELOAD: asanRuntime(),
    // CoreCLR owns the fault signals: a null dereference in managed code is a SIGSEGV the runtime
    // turns into a NullReferenceException, a division by zero a SIGFPE; ASan must leave those
    // (and the runtime's own alternate signal stacks) to it. Leaks are left to the native suite's
    // LeakSanitizer and the attach/detach RSS test: at exit the uninstrumented runtime still
    // holds memory by design. A report ends the process with 99.
    ASAN_OPTIONS: [
      'handle_segv=0', 'handle_sigbus=0', 'handle_sigfpe=0', 'handle_sigill=0', 'handle_abort=0',
      'allow_user_segv_handler=1', 'use_sigaltstack=0', 'detect_leaks=0', 'halt_on_error=1', 'exitcode=99',
      `log_path=${join(logs, `${name}.asan`)}`,
    ].join(':'),
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  });
}

/**
 * What the sanitizers said in this run: nothing, when all is well. ASan writes to its log_path;
 * UBSan, sharing ASan's runtime, writes to stderr whatever its log_path says, so the program's
 * stderr is searched too.
 */
function reports(name: string, stderr: string): string {
  const files = readdirSync(logs).filter((f) => f.startsWith(`${name}.`)).map((f) => `${f}:\n${readFileSync(join(logs, f), 'utf8')}`);
  const lines = stderr.split('\n').filter((l) => /runtime error:|Sanitizer/.test(l));
  return [...files, ...lines].join('\n');
}

interface AsanCase {
  name: string;
  dll: 'Scenarios' | 'GcLoad';
  args: string[];
  exitCode: number;
  hot: string;
  /** More environment for the target (the profiler's switches). */
  env?: Record<string, string>;
  /** An event kind (EventKind) the stream must carry. */
  eventKind?: number;
}

const CASES: AsanCase[] = [
  { name: 'cpu-ratio-and-lock', dll: 'Scenarios', args: ['cpu-ratio', 'lock', 'sleep', '--seconds', '2', '--exit-code', '7'], exitCode: 7, hot: 'Clrscope.Targets.Scenarios.CpuWork.Heavy' },
  // Allocation sampling with the live heap: weak handles made inside allocations, swept in GCs.
  { name: 'live-heap', dll: 'Scenarios', args: ['live-heap', 'lock-wait', '--allocate-mb', '100', '--seconds', '1'], exitCode: 0, hot: 'Clrscope.Targets.Scenarios.LiveHeapGrowth.Run', env: { CLRSCOPE_ALLOC: '1' }, eventKind: EventKind.Live },
  { name: 'gc-heavy', dll: 'GcLoad', args: ['--gen0', '20', '--gen1', '5', '--gen2', '3', '--allocate-mb', '150', '--exceptions', '200', '--threads', '20', '--lock-contention', '100', '--duration', '3', '--repeat-every', '0', '--exit-code', '3'], exitCode: 3, hot: 'Clrscope.Targets.GcLoad.GcWork.Allocate' },
];

describe('the profiler under AddressSanitizer+UBSan inside real programs', () => {
  for (const c of CASES) {
    it(`${c.name}: the program is unchanged and the sanitizers report nothing`, { timeout: 240000 }, async () => {
      assert.ok(existsSync(ASAN_PROFILER), `${ASAN_PROFILER} is missing: run bash scripts/build-native-sanitizers.sh address`);
      const run = await recordProgram('dotnet', [targetDll(c.dll), ...c.args], { intervalMs: 1, env: { ...asanEnv(c.name), ...c.env }, libraryPath: ASAN_PROFILER });
      assert.equal(reports(c.name, run.stderr), '', `${c.name}: the sanitizers reported`);
      assert.equal(run.result.exitSignal, null, `${c.name}: killed by ${run.result.exitSignal}: ${tail(run.stderr)}`);
      assert.equal(run.result.exitCode, c.exitCode, `${c.name}: exit code ${run.result.exitCode}: ${tail(run.stderr)}`);
      assert.ok(resultOf(run.stdout), 'the program printed its RESULT');
      const stream = run.result.stream;
      assert.ok(stream !== undefined, `${c.name}: the ASan-built profiler never connected: ${tail(run.stderr)}`);
      assert.equal(stream.state, 'ended', `${c.name}: the stream ended ${stream.state}`);
      const samples = samplesOf(stream.recording);
      assert.ok(samples.some((s) => s.frames.includes(c.hot)), `${c.name}: no sample has ${c.hot} (${samples.length} samples)`);
      if (c.eventKind !== undefined) assert.ok(stream.recording.events().kind.includes(c.eventKind), `${c.name}: no event of kind ${c.eventKind}`);
    });
  }
});

describe('the profiler under AddressSanitizer+UBSan attached and detached', () => {
  it('three attach/detach cycles into a running program: unchanged, and nothing reported', { timeout: 240000 }, async () => {
    assert.ok(existsSync(ASAN_PROFILER), `${ASAN_PROFILER} is missing: run bash scripts/build-native-sanitizers.sh address`);
    const child = spawn('dotnet', [targetDll('Scenarios'), 'cpu-ratio', 'lock', '--seconds', '8', '--exit-code', '9'], { env: asanEnv('attach'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 30000;
      while (!/^READY /m.test(out) && child.exitCode === null && Date.now() < deadline) await delay(50);
      assert.match(out, /^READY /m, `the program never got ready: ${tail(err)}`);
      for (let cycle = 1; cycle <= 3; cycle++) {
        const session = await attachProfiled({ pid: child.pid ?? 0, intervalMs: 1, wall: true, cpu: true, libraryPath: ASAN_PROFILER });
        await delay(1000);
        await session.detach();
        const samples = samplesOf(session.stream.recording);
        assert.ok(samples.some((s) => s.frames.includes('Clrscope.Targets.Scenarios.CpuWork.Heavy')), `cycle ${cycle}: no sample in CpuWork.Heavy`);
        await delay(500);
      }
      const code = await exited;
      assert.equal(reports('attach', err), '', 'the sanitizers reported');
      assert.equal(code, 9, `exit code ${code}: ${tail(err)}`);
      assert.ok(resultOf(out), 'the program printed its RESULT');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
