// Records a real .NET target through the same service the CLI uses, keeping the Recording
// in memory so tests can look at every sample, thread and stack.

import { recordLaunch, type LaunchRecordingResult } from '../../../electron/services/recording/launch-recording.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { frameLabel } from '../../../structs/profile/frame-label.js';
import { PROFILER } from './paths.js';

export interface TargetRun {
  result: LaunchRecordingResult;
  rec: Recording;
  stdout: string;
  stderr: string;
}

export interface RecordOptions {
  intervalMs?: number;
  durationMs?: number;
  wall?: boolean;
  /** The program's whole environment before the profiler's variables (default: ours). */
  env?: NodeJS.ProcessEnv;
  /** Another build of the profiler (default: native-profiler/build/libclrscope.so). */
  libraryPath?: string;
}

export interface ProgramRun {
  result: LaunchRecordingResult;
  stdout: string;
  stderr: string;
}

/** Records COMMAND ARGS from its start; the stream may be missing (a program that died early). */
export async function recordProgram(command: string, args: readonly string[], options: RecordOptions = {}): Promise<ProgramRun> {
  let stdout = '';
  let stderr = '';
  const result = await recordLaunch({
    command,
    args,
    intervalMs: options.intervalMs ?? 10,
    wall: options.wall ?? true,
    libraryPath: options.libraryPath ?? PROFILER,
    durationMs: options.durationMs,
    env: options.env,
    output: (which, chunk) => {
      if (which === 'stdout') stdout += chunk.toString();
      else stderr += chunk.toString();
    },
  });
  return { result, stdout, stderr };
}

export async function recordTarget(dll: string, args: readonly string[], options: RecordOptions = {}): Promise<TargetRun> {
  const run = await recordProgram('dotnet', [dll, ...args], options);
  if (run.result.stream === undefined) throw new Error(`no stream from the target; stderr:\n${run.stderr}`);
  return { ...run, rec: run.result.stream.recording };
}

/** The frame names of a stack, leaf first. */
export function stackNames(rec: Recording, stackId: number): string[] {
  return Array.from(rec.stackFrames(stackId), (id) => {
    const fn = rec.functionInfo(id);
    return fn === undefined ? `?${id}` : frameLabel(fn);
  });
}

export interface SampleView {
  thread: string;
  threadId: number;
  frames: string[];
  cpuNs: number;
  wallNs: number;
  flags: number;
}

/** Every sample with its thread name and frame names (tests only: allocates per sample). */
export function samplesOf(rec: Recording): SampleView[] {
  const names = new Map<number, string[]>();
  const out: SampleView[] = [];
  rec.forEachSample((_i, _mono, threadId, stackId, cpuNs, wallNs, flags) => {
    let frames = names.get(stackId);
    if (frames === undefined) {
      frames = stackNames(rec, stackId);
      names.set(stackId, frames);
    }
    out.push({ thread: rec.thread(threadId)?.name ?? '', threadId, frames, cpuNs, wallNs, flags });
  });
  return out;
}
