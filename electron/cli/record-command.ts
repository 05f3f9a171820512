// `clrscope record`: launch a program under the profiler (or attach to one), write what it
// recorded. It records through the same sessions as the workstation (services/recording): the
// stream goes to a spool file as it arrives and the process keeps no samples while recording;
// the recording with every sample is read back from the spool at the end, and a .clrscope
// output is the spool itself, moved into place.

import { existsSync } from 'node:fs';
import type { CollectedStream } from '../services/collector/collector.js';
import { ChildSpools } from '../services/spool/child-spools.js';
import { SAVE_FAILED_EXIT_CODE, writeFileAtomically } from '../services/export/atomic-file.js';
import { counted } from '../../structs/text/count.js';
import { checkFormatAvailable, writeRecordingFile } from '../services/export/recording-file.js';
import { recordingFormat } from '../../structs/formats/registry.js';
import { ATTACH_STUBS_SENTENCE } from '../services/profiler/perf-map.js';
import { recordAttach, type EventPipeAttachResult } from '../services/recording/attach-recording.js';
import { recordLaunch, type LaunchRecordingResult } from '../services/recording/launch-recording.js';
import { ASYNC_SOURCES, asyncFromHeap, eventEnvironment, HEAP_ASYNC_STAYS_LOADED, profilerLibraryPath, type EventSwitches } from '../services/profiler/profiler-env.js';
import { MAX_CHILD_STREAMS } from '../services/recording/profiled-launch.js';
import { commandExitCode, exitText } from '../services/recording/program-exit.js';
import { lingeringSentence, processText } from '../services/recording/process-tree.js';
import { dotnetToolOf, toolLauncherNotice } from '../services/recording/dotnet-tool.js';
import { mergeProcesses, type ProcessPart } from '../../structs/profile/merge-processes.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { RECORD_HELP } from './help-text.js';
import { requestsRateOption } from './requests-rate-option.js';
import { openSpool, type RunSpool } from './run-spool.js';
import { checkWritable, outputFormatOf } from './output-format.js';
import { formatSummary } from './run-summary.js';
import type { LiveSession } from '../services/recording/live-session.js';
import { readBack, type ReadBack, type SummedReadBack } from '../services/recording/read-back.js';
import type { Recording } from '../../structs/profile/recording.js';
import { pauseEntries } from '../../structs/profile/pause-summary.js';
import { namespacesOf } from '../services/diagnostics/namespaces.js';

interface RecordValues {
  pid?: string;
  output?: string;
  pauses?: string;
  duration?: string;
  interval?: string;
  wall?: boolean;
  'no-wall'?: boolean;
  exceptions?: string;
  locks?: string;
  alloc?: string;
  async?: boolean;
  'async-source'?: string;
  requests?: boolean;
  'requests-rate'?: string;
  'no-fallback'?: boolean;
  children?: boolean;
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
  /** --exceptions / --locks / --alloc on|off: event samples with stacks (default exceptions and locks on, allocations off). */
  events?: EventSwitches;
  /** --pid: record through an EventPipe session when the runtime refuses the profiler (default true; --no-fallback). */
  fallback?: boolean;
  /** --children: record every .NET process the program starts, each as its own process in one recording. */
  children?: boolean;
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
    exceptions: { type: 'string' },
    locks: { type: 'string' },
    alloc: { type: 'string' },
    async: { type: 'boolean' },
    'async-source': { type: 'string' },
    requests: { type: 'boolean' },
    'requests-rate': { type: 'string' },
    'no-fallback': { type: 'boolean' },
    children: { type: 'boolean' },
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
  if (pid !== undefined && values.children === true) {
    throw new UserError('--children records the .NET processes a launched program starts: it does not go with --pid (see clrscope record --help).');
  }
  if (values.wall && values['no-wall']) throw new UserError('--wall and --no-wall contradict each other.');
  const durationS = numberOption(values.duration, 'duration', 0.001, 31 * 24 * 3600, false);
  const intervalMs = numberOption(values.interval, 'interval', 1, 1000, true) ?? 10;
  const output = values.output ?? 'clrscope.pb.gz';
  outputFormatOf(output);
  const sourceText = values['async-source'];
  const asyncSource = ASYNC_SOURCES.find((s) => s === sourceText);
  if (sourceText !== undefined && asyncSource === undefined) {
    throw new UserError(`--async-source takes ${ASYNC_SOURCES.join(' or ')}, not '${sourceText}'.`);
  }
  const requestsRate = requestsRateOption(values['requests-rate'], values.requests === true);
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
    events: {
      exceptions: onOff(values.exceptions, 'exceptions'),
      locks: onOff(values.locks, 'locks'),
      alloc: onOff(values.alloc, 'alloc', false),
      async: values.async === true || asyncSource !== undefined,
      ...(asyncSource === undefined ? {} : { asyncSource }),
      requests: values.requests === true,
      ...(requestsRate === undefined ? {} : { requestsRate }),
    },
    fallback: values['no-fallback'] !== true,
    children: values.children === true,
  };
}

