// `clrscope measure`: exact calls and latency of chosen methods, in a program clrscope launches
// (measured from the first call) or in a running process (from the attach on).

import { existsSync } from 'node:fs';
import type { CollectedStream } from '../services/collector/collector.js';
import { MeasureChannels, type MeasureChannel } from '../services/measure/measure-channel.js';
import { connectTimeoutMs, delay } from '../services/recording/profiled-launch.js';
import { profilerLibraryPath } from '../services/profiler/profiler-env.js';
import { attachInstrumented, launchInstrumented } from '../services/recording/start-session.js';
import { followUntil } from '../services/recording/follow-until.js';
import { UserError } from '../services/errors/user-error.js';
import { parseMethodPattern, patternNames, type MethodPattern } from '../../structs/measure/method-pattern.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { MEASURE_HELP } from './help-text.js';
import { measureJson, measureTable } from './measure-table.js';
import { commandExitCode } from '../services/recording/program-exit.js';

interface MeasureValues {
  method?: string[];
  pid?: string;
  duration?: string;
  json?: boolean;
  help?: boolean;
}

export interface MeasurePlan {
  patterns: MethodPattern[];
  pid?: number;
  command: string;
  args: string[];
  durationMs: number | undefined;
  json: boolean;
}

export interface MeasureIo {
  out: (line: string) => void;
  err: (line: string) => void;
  signal?: AbortSignal;
}

/** How long calls still inside the wrapped code after a revert get to finish and be counted. */
const SETTLE_MS = 700;
const READY_TIMEOUT_MS = 10000;

export function planMeasure(argv: readonly string[]): MeasurePlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<MeasureValues>(argv, {
    method: { type: 'string', short: 'm', multiple: true },
    pid: { type: 'string', short: 'p' },
    duration: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, 'measure');
  if (values.help) return 'help';
  const commandLine = rest ?? positionals;
  if (rest !== undefined && positionals.length > 0) {
    throw new UserError(`Unexpected argument '${positionals[0]}' before '--' (see clrscope measure --help).`);
  }
  const pid = numberOption(values.pid, 'pid', 1, 2 ** 31 - 1, true);
  if (pid !== undefined && commandLine.length > 0) throw new UserError('Give either --pid PID or a program after --, not both (see clrscope measure --help).');
  if (pid === undefined && (commandLine.length === 0 || commandLine[0] === '')) {
    throw new UserError('No program to measure: give it after --, e.g. clrscope measure -m Ns.Type.Method -- dotnet app.dll, or attach with --pid PID.');
  }
  const texts = values.method ?? [];
  if (texts.length === 0) throw new UserError('Name the methods to measure with --method Namespace.Type.Method (or Namespace.Type.*).');
  const patterns = texts.map((text) => {
    // Patterns travel to a launched program in one variable, separated by ';'.
    const p = text.includes(';') ? `'${text}' has a ; inside the name` : parseMethodPattern(text);
    if (typeof p === 'string') throw new UserError(`${p}.`);
    return p;
  });
  const durationS = numberOption(values.duration, 'duration', 0.001, 31 * 24 * 3600, false);
  return {
    patterns,
    pid,
    command: commandLine[0] ?? '',
    args: commandLine.slice(1),
    durationMs: durationS === undefined ? undefined : Math.round(durationS * 1000),
    json: values.json === true,
  };
}

