// One run of a soak program in one mode, and the comparison of a profiled run with the bare one.
//
//   bare    the program alone (no profiler variable in its environment)
//   launch  `clrscope record --interval 1 --alloc on --locks on --exceptions on --async [--children] -o F -- PROGRAM`
//   attach  the program started alone, then `clrscope record --pid PID <same options> -o F` while it runs,
//           until it exits
//   detach  the same, with `--duration S` (the program's detachAfterS): record detaches while the
//           program runs on (not among the default modes)
//   trace   the program started alone, then `dotnet-trace collect -p PID -o F` (the peer, for the cost
//           benchmark; its default providers; not among the soak's modes). Attached, because its
//           launch (`-- PROGRAM`) cannot start the program under GNU time: the runtime never connects.
//
// The program runs under GNU time (`/usr/bin/time -o FILE`), so its wall time, its CPU time (its
// whole process tree's, reaped children included) and whether a signal ended it come from the
// kernel's own accounting; clrscope's own CPU (the CLI and its collector, outside the program) from
// a second GNU time around `clrscope record`. A profiled run is also checked for a sane recording:
// the summary counts samples, and the profiler's log (CLRSCOPE_LOG) has no line of failure.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CLI } from '../integration/support/paths.js';
import type { Invocation, ProgramSpec, RunContext } from './soak-programs.js';

export type Mode = 'bare' | 'launch' | 'attach' | 'detach' | 'trace';
/** The soak's modes by default; `detach` (attach, then detach while the program runs on) on request. */
export const MODES: readonly Mode[] = ['bare', 'launch', 'attach'];
export const ALL_MODES: readonly Mode[] = ['bare', 'launch', 'attach', 'detach'];

/** Every event type on, at the shortest interval: the most the profiler can do to a program. */
export const RECORD_OPTIONS: readonly string[] = ['--interval', '1', '--alloc', 'on', '--locks', 'on', '--exceptions', 'on', '--async'];

const GNU_TIME = '/usr/bin/time';
const TIME_FORMAT = 'TIMES %e %U %S';

export interface FileDigest {
  count: number;
  digest: string;
  /** Relative path → sha256, to name what differs. */
  files: Map<string, string>;
}

export interface RunResult {
  program: string;
  mode: Mode;
  round: number;
  /** The program's exit code (null when a signal ended it). */
  code: number | null;
  /** The signal that ended the program, by number. */
  signal: number | null;
  timedOut: boolean;
  /** Normalized stdout, plus what the driver returned. */
  output: string;
  files?: FileDigest;
  /** The program's wall time, less its start delay. */
  wallMs: number;
  /** The program's CPU time (user + system, its process tree). */
  cpuMs: number;
  /** clrscope's own CPU time (the `record` CLI and its collector), profiled runs only. */
  clrscopeCpuMs?: number;
  /** Samples the recording's summary counted. */
  samples?: number;
  /** What is wrong with the recording or the profiler's log; empty when sane. */
  problems: string[];
  /** The program's stderr, last lines. */
  stderrTail: string;
  /** `clrscope record`'s stderr (its summary), profiled runs. */
  recordStderr?: string;
  /** Where this run's files were (removed unless kept). */
  dir: string;
  /** How long the program's driver (a load generator) took, from its first request to its last answer. */
  driveMs?: number;
}

export interface RunOptions {
  round: number;
  /** The folder runs make their own folders in. */
  workDir: string;
  /** Keep the run's folder (recording, outputs, logs). */
  keep?: boolean;
  /** Called with progress lines. */
  log?: (line: string) => void;
  /** `clrscope record`'s options (default RECORD_OPTIONS: everything on at 1 ms). */
  recordOptions?: readonly string[];
  /** dotnet-trace's path, for the trace mode. */
  dotnetTrace?: string;
  /** More environment for the program (bare) or for record and so the program (launch), for the cost bench's variants. */
  env?: NodeJS.ProcessEnv;
}

/** The environment of a program started without clrscope: ours less every profiler variable. */
export function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CORECLR_') || key.startsWith('CLRSCOPE_') || key.startsWith('DOTNET_DiagnosticPorts')) delete env[key];
  return { ...env, ...extra };
}

