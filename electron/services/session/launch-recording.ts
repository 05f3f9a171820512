// Records a program from its first instruction: starts the collector, launches the command
// with the profiler in its environment, and ends on the program's exit, the duration or an
// interrupt. The program's stdio is its own; its exit code is reported back.

import { spawn, type ChildProcess } from 'node:child_process';
import { startCollector, type CollectedStream, type Collector } from '../collector/collector.js';
import { childEnvironment } from './profiler-env.js';
import { UserError } from './user-error.js';

export type StopReason = 'exited' | 'duration' | 'interrupted';

export interface LaunchRecordingOptions {
  command: string;
  args: readonly string[];
  intervalMs: number;
  wall: boolean;
  libraryPath: string;
  durationMs?: number;
  /** How long to wait for a runtime to connect before saying none did. */
  connectTimeoutMs?: number;
  /** Aborting stops the recording as Ctrl-C does. */
  signal?: AbortSignal;
  /** One-line messages for the user (stderr in the CLI). */
  notice?: (message: string) => void;
  /** Without it the program shares our stdin/stdout/stderr; with it, its output comes here. */
  output?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface LaunchRecordingResult {
  reason: StopReason;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** The launched process's stream, or the first one when the launched process was a host that started .NET elsewhere. */
  stream: CollectedStream | undefined;
  /** Streams of other .NET processes the program started (they inherit the profiler variables). */
  otherStreams: CollectedStream[];
}

const EXIT_GRACE_MS = 5000;
const STREAM_DRAIN_MS = 3000;

function waitForSpawn(child: ChildProcess, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') reject(new UserError(`Command not found: ${command}.`, 127));
      else if (err.code === 'EACCES') reject(new UserError(`Permission denied running ${command}.`, 126));
      else reject(new UserError(`Could not start ${command}: ${err.message}.`, 1));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Asks the program to stop as Ctrl-C would, then insists. */
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const sequence: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGKILL'];
  for (const sig of sequence) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(sig);
    const done = await Promise.race([exited.then(() => true), delay(EXIT_GRACE_MS).then(() => false)]);
    if (done) return;
  }
}

async function drainStreams(collector: Collector): Promise<void> {
  await Promise.race([Promise.all(collector.streams.map((s) => s.closed)), delay(STREAM_DRAIN_MS)]);
}

export async function recordLaunch(options: LaunchRecordingOptions): Promise<LaunchRecordingResult> {
  const notice = options.notice ?? (() => undefined);
  const collector = await startCollector();
  let child: ChildProcess;
  try {
    const env = childEnvironment(process.env, { socketPath: collector.socketPath, intervalMs: options.intervalMs, wall: options.wall, cpu: true }, options.libraryPath);
    const output = options.output;
    child = spawn(options.command, [...options.args], { stdio: output === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'], env });
    if (output !== undefined) {
      child.stdout?.on('data', (d: Buffer) => output('stdout', d));
      child.stderr?.on('data', (d: Buffer) => output('stderr', d));
    }
    await waitForSpawn(child, options.command);
  } catch (err) {
    await collector.close();
    throw err;
  }

  // 'close' rather than 'exit': with piped output, the last bytes have arrived by then.
  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, sig) => resolve({ code, sig }));
  });
  let reason: StopReason = 'exited';
  let stopRequested: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => { stopRequested = resolve; });
  const timers: NodeJS.Timeout[] = [];
  if (options.durationMs !== undefined) {
    timers.push(setTimeout(() => { reason = 'duration'; stopRequested?.(); }, options.durationMs));
  }
  const onAbort = (): void => { reason = 'interrupted'; stopRequested?.(); };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const connectTimeoutMs = options.connectTimeoutMs ?? (Number(process.env.CLRSCOPE_CONNECT_TIMEOUT_MS) || 10000);
  timers.push(setTimeout(() => {
    if (collector.streams.length === 0) {
      notice(`No .NET runtime has connected after ${Math.round(connectTimeoutMs / 1000)} s: ${options.command} does not look like a .NET program (or it disabled profilers with DOTNET_EnableDiagnostics=0); still waiting for it to exit.`);
    }
  }, connectTimeoutMs));

  const first = await Promise.race([exited.then(() => 'exited' as const), stopped.then(() => 'stop' as const)]);
  for (const t of timers) clearTimeout(t);
  options.signal?.removeEventListener('abort', onAbort);
  if (first === 'stop') {
    // End the recording at the stop itself, then let the program go.
    await collector.close();
    await stopChild(child, exited);
  }
  const exit = await exited;
  await drainStreams(collector);
  await collector.close();

  const streams = [...collector.streams];
  const own = streams.find((s) => s.pid === child.pid) ?? streams.find((s) => s.recording.meta !== undefined);
  return {
    reason,
    exitCode: exit.code,
    exitSignal: exit.sig,
    stream: own,
    otherStreams: streams.filter((s) => s !== own && s.recording.meta !== undefined),
  };
}
