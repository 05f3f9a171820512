// Records a real .NET target through the same service the CLI uses, keeping the Recording
// in memory so tests can look at every sample, thread and stack.

import { recordLaunch, type LaunchRecordingResult } from '../../../electron/services/session/launch-recording.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { frameLabel } from '../../../structs/profile/frame-label.js';
import { PROFILER } from './paths.js';

export interface TargetRun {
  result: LaunchRecordingResult;
  rec: Recording;
  stdout: string;
  stderr: string;
}

export async function recordTarget(dll: string, args: readonly string[], options: { intervalMs?: number; durationMs?: number; wall?: boolean } = {}): Promise<TargetRun> {
  let stdout = '';
  let stderr = '';
  const result = await recordLaunch({
    command: 'dotnet',
    args: [dll, ...args],
    intervalMs: options.intervalMs ?? 10,
    wall: options.wall ?? true,
    libraryPath: PROFILER,
    durationMs: options.durationMs,
    output: (which, chunk) => {
      if (which === 'stdout') stdout += chunk.toString();
      else stderr += chunk.toString();
    },
  });
  if (result.stream === undefined) throw new Error(`no stream from the target; stderr:\n${stderr}`);
  return { result, rec: result.stream.recording, stdout, stderr };
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
