// `clrscope record`: launch a program under the profiler, write what it recorded.

import { existsSync, renameSync, writeFileSync, unlinkSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { checkFormatAvailable, writeRecordingFile as writeInFormat } from '../services/export/recording-file.js';
import { RECORDING_FORMATS } from '../services/export/recording-formats.js';
import { recordAttach, type AttachRecordingResult } from '../services/session/attach-recording.js';
import { recordEventPipe } from '../services/session/eventpipe-recording.js';
import { recordLaunch, type LaunchRecordingResult } from '../services/session/launch-recording.js';
import { profilerLibraryPath } from '../services/session/profiler-env.js';
import { fallbackSentence } from '../services/session/profiler-refusal.js';
import { UserError } from '../services/session/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { RECORD_HELP } from './help-text.js';
import { checkWritable, outputFormatOf, type OutputFormat } from './output-format.js';
import { formatSummary } from './run-summary.js';
import type { Recording } from '../../structs/profile/recording.js';
import { pauseEntries } from '../../structs/profile/pause-summary.js';

interface RecordValues {
  pid?: string;
  output?: string;
  pauses?: string;
  duration?: string;
  interval?: string;
  wall?: boolean;
  'no-wall'?: boolean;
  'no-fallback'?: boolean;
  help?: boolean;
}

export interface RecordPlan {
  /** A running process to attach to, instead of a command to launch. */
  pid?: number;
  command: string;
  args: string[];
  output: string;
  /** Where to write the GC pause list as JSON, if asked. */
  pauses?: string;
  durationMs: number | undefined;
  intervalMs: number;
  wall: boolean;
  /** --pid: record through an EventPipe session when the runtime refuses the profiler (default true; --no-fallback). */
  fallback?: boolean;
}

export function planRecord(argv: readonly string[]): RecordPlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<RecordValues>(argv, {
    pid: { type: 'string', short: 'p' },
    output: { type: 'string', short: 'o' },
    pauses: { type: 'string' },
    duration: { type: 'string' },
    interval: { type: 'string' },
    wall: { type: 'boolean' },
    'no-wall': { type: 'boolean' },
    'no-fallback': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, 'record');
  if (values.help) return 'help';
  const commandLine = rest ?? positionals;
  if (rest !== undefined && positionals.length > 0) {
    throw new UserError(`Unexpected argument '${positionals[0]}' before '--' (see clrscope record --help).`);
  }
  const pid = numberOption(values.pid, 'pid', 1, 2 ** 31 - 1, true);
  if (pid !== undefined && commandLine.length > 0) {
    throw new UserError('Give either --pid PID or a program after --, not both (see clrscope record --help).');
  }
  if (pid === undefined && (commandLine.length === 0 || commandLine[0] === '')) {
    throw new UserError('No program to record: give it after --, e.g. clrscope record -- dotnet app.dll, or attach with --pid PID.');
  }
  if (values.wall && values['no-wall']) throw new UserError('--wall and --no-wall contradict each other.');
  const durationS = numberOption(values.duration, 'duration', 0.001, 31 * 24 * 3600, false);
  const intervalMs = numberOption(values.interval, 'interval', 1, 1000, true) ?? 10;
  const output = values.output ?? 'clrscope.pb.gz';
  outputFormatOf(output);
  if (values.pauses !== undefined && !values.pauses.toLowerCase().endsWith('.json')) {
    throw new UserError(`--pauses writes JSON: give it a .json file name, not ${values.pauses}.`);
  }
  return {
    pid,
    command: commandLine[0] ?? '',
    args: commandLine.slice(1),
    output,
    pauses: values.pauses,
    durationMs: durationS === undefined ? undefined : Math.round(durationS * 1000),
    intervalMs,
    wall: !values['no-wall'],
    fallback: values['no-fallback'] !== true,
  };
}

/** Writes next to the target and renames, so a failure never leaves half a file under its name. */
function writeTextFile(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.partial-${process.pid}`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw new UserError(`Cannot write ${path}: ${(err as Error).message}.`);
  }
}

/** Writes the recording in the format the extension names (the CLI records no counters series). */
export async function writeRecordingFile(path: string, rec: Recording): Promise<void> {
  await writeInFormat(path, rec, []);
}

const OPEN_HINTS: Partial<Record<OutputFormat, (path: string) => string>> = {
  pprof: (path) => `Try: go tool pprof -top -sample_index=cpu ${path}`,
  speedscope: () => 'Open it at https://www.speedscope.app',
  clrscope: (path) => `Convert it with: clrscope convert ${path} -o OTHER.pb.gz (or .speedscope.json, .nettrace, .etlx)`,
  nettrace: () => 'Open it in PerfView or with TraceEvent',
  etlx: () => 'Open it in PerfView',
};

export function exitCodeOf(result: Pick<LaunchRecordingResult, 'exitCode' | 'exitSignal'>): number {
  if (result.exitCode !== null) return result.exitCode;
  if (result.exitSignal !== null) return 128 + (osConstants.signals[result.exitSignal] ?? 0);
  return 1;
}

export interface RecordIo {
  err: (line: string) => void;
  out: (line: string) => void;
  signal?: AbortSignal;
}

export async function runRecord(argv: readonly string[], io: RecordIo): Promise<number> {
  const plan = planRecord(argv);
  if (plan === 'help') {
    io.out(RECORD_HELP);
    return 0;
  }
  return recordPlan(plan, io);
}

export async function recordPlan(plan: RecordPlan, io: RecordIo): Promise<number> {
  checkWritable(plan.output);
  if (plan.pauses !== undefined) checkWritable(plan.pauses);
  // A format whose writer is not built yet must fail before the program runs, not after.
  await checkFormatAvailable(outputFormatOf(plan.output), 'write');
  const libraryPath = profilerLibraryPath();
  if (!existsSync(libraryPath)) {
    throw new UserError(`The clrscope profiler library is missing at ${libraryPath}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
  }
  if (plan.pid !== undefined) return recordAttached(plan, plan.pid, libraryPath, io);
  const result = await recordLaunch({
    command: plan.command,
    args: plan.args,
    intervalMs: plan.intervalMs,
    wall: plan.wall,
    libraryPath,
    durationMs: plan.durationMs,
    signal: io.signal,
    notice: (m) => io.err(`clrscope: ${m}`),
  });
  const code = exitCodeOf(result);
  const stream = result.stream;
  if (stream === undefined) {
    io.err(`clrscope: no .NET runtime connected, so nothing was recorded and ${plan.output} was not written: ${plan.command} is not a .NET program, or its runtime did not load the profiler (DOTNET_EnableDiagnostics=0, or another profiler already loaded).`);
    return code;
  }
  if (stream.error !== undefined) io.err(`clrscope: ${stream.error} What arrived before it is kept.`);
  io.err(formatSummary(stream.recording, stream.closedByCollector));
  for (const other of result.otherStreams) {
    io.err(`clrscope: pid ${other.pid ?? '?'} (started by the program) also streamed ${other.recording.sampleCount} samples; they are not in ${plan.output}.`);
  }
  await writeOutputs(plan, stream.recording, io);
  return code;
}

