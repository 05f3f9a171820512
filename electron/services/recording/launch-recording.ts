// Records a program from its first instruction: launches it under the profiler and ends on the
// program's exit, the duration or an interrupt, keeping the launched process's stream.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import { launchProfiled } from './profiled-launch.js';
import { ProcessBook } from './process-tree.js';

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
  /** Raw bytes of each recorded stream as they arrive (the spool). */
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
  /** The launched process's stream, or the first one when the launched process was a host that started .NET elsewhere. */
  stream: CollectedStream | undefined;
  /** A stream of another .NET process the program started, recorded because it connected first (they inherit the profiler variables). */
  otherStreams: CollectedStream[];
  /** Pids of further .NET processes the program started: they connected and were hung up on, not recorded. */
  refusedPids: number[];
  /** What each connected process was (recorded or refused), read while it ran. */
  processes: ProcessBook;
}

export function connectTimeoutMs(explicit?: number): number {
  return explicit ?? (Number(process.env.CLRSCOPE_CONNECT_TIMEOUT_MS) || 10000);
}

export async function recordLaunch(options: LaunchRecordingOptions): Promise<LaunchRecordingResult> {
  const notice = options.notice ?? (() => undefined);
  const refusedPids: number[] = [];
  const processes = new ProcessBook();
  const launch = await launchProfiled({
    ...options,
    cpu: true,
    onStream: (stream) => { if (stream.pid !== undefined) processes.note(stream.pid); },
    onRefused: (pid) => {
      if (pid === undefined) return;
      refusedPids.push(pid);
      processes.note(pid);
    },
  });
  const { collector } = launch;
  options.onLaunched?.(launch.pid);

  let reason: StopReason = 'exited';
  let stopRequested: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => { stopRequested = resolve; });
  const timers: NodeJS.Timeout[] = [];
  if (options.durationMs !== undefined) {
    timers.push(setTimeout(() => { reason = 'duration'; stopRequested?.(); }, options.durationMs));
  }
  const onAbort = (): void => { reason = 'interrupted'; stopRequested?.(); };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timeout = connectTimeoutMs(options.connectTimeoutMs);
  timers.push(setTimeout(() => {
    if (collector.streams.length === 0) {
      notice(`No .NET runtime has connected after ${Math.round(timeout / 1000)} s: ${options.command} does not look like a .NET program (or it disabled profilers with DOTNET_EnableDiagnostics=0); still waiting for it to exit.`);
    }
  }, timeout));

  const first = await Promise.race([launch.exited.then(() => 'exited' as const), stopped.then(() => 'stop' as const)]);
  for (const t of timers) clearTimeout(t);
  options.signal?.removeEventListener('abort', onAbort);
  if (first === 'stop') {
    // End the recording at the stop itself, then let the program go.
    await collector.close();
    await launch.stopProgram();
  }
  const exit = await launch.exited;
  await launch.finish();

  const streams = [...collector.streams];
  const own = streams.find((s) => s.pid === launch.pid) ?? streams.find((s) => s.recording.meta !== undefined);
  return {
    reason,
    exitCode: exit.code,
    exitSignal: exit.signal,
    stream: own,
    otherStreams: streams.filter((s) => s !== own && s.recording.meta !== undefined),
    refusedPids,
    processes,
  };
}