interface Timed {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startTimed(timeFile: string, command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Timed {
  const child = spawn(GNU_TIME, ['-f', TIME_FORMAT, '-o', timeFile, command, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (e) => { err += `\nspawn failed: ${e.message}`; resolve({ code: null, signal: null }); });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, closed };
}

interface TimeFile {
  wallMs: number;
  cpuMs: number;
  signal: number | null;
  exitStatus: number;
}

/** GNU time's report: "Command terminated by signal N" / "Command exited with non-zero status N", then our TIMES line. */
function readTimeFile(path: string): TimeFile | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const times = /^TIMES ([\d.]+) ([\d.]+) ([\d.]+)$/m.exec(text);
  if (times === null) return undefined;
  const signal = /Command terminated by signal (\d+)/.exec(text);
  const status = /Command exited with non-zero status (\d+)/.exec(text);
  return {
    wallMs: Number(times[1]) * 1000,
    cpuMs: (Number(times[2]) + Number(times[3])) * 1000,
    signal: signal === null ? null : Number(signal[1]),
    exitStatus: status === null ? 0 : Number(status[1]),
  };
}

/** Every process below `pid` (children, grandchildren, ...), from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, deadlineMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${deadlineMs} ms`);
    await sleep(20);
  }
}

/** The runtime's diagnostics socket for `pid` exists: the runtime is up enough to take an attach. */
function diagnosticsSocket(pid: number): string | undefined {
  const dir = process.env.TMPDIR ?? tmpdir();
  return readdirSync(dir).find((n) => n.startsWith(`dotnet-diagnostic-${pid}-`) && n.endsWith('-socket'));
}

/** Every file under `root` (or `root` itself), hashed. */
export function digestFiles(roots: readonly string[]): FileDigest {
  const files = new Map<string, string>();
  const walk = (path: string, base: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) walk(join(path, name), base);
      return;
    }
    files.set(relative(base, path) || path, createHash('sha256').update(readFileSync(path)).digest('hex'));
  };
  for (const root of roots) walk(root, statSync(root, { throwIfNoEntry: false })?.isDirectory() === true ? root : join(root, '..'));
  const all = createHash('sha256');
  for (const [p, h] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) all.update(`${p} ${h}\n`);
  return { count: files.size, digest: all.digest('hex'), files };
}

/** Lines of the profiler's log that say something failed. */
const LOG_FAILURE = /\bfailed\b|could not|staying inactive|malformed|\(\d+ so far\)|replaced clrscope's signal handler|took clrscope's signal over|sampling stopped(?!, the program carries on$)|profiler error/i;
/** Lines that contain one of those words and are fine: the stream's end after the collector hung up on a child it does not record. */
const LOG_FINE = /the workstation stopped reading \(connection closed\); sampling stopped, the program carries on|the workstation went away/;

export function logProblems(logPath: string): string[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8').split('\n').filter((l) => LOG_FAILURE.test(l) && !LOG_FINE.test(l)).slice(0, 5).map((l) => `profiler log: ${l}`);
}

/** The summary's sample count: "clrscope: recorded pid N (...): 42,056 samples (...)", summed over processes with --children. */
export function summarySamples(stderr: string): number | undefined {
  const number = (text: string): number => Number(text.replaceAll(',', ''));
  const one = /^clrscope: recorded pid \d+ [^\n]*?: ([\d,]+) samples/m.exec(stderr);
  if (one !== null) return number(one[1]);
  // --children: "clrscope: recorded 2 processes:", then "  PID (command): N samples[ (the launched program)]" each.
  const at = stderr.search(/^clrscope: recorded \d+ processes:$/m);
  if (at < 0) return undefined;
  const lines = stderr.slice(at).split('\n').slice(1);
  let total = 0;
  for (const line of lines) {
    const m = /^ {2}\d+ \(.*\): ([\d,]+) samples( \(the launched program\))?$/.exec(line);
    if (m === null) break;
    total += number(m[1]);
  }
  return total;
}

const tail = (text: string, lines = 12): string => text.trimEnd().split('\n').slice(-lines).join('\n');
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' / ').slice(0, 400);
/** record's "internal error" sentence with the first frame of its stack, when it printed one. */
const internalError = (stderr: string): string | undefined => /^clrscope: internal error[^\n]*\n[^\n]*/m.exec(stderr)?.[0];

