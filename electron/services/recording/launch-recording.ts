// Records a program from its first instruction (`clrscope record -- CMD`): a launched session
// (start-session.ts, as the workstation's Launch makes) that ends on the program's exit, the
// duration or an interrupt. The followed stream goes to the session's stream (a spool file);
// the model here keeps no samples unless asked to, and the recording with every sample is read
// back from the stream once it has ended.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import { SessionStream } from '../spool/session-stream.js';
import type { LiveSession } from './live-session.js';
import { ProcessBook } from './process-tree.js';
import { connectTimeoutMs } from './profiled-launch.js';
import { followUntil } from './follow-until.js';
import { launchSession } from './start-session.js';

export type StopReason = 'exited' | 'duration' | 'interrupted';

export interface LaunchRecordingOptions {
  command: string;
  args: readonly string[];
  intervalMs: number;
  wall: boolean;
  libraryPath: string;
  /** The program's environment before the profiler's variables are added (default: ours). */
  env?: NodeJS.ProcessEnv;
  durationMs?: number;
  /** How long to wait for a runtime to connect before saying none did. */
  connectTimeoutMs?: number;
  /** Aborting stops the recording as Ctrl-C does. */
  signal?: AbortSignal;
  /** One-line messages for the user (stderr in the CLI). */
  notice?: (message: string) => void;
  /** Without it the program shares our stdin/stdout/stderr; with it, its output comes here. */
  output?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Where the followed stream's bytes go (a spool file); in memory by default. */
  stream?: SessionStream;
  /** False: the models keep no samples (they are in `stream`; read them back with read-back.ts). Default true. */
  keepSamples?: boolean;
  /** Chunks of the streams other than the followed one (the children's spools). */
  onChunk?: ChunkListener;
  /** Record every .NET process the program starts (`record --children`), not only the launched one. */
  children?: boolean;
  /** The launched process's pid, as soon as it is known (before its runtime can connect). */
  onLaunched?: (pid: number) => void;
}

export interface LaunchRecordingResult {
  reason: StopReason;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** The followed stream: the launched process's, or the first one when the launched process was a host that started .NET elsewhere. */
  stream: CollectedStream | undefined;
  /** Streams of other .NET processes the program started (with `children`, or one that connected while the followed one had not). */
  otherStreams: CollectedStream[];
  /** Pids of further .NET processes the program started: they connected and were hung up on, not recorded. */
  refusedPids: number[];
  /** What each connected process was (recorded or refused), read while it ran. */
  processes: ProcessBook;
  /** The session that recorded (its stream holds the followed stream's bytes; read-back.ts reads its recording). */
  session: LiveSession;
}

export async function recordLaunch(options: LaunchRecordingOptions): Promise<LaunchRecordingResult> {
  const notice = options.notice ?? (() => undefined);
  const refusedPids: number[] = [];
  const processes = new ProcessBook();
  const stream = options.stream ?? SessionStream.inMemory();
  const timeout = connectTimeoutMs(options.connectTimeoutMs);
  const { session, launch } = await launchSession({
    newId: () => 'record',
    label: options.command,
    intervalMs: options.intervalMs,
    wall: options.wall,
    libraryPath: options.libraryPath,
    newStream: async () => stream,
    // The caller hears what it needs through this function's result and notices.
    emit: () => undefined,
    connectTimeoutMs: timeout,
    counters: false,
    keepSamples: options.keepSamples ?? true,
    command: options.command,
    args: options.args,
    env: options.env,
    output: options.output ?? 'inherit',
    children: options.children,
    onStream: (s) => { if (s.pid !== undefined) processes.note(s.pid); },
    onRefused: (pid) => {
      if (pid === undefined) return;
      refusedPids.push(pid);
      processes.note(pid);
    },
    onChunk: options.onChunk,
  });
  const { collector } = launch;
  options.onLaunched?.(launch.pid);

  const noRuntime = setTimeout(() => {
    if (collector.streams.length === 0) {
      notice(`No .NET runtime has connected after ${Math.round(timeout / 1000)} s: ${options.command} does not look like a .NET program (or it disabled profilers with DOTNET_EnableDiagnostics=0); still waiting for it to exit.`);
    }
  }, timeout);
  const end = await followUntil(launch.exited, { durationMs: options.durationMs, signal: options.signal });
  clearTimeout(noRuntime);
  const reason: StopReason = end === 'ended' ? 'exited' : end;
  // A stop ends the recording where it is (the collector closes), then lets the program go.
  if (end !== 'ended') await session.stop();
  const exit = await launch.exited;
  await session.ended;

  const streams = [...collector.streams];
  const own = session.collected;
  return {
    reason,
    exitCode: exit.code,
    exitSignal: exit.signal,
    stream: own,
    otherStreams: streams.filter((s) => s !== own && s.recording.meta !== undefined),
    refusedPids,
    processes,
    session,
  };
}