function onOff(value: string | undefined, name: string, byDefault = true): boolean {
  if (value === undefined) return byDefault;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UserError(`--${name} takes on or off, not '${value}'.`);
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

// This process's CPU when the recording began: what the collector itself costs the machine,
// apart from the program's cost, for the summary.
let cpuAtStart = process.cpuUsage();

function collectorCpuNs(): number {
  const used = process.cpuUsage(cpuAtStart);
  return (used.user + used.system) * 1000;
}

export async function recordPlan(plan: RecordPlan, io: RecordIo): Promise<number> {
  cpuAtStart = process.cpuUsage();
  checkWritable(plan.output);
  if (plan.pauses !== undefined) checkWritable(plan.pauses);
  // A format whose writer is not built yet must fail before the program runs, not after.
  await checkFormatAvailable(outputFormatOf(plan.output), 'write');
  const libraryPath = profilerLibraryPath();
  if (!existsSync(libraryPath)) {
    throw new UserError(`The clrscope profiler library is missing at ${libraryPath}: build it with 'npm run build:native' (or set CLRSCOPE_PROFILER_PATH).`);
  }
  const spool = await openSpool(io);
  try {
    if (plan.pid !== undefined) return await recordAttached(plan, plan.pid, libraryPath, io, spool);
    return await recordLaunched(plan, libraryPath, io, spool);
  } catch (err) {
    // Whatever went wrong, what was recorded stays on disk, and the user hears where.
    if (!spool.saved) spool.keep(io);
    throw err;
  }
}

async function recordLaunched(given: RecordPlan, libraryPath: string, io: RecordIo, spool: RunSpool): Promise<number> {
  const plan = followToolLauncher(given, io);
  // With --children each child's stream is spooled to a file of its own; the run's spool keeps the launched one's.
  const children = plan.children === true ? new ChildSpools(spool.dir, (m) => io.err(`clrscope: ${m}`)) : undefined;
  try {
    const code = await recordLaunchedWith(plan, libraryPath, io, spool, children);
    await children?.remove();
    return code;
  } catch (err) {
    const kept = children?.keep() ?? [];
    if (kept.length > 0) io.err(`clrscope: the child processes' recordings are kept in ${kept.join(', ')} (clrscope convert FILE -o OUT writes each in any format).`);
    throw err;
  }
}

async function recordLaunchedWith(plan: RecordPlan, libraryPath: string, io: RecordIo, spool: RunSpool, children: ChildSpools | undefined): Promise<number> {
  const result = await recordLaunch({
    command: plan.command,
    args: plan.args,
    intervalMs: plan.intervalMs,
    wall: plan.wall,
    libraryPath,
    env: plan.events === undefined ? undefined : { ...process.env, ...eventEnvironment(plan.events) },
    durationMs: plan.durationMs,
    signal: io.signal,
    notice: (m) => io.err(`clrscope: ${m}`),
    stream: spool.stream,
    // The samples are in the spool (and the children's): none wait in memory while recording.
    keepSamples: false,
    onChunk: children?.listener,
    children: plan.children,
  });
  const exit = { code: result.exitCode, signal: result.exitSignal };
  const code = commandExitCode(exit);
  const how = exitText(exit, 'ended');
  const stream = result.stream;
  if (stream === undefined) {
    spool.discard();
    io.err(`clrscope: no .NET runtime connected, so nothing was recorded and ${plan.output} was not written: ${plan.command} is not a .NET program, or its runtime did not load the profiler (DOTNET_EnableDiagnostics=0, or another profiler already loaded); the program ${how}.`);
    return code !== 0 ? code : NOTHING_RECORDED_EXIT_CODE;
  }
  if (stream.error !== undefined) io.err(`clrscope: ${stream.error} What arrived before it is kept.`);
  for (const other of result.otherStreams) if (other.error !== undefined) io.err(`clrscope: pid ${other.pid ?? '?'}: ${other.error} What arrived before it is kept.`);
  const { recording: rec, summed } = await readBackFor(plan, result.session);
  await spool.stream.closeReader();
  if (plan.children === true && children !== undefined) {
    const tree = await processTreeRecording(stream, rec, result, children, io);
    io.err(formatSummary(tree.recording, stream.closedByCollector, undefined, collectorCpuNs()));
    await reportLingering(result, libraryPath, io, true);
    // The spool holds the launched process's stream only: it is kept on failure, never moved into place.
    await writeOutputs(plan, tree, spool, io, { code, how }, true);
    return code;
  }
  io.err(formatSummary(rec, stream.closedByCollector, summed?.sums, collectorCpuNs()));
  for (const other of result.otherStreams) {
    io.err(`clrscope: pid ${other.pid ?? '?'} (started by the program) also streamed ${counted(other.recording.sampleCount, 'sample')}; they are not in ${plan.output} (--children records every process).`);
  }
  if (result.refusedPids.length > 0) {
    const pids = result.refusedPids;
    io.err(`clrscope: ${counted(pids.length, 'other .NET process', 'other .NET processes')} the program started also loaded the profiler and ${pids.length === 1 ? 'was' : 'were'} not recorded (pid ${pids.slice(0, 10).join(', ')}${pids.length > 10 ? ', …' : ''}; --children records them too).`);
  }
  await reportLingering(result, libraryPath, io, false);
  await writeOutputs(plan, { recording: rec, state: stream.state }, spool, io, { code, how }, false, summed);
  return code;
}

/**
 * A .NET tool's launcher may only start the real program and wait for it (PowerShell's does):
 * its processes are followed as --children does, said before it starts.
 */
function followToolLauncher(plan: RecordPlan, io: RecordIo): RecordPlan {
  if (plan.children === true) return plan;
  const tool = dotnetToolOf(plan.command);
  if (tool === undefined) return plan;
  io.err(`clrscope: ${toolLauncherNotice(tool)}`);
  return { ...plan, children: true };
}

/**
 * The recording for the summary and the output, read back from the spool. A .clrscope output
 * (the spool moved into place) and a pprof one need the samples only summed, as the summary
 * does; a recording of several processes is read whole, to be merged.
 */
async function readBackFor(plan: RecordPlan, session: LiveSession): Promise<ReadBack> {
  const format = outputFormatOf(plan.output);
  const back = await readBack(session, plan.children !== true && (format === 'clrscope' || format === 'pprof'));
  // A session whose stream connected has a recording: none is a bug, not a user's error.
  if (back === undefined) throw new Error('The followed stream has no recording.');
  return back;
}

/** The launched process and every child that streamed, as one recording of several processes, listed on stderr. */
async function processTreeRecording(own: CollectedStream, ownRecording: Recording, result: LaunchRecordingResult, children: ChildSpools, io: RecordIo): Promise<Pick<CollectedStream, 'recording' | 'state'>> {
  const streams = [own, ...result.otherStreams];
  const parts: ProcessPart[] = [];
  const lines: string[] = [];
  for (const s of streams) {
    const meta = s.recording.meta;
    if (meta === undefined) continue;
    const d = await result.processes.get(meta.pid);
    const rec = s === own ? ownRecording : await children.recordingOf(s);
    // The recording must be finished before its columns are read as a whole.
    if (!rec.isFinished) rec.finish();
    parts.push({ process: { pid: meta.pid, name: d.name }, recording: rec });
    lines.push(`  ${processText(d)}: ${counted(rec.sampleCount, 'sample')}${s === own ? ' (the launched program)' : ''}`);
  }
  io.err(`clrscope: recorded ${counted(parts.length, 'process', 'processes')}:`);
  for (const line of lines) io.err(line);
  if (result.refusedPids.length > 0) {
    io.err(`clrscope: ${counted(result.refusedPids.length, 'more .NET process', 'more .NET processes')} connected past the limit of ${MAX_CHILD_STREAMS} and ${result.refusedPids.length === 1 ? 'was' : 'were'} not recorded (pid ${result.refusedPids.slice(0, 10).join(', ')}).`);
  }
  return { recording: mergeProcesses(parts), state: own.state };
}
/** Says which processes the program started are still running with the profiler loaded (process-tree.ts). */
async function reportLingering(result: LaunchRecordingResult, libraryPath: string, io: RecordIo, children: boolean): Promise<void> {
  const others = [...result.otherStreams.map((s) => s.pid), ...result.refusedPids].filter((pid): pid is number => pid !== undefined && pid !== result.stream?.pid);
  const sentence = await lingeringSentence(others, libraryPath, result.processes, children);
  if (sentence !== undefined) io.err(`clrscope: ${sentence[0].toLowerCase()}${sentence.slice(1)}`);
}

/** Exit code when nothing could be recorded and the program itself exited 0. */
export const NOTHING_RECORDED_EXIT_CODE = 1;

interface ProgramOutcome {
  code: number;
  /** "exited with code 3" */
  how: string;
}

/**
 * Writes the output (and --pauses). A failure to write says so in one sentence that also
 * says how the program ended and where the recording is kept, and exits non-zero: with the
 * program's own code when that is not 0, else SAVE_FAILED_EXIT_CODE.
 */
/**
 * `fileRoot`: where an attached process's files are from here (`/proc/PID/root` when it is in a
 * container), so source lines are read from its own assemblies.
 */
async function writeOutputs(plan: RecordPlan, stream: Pick<CollectedStream, 'recording' | 'state'>, spool: RunSpool | undefined, io: RecordIo, program: ProgramOutcome | undefined, spoolIsPart = false, summed?: SummedReadBack, fileRoot?: string): Promise<void> {
  const rec = stream.recording;
  const format = outputFormatOf(plan.output);
  // The spool becomes a complete file first: a recording kept after a failed save is whole.
  const clean = stream.state === 'ended';
  // A corrupt stream's spool holds the bad record too: only the model's copy is good then.
  const file = spool?.stream.spoolFile;
  const spoolComplete = stream.state !== 'corrupt' && file?.finish(clean ? rec.end : undefined) === true;
  try {
    if (spool !== undefined && file !== undefined && spoolComplete && clean && format === 'clrscope' && !spoolIsPart) {
      // The spool is the .clrscope file already: it moves into place instead of being written twice.
      await file.moveTo(plan.output);
      spool.saved = true;
    } else if (summed !== undefined && format === 'pprof') {
      await writeRecordingFile(plan.output, rec, [], { summed: summed.sums, fileRoot });
    } else {
      // A recording read back summed holds no samples: a .clrscope the spool could not become is written from them all.
      // The CLI records no counters series.
      await writeRecordingFile(plan.output, summed === undefined ? rec : await summed.whole(), [], { fileRoot });
    }
    const hint = recordingFormat(format).openHint?.(plan.output);
    io.err(`clrscope: wrote ${plan.output} (${recordingFormat(format).name}).${hint !== undefined ? ` ${hint}` : ''}`);
    if (plan.pauses !== undefined) {
      await writeFileAtomically(plan.pauses, [`${JSON.stringify(pauseEntries(rec.suspensions(), rec.meta?.startMono ?? 0), null, 1)}\n`]);
      io.err(`clrscope: wrote ${plan.pauses} (${counted(rec.suspensions().length, 'runtime suspension')}).`);
    }
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    // One sentence: what failed, how the program ended, where the recording is.
    const parts: string[] = [];
    if (program !== undefined) parts.push(`the program ${program.how}`);
    if (spool !== undefined && file !== undefined && !spool.saved) {
      const path = file.path;
      if (spoolComplete && spoolIsPart) parts.push(`the launched process's recording is kept in ${path} (clrscope convert ${path} -o FILE writes it in any format)`);
      else if (spoolComplete) parts.push(`everything recorded is kept in ${path} (clrscope convert ${path} -o FILE writes it in any format)`);
      else if (stream.state !== 'corrupt' && file.holdsRecords) parts.push(`what was recorded before ${path} could not be written further is kept there`);
      else spool.discard();
      spool.saved = true;
    }
    const code = program !== undefined && program.code !== 0 ? program.code : SAVE_FAILED_EXIT_CODE;
    const message = err.message.replace(/\.$/, '');
    throw new UserError(parts.length === 0 ? `${message}.` : `${message}; ${parts.join(', and ')}.`, code);
  }
  if (spool !== undefined && !spool.saved) spool.discard();
}

async function recordAttached(plan: RecordPlan, pid: number, libraryPath: string, io: RecordIo, spool: RunSpool): Promise<number> {
  io.err(`clrscope: attaching to pid ${pid}...`);
  io.err(`clrscope: after an attach, ${ATTACH_STUBS_SENTENCE}`);
  const result = await recordAttach({
    pid,
    intervalMs: plan.intervalMs,
    wall: plan.wall,
    events: plan.events,
    libraryPath,
    durationMs: plan.durationMs,
    signal: io.signal,
    stream: spool.stream,
    keepSamples: false,
    fallback: plan.fallback !== false,
    onFallback: (notice) => io.err(`clrscope: ${notice}`),
  });
  if (result.kind === 'eventpipe') {
    // The attach closed the run's spool when the runtime refused the profiler.
    spool.saved = true;
    return writeEventPipeRecording(plan, pid, result, io);
  }
  const { recording: rec, summed } = await readBackFor(plan, result.session);
  await spool.stream.closeReader();
  if (result.stream.error !== undefined) io.err(`clrscope: ${result.stream.error} What arrived before it is kept.`);
  io.err(formatSummary(rec, result.stream.closedByCollector, summed?.sums, collectorCpuNs(), pid));
  io.err(result.reason === 'exited'
    ? `clrscope: process ${pid} exited during the recording.`
    : asyncFromHeap(plan.events)
      ? `clrscope: the recording of pid ${pid} ended; it keeps running. ${HEAP_ASYNC_STAYS_LOADED}`
      : `clrscope: detached from pid ${pid}; it keeps running.`);
  const root = namespacesOf(pid).root;
  await writeOutputs(plan, { recording: rec, state: result.stream.state }, spool, io, undefined, false, summed, root === '' ? undefined : root);
  return 0;
}

/** The runtime would not load the profiler but its diagnostics socket answered: the runtime's own sampler recorded. */
async function writeEventPipeRecording(plan: RecordPlan, pid: number, result: EventPipeAttachResult, io: RecordIo): Promise<number> {
  if (result.problem !== undefined) io.err(`clrscope: ${result.problem}`);
  const rec = result.recording;
  if (rec === undefined) throw new UserError(`Nothing was recorded from process ${pid}, so ${plan.output} was not written.`);
  io.err(formatSummary(rec, result.reason !== 'exited', undefined, collectorCpuNs(), pid));
  io.err(result.reason === 'exited'
    ? `clrscope: process ${pid} exited during the recording.`
    : `clrscope: stopped the EventPipe session in pid ${pid}; it keeps running.`);
  await writeOutputs(plan, { recording: rec, state: 'ended' }, undefined, io, undefined);
  await result.session.close();
  return 0;
}