function newContext(options: RunOptions, spec: ProgramSpec, mode: Mode): RunContext {
  const dir = join(options.workDir, `${spec.name}-r${options.round}-${mode}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return { dir };
}

/**
 * XDG_CACHE_HOME of every run, in the run's folder: record's spool (and what a failed record leaves
 * there) stays out of the user's cache. A launched program inherits record's environment, so the
 * program gets the same in every mode (PowerShell keeps its module cache there).
 */
const cacheHome = (ctx: RunContext): string => join(ctx.dir, 'cache');

function programEnv(spec: ProgramSpec, inv: Invocation, ctx: RunContext, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const delay: NodeJS.ProcessEnv = spec.startDelayMs === undefined ? {} : { SOAK_START_DELAY_MS: String(spec.startDelayMs) };
  return plainEnv({ ...inv.env, ...delay, XDG_CACHE_HOME: cacheHome(ctx), ...extra });
}

/** Runs the program once in `mode`. Never throws for the program's own failures: they are in the result. */
export async function runOnce(spec: ProgramSpec, mode: Mode, options: RunOptions): Promise<RunResult> {
  const ctx = newContext(options, spec, mode);
  const inv = spec.prepare(ctx);
  const logPath = join(ctx.dir, 'clrscope.log');
  const recording = join(ctx.dir, 'recording.clrscope');
  const programTime = join(ctx.dir, 'program.time');
  const clrscopeTime = join(ctx.dir, 'clrscope.time');
  const problems: string[] = [];
  const note = (s: string): void => options.log?.(`    ${spec.name} ${mode}: ${s}`);
  const recordOptions = options.recordOptions ?? RECORD_OPTIONS;

  let program: Timed;
  let recorder: Timed | undefined;
  let driven: Promise<string> | undefined;
  let driveStart = performance.now();
  let driveMs: number | undefined;
  if (mode === 'bare') {
    program = startTimed(programTime, inv.command, inv.args, inv.cwd, programEnv(spec, inv, ctx, { ...options.env }));
  } else if (mode === 'launch') {
    const args = [CLI, 'record', ...recordOptions, ...(spec.children ? ['--children'] : []), '-o', recording, '--',
      GNU_TIME, '-f', TIME_FORMAT, '-o', programTime, inv.command, ...inv.args];
    recorder = startTimed(clrscopeTime, process.execPath, args, inv.cwd, programEnv(spec, inv, ctx, { CLRSCOPE_LOG: logPath, ...options.env }));
    program = recorder;
  } else {
    program = startTimed(programTime, inv.command, inv.args, inv.cwd, programEnv(spec, inv, ctx, { CLRSCOPE_LOG: logPath }));
  }

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(program.child.pid);
    killTree(recorder?.child.pid);
  }, spec.timeoutMs);

  try {
    if (mode === 'attach' || mode === 'detach' || mode === 'trace') {
      const timePid = program.child.pid ?? 0;
      const pid = await waitFor('the program to start', 30_000, () => {
        try {
          const kids = readFileSync(`/proc/${timePid}/task/${timePid}/children`, 'utf8').trim();
          return kids === '' ? undefined : Number(kids.split(' ')[0]);
        } catch {
          return undefined;
        }
      });
      if (spec.attachAfter !== undefined) {
        const ready = spec.attachAfter;
        await waitFor('the program to be ready', 60_000, () => (ready.test(program.stdout()) ? true : undefined));
      } else {
        await waitFor('the diagnostics socket', 60_000, () => diagnosticsSocket(pid));
      }
      const duration = mode === 'detach' ? ['--duration', String(spec.detachAfterS)] : [];
      if (mode === 'trace') {
        if (options.dotnetTrace === undefined) throw new Error('the trace mode needs dotnetTrace (the tool\'s path)');
        recorder = startTimed(clrscopeTime, options.dotnetTrace, ['collect', '-p', String(pid), '-o', join(ctx.dir, 'trace.nettrace')], inv.cwd, plainEnv());
        // dotnet-trace says nothing when its session is on; give it the moment it needs to connect.
        await new Promise((r) => setTimeout(r, 1500));
      } else {
        const args = [CLI, 'record', '--pid', String(pid), ...recordOptions, ...duration, '-o', recording];
        recorder = startTimed(clrscopeTime, process.execPath, args, inv.cwd, plainEnv({ XDG_CACHE_HOME: cacheHome(ctx) }));
      }
      if (spec.drive !== undefined && mode !== 'trace') {
        // Drive once the profiler is in (its log says so), so that the load meets it.
        await waitFor('the attach', 30_000, () => (existsSync(logPath) && /attached: \d+ threads/.test(readFileSync(logPath, 'utf8')) ? true : undefined))
          .catch((e: Error) => { problems.push(`attach: ${e.message}`); });
      }
    }
    if (spec.drive !== undefined) {
      const drive = spec.drive;
      driven = (async () => {
        // Timed from the driver's own first request: waiting for the program to listen is not load.
        const out = await drive(program.stdout, ctx, () => { driveStart = performance.now(); });
        driveMs = performance.now() - driveStart;
        return out;
      })();
    }
  } catch (e) {
    problems.push(`harness: ${(e as Error).message}`);
  }

  const drivenOutput = driven === undefined ? '' : await driven.catch((e: Error) => `LOAD FAILED ${e.message}`);
  const closed = await program.closed;
  const recorderClosed = recorder === undefined ? undefined : await recorder.closed;
  clearTimeout(timer);

  const times = readTimeFile(programTime);
  let code: number | null = closed.code;
  let signal: number | null = null;
  if (times !== undefined) {
    // The program's own end, from GNU time around it (in a launch, record's exit code is record's:
    // the program's, unless record itself failed, which is a problem of the recording below).
    signal = times.signal;
    code = signal === null ? times.exitStatus : null;
  } else if (!timedOut) {
    problems.push(`no timing from GNU time (${programTime})`);
  }

  let samples: number | undefined;
  let clrscopeCpuMs: number | undefined;
  if (mode === 'trace') {
    clrscopeCpuMs = readTimeFile(clrscopeTime)?.cpuMs;
    if (recorderClosed?.code !== 0 && !timedOut) problems.push(`dotnet-trace exited ${recorderClosed?.code}: ${oneLine(tail(recorder?.stderr() ?? '', 2))}`);
  } else if (mode !== 'bare') {
    const recStderr = recorder?.stderr() ?? '';
    samples = summarySamples(recStderr);
    if (samples === undefined) problems.push(`no recording summary from clrscope record (exit ${recorderClosed?.code})`);
    else if (samples === 0) problems.push('the recording has no samples');
    // record exits with the program's exit code (launch) or 0 (attach); anything else is record's own failure.
    const expected = mode === 'launch' ? (signal === null ? code : 128 + signal) : 0;
    if (!timedOut && recorderClosed?.code !== expected && !(mode !== 'launch' && recorderClosed?.code === code)) {
      problems.push(`clrscope record${mode !== 'launch' ? ' --pid' : ''} exited ${recorderClosed?.code}, not ${expected}: ${oneLine(internalError(recStderr) ?? tail(recStderr, 2))}`);
    }
    problems.push(...logProblems(logPath));
    const own = readTimeFile(clrscopeTime);
    if (own !== undefined) clrscopeCpuMs = mode === 'launch' && times !== undefined ? own.cpuMs - times.cpuMs : own.cpuMs;
  }

  const output = [spec.normalize(program.stdout(), ctx), drivenOutput].filter((s) => s !== '').join('\n');
  const files = spec.outputs === undefined ? undefined : digestFiles(spec.outputs(ctx));
  const result: RunResult = {
    program: spec.name,
    mode,
    round: options.round,
    code,
    signal,
    timedOut,
    output,
    files,
    wallMs: Math.max(0, (times?.wallMs ?? 0) - (spec.startDelayMs ?? 0)),
    cpuMs: times?.cpuMs ?? 0,
    clrscopeCpuMs,
    samples,
    problems,
    stderrTail: tail(mode === 'launch' ? stripRecordSummary(program.stderr()) : program.stderr()),
    recordStderr: recorder?.stderr(),
    dir: ctx.dir,
    driveMs,
  };
  if (timedOut) note(`no end within ${spec.timeoutMs / 1000} s: killed`);
  if (!options.keep) rmSync(ctx.dir, { recursive: true, force: true });
  return result;
}

/** The program's own stderr in a launch run: record's summary (from "clrscope: recorded") cut off. */
function stripRecordSummary(stderr: string): string {
  const at = stderr.search(/^clrscope: recorded /m);
  return at < 0 ? stderr : stderr.slice(0, at);
}

/** What makes a run a failure of its own: a signal, a hang, or an exit code other than 0. */
export function failureOf(r: RunResult): string | undefined {
  if (r.timedOut) return 'hang (killed at the time limit)';
  if (r.signal !== null) return `killed by signal ${r.signal}`;
  if (r.code !== 0) return `exit code ${r.code}`;
  return undefined;
}

/** How a profiled run differs from the bare run of the same round; empty when it does not. */
export function differences(bare: RunResult, other: RunResult): string[] {
  const out: string[] = [];
  if (bare.code !== other.code || bare.signal !== other.signal) out.push(`exit: ${describeExit(other)}, bare ${describeExit(bare)}`);
  if (bare.output !== other.output) {
    const a = bare.output.split('\n');
    const b = other.output.split('\n');
    const i = a.findIndex((line, k) => line !== b[k]);
    const at = i < 0 ? a.length : i;
    out.push(`output differs at line ${at + 1}: ${JSON.stringify(b[at] ?? '<end>')}, bare ${JSON.stringify(a[at] ?? '<end>')}`);
  }
  if (bare.files !== undefined && other.files !== undefined && bare.files.digest !== other.files.digest) {
    const changed = [...new Set([...bare.files.files.keys(), ...other.files.files.keys()])].filter((p) => bare.files?.files.get(p) !== other.files?.files.get(p));
    out.push(`files differ: ${other.files.count} files, bare ${bare.files.count}; ${changed.length} differ (${changed.slice(0, 3).join(', ')})`);
  }
  return out;
}

function describeExit(r: RunResult): string {
  if (r.timedOut) return 'hang';
  return r.signal !== null ? `signal ${r.signal}` : `code ${r.code}`;
}