export async function runMeasure(argv: readonly string[], io: MeasureIo): Promise<number> {
  const plan = planMeasure(argv);
  if (plan === 'help') {
    io.out(MEASURE_HELP);
    return 0;
  }
  const libraryPath = profilerLibraryPath();
  if (!existsSync(libraryPath)) {
    throw new UserError(`The clrscope profiler library is missing at ${libraryPath}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
  }
  return plan.pid !== undefined ? measureAttached(plan, plan.pid, libraryPath, io) : measureLaunched(plan, libraryPath, io);
}

/** Resolves when the duration ends or on Ctrl-C ('stop'), or when `ended` settles first ('ended'). */
async function stopOrEnd(plan: MeasurePlan, io: MeasureIo, ended: Promise<unknown>): Promise<'stop' | 'ended'> {
  return await followUntil(ended, { durationMs: plan.durationMs, signal: io.signal }) === 'ended' ? 'ended' : 'stop';
}

/** Gives every measured method its original code back and lets calls still in the wrapped code finish. */
async function revertAll(channel: MeasureChannel, io: MeasureIo): Promise<void> {
  if (!channel.ready || channel.stream.state !== 'open') return;
  try {
    const reply = await channel.revert(0);
    if (reply.status !== 0) io.err(`clrscope: ${reply.message}.`);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    io.err(`clrscope: ${err.message}`);
  }
  await delay(SETTLE_MS);
}

function report(plan: MeasurePlan, channel: MeasureChannel, io: MeasureIo): void {
  const methods = channel.measurements.methods();
  for (const p of plan.patterns) {
    if (!methods.some((m) => patternNames(p, m.name))) io.err(`clrscope: no method matched ${p.text}.`);
  }
  if (plan.json) io.out(measureJson(methods));
  else if (methods.length > 0) io.out(measureTable(methods));
}

async function measureLaunched(plan: MeasurePlan, libraryPath: string, io: MeasureIo): Promise<number> {
  const channels = new MeasureChannels();
  const launch = await launchInstrumented({
    command: plan.command,
    args: plan.args,
    intervalMs: 10,
    cpu: false,
    wall: false,
    libraryPath,
    // Instrumented as each module loads, before any of its code runs: exact from the first call.
    extraEnv: { CLRSCOPE_MEASURE: plan.patterns.map((p) => p.text).join(';') },
    onChunk: channels.onChunk,
  });
  const { collector } = launch;
  const timeout = connectTimeoutMs();
  const noRuntime = setTimeout(() => {
    if (collector.streams.length === 0) io.err(`clrscope: no .NET runtime has connected after ${Math.round(timeout / 1000)} s: ${plan.command} does not look like a .NET program; still waiting for it to exit.`);
  }, timeout);
  const how = await stopOrEnd(plan, io, launch.exited);
  clearTimeout(noRuntime);
  const own = (): CollectedStream | undefined => collector.streams.find((s) => s.pid === launch.pid) ?? collector.streams.find((s) => s.pid !== undefined);
  if (how === 'stop') {
    const stream = own();
    if (stream !== undefined) await revertAll(channels.of(stream), io);
    await collector.close();
    await launch.stopProgram();
  }
  const exit = await launch.exited;
  await launch.finish();
  const stream = own();
  if (stream === undefined) {
    io.err(`clrscope: no .NET runtime connected, so nothing was measured: ${plan.command} is not a .NET program, or its runtime did not load the profiler (DOTNET_EnableDiagnostics=0, or another profiler already loaded).`);
    return commandExitCode(exit);
  }
  if (stream.error !== undefined) io.err(`clrscope: ${stream.error} What arrived before it is kept.`);
  report(plan, channels.of(stream), io);
  return commandExitCode(exit);
}

async function measureAttached(plan: MeasurePlan, pid: number, libraryPath: string, io: MeasureIo): Promise<number> {
  io.err(`clrscope: attaching to pid ${pid}...`);
  const channels = new MeasureChannels();
  // Measuring has no EventPipe road: a refusal is one sentence saying why nothing was measured.
  const { attached: attach } = await attachInstrumented({ pid, intervalMs: 10, cpu: false, wall: false, libraryPath, onChunk: channels.onChunk }, 'measuring');
  const channel = channels.of(attach.stream);
  try {
    await channel.waitReady(READY_TIMEOUT_MS);
    for (const p of plan.patterns) {
      const reply = await channel.measure(p.text);
      io.err(`clrscope: ${reply.message}.`);
    }
    const exited = (async () => {
      while (attach.alive() && attach.stream.state === 'open') await delay(100);
    })();
    const how = await stopOrEnd(plan, io, exited);
    if (how === 'stop') await revertAll(channel, io);
  } finally {
    await attach.detach();
  }
  report(plan, channel, io);
  io.err(attach.alive()
    ? `clrscope: process ${pid} keeps running with its original code; the runtime keeps clrscope's profiler loaded, idle, until it exits.`
    : `clrscope: process ${pid} exited during the measurement.`);
  return 0;
}