async function writeOutputs(plan: RecordPlan, rec: Recording, io: RecordIo): Promise<void> {
  const format = outputFormatOf(plan.output);
  await writeRecordingFile(plan.output, rec);
  const hint = OPEN_HINTS[format]?.(plan.output);
  io.err(`clrscope: wrote ${plan.output} (${RECORDING_FORMATS[format].name}).${hint !== undefined ? ` ${hint}` : ''}`);
  if (plan.pauses !== undefined) {
    writeTextFile(plan.pauses, `${JSON.stringify(pauseEntries(rec.suspensions(), rec.meta?.startMono ?? 0), null, 1)}\n`);
    io.err(`clrscope: wrote ${plan.pauses} (${rec.suspensions().length} runtime suspensions).`);
  }
}

async function recordAttached(plan: RecordPlan, pid: number, libraryPath: string, io: RecordIo): Promise<number> {
  io.err(`clrscope: attaching to pid ${pid}...`);
  let result: AttachRecordingResult;
  try {
    result = await recordAttach({ pid, intervalMs: plan.intervalMs, wall: plan.wall, libraryPath, durationMs: plan.durationMs, signal: io.signal });
  } catch (err) {
    const sentence = plan.fallback !== false ? await fallbackSentence(err, pid, 'recording') : undefined;
    if (sentence === undefined) throw err;
    io.err(`clrscope: ${sentence}`);
    return recordThroughEventPipe(plan, pid, io);
  }
  const rec = result.stream.recording;
  if (result.stream.error !== undefined) io.err(`clrscope: ${result.stream.error} What arrived before it is kept.`);
  io.err(formatSummary(rec, result.stream.closedByCollector));
  io.err(result.reason === 'exited'
    ? `clrscope: process ${pid} exited during the recording.`
    : `clrscope: detached from pid ${pid}; it keeps running.`);
  await writeOutputs(plan, rec, io);
  return 0;
}

/** The runtime would not load the profiler but its diagnostics socket answers: the runtime's own sampler records. */
async function recordThroughEventPipe(plan: RecordPlan, pid: number, io: RecordIo): Promise<number> {
  const result = await recordEventPipe({ pid, durationMs: plan.durationMs, signal: io.signal });
  if (result.problem !== undefined) io.err(`clrscope: ${result.problem}`);
  const rec = result.recording;
  if (rec === undefined) throw new UserError(`Nothing was recorded from process ${pid}, so ${plan.output} was not written.`);
  io.err(formatSummary(rec, result.reason !== 'exited'));
  io.err(result.reason === 'exited'
    ? `clrscope: process ${pid} exited during the recording.`
    : `clrscope: stopped the EventPipe session in pid ${pid}; it keeps running.`);
  await writeOutputs(plan, rec, io);
  return 0;
}
