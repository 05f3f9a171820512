// Starts a program with clrscope's profiler loaded and a collector listening for it: the part
// every launching command shares (record, counters, the workstation's Launch...). The program's
// stdio is its own unless an output callback takes it.

import { spawn, type ChildProcess } from 'node:child_process';
import { startCollector, type ChunkListener, type CollectedStream, type Collector } from '../collector/collector.js';
import { childEnvironment } from '../profiler/profiler-env.js';
import { launchPerfMap } from '../profiler/perf-map.js';
import { UserError } from '../errors/user-error.js';

export interface ProfiledLaunchOptions {
  command: string;
  args: readonly string[];
  intervalMs: number;
  wall: boolean;
  cpu: boolean;
  libraryPath: string;
  /** The program's environment before the profiler's variables are added (default: ours). */
  env?: NodeJS.ProcessEnv;
  /** Without it the program shares our stdin/stdout/stderr; with it, its output comes here. */
  output?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Raw bytes of each recorded stream as they arrive (the spool). */
  onChunk?: ChunkListener;
  /** Record every .NET process the program starts (they inherit the profiler's variables), not only the launched one. */
  children?: boolean;
  /** Each recorded stream, once its HELLO has arrived (its pid is known then). */
  onStream?: (stream: CollectedStream) => void;
  /** A .NET process the program started connected too and was not recorded. */
  onRefused?: (pid: number | undefined) => void;
  /** More variables for the program (e.g. CLRSCOPE_MEASURE), on top of the profiler's own. */
  extraEnv?: Record<string, string>;
  /** False: the streams' recordings keep no samples (the caller spools them; CollectorOptions.keepSamples). Default true. */
  keepSamples?: boolean;
}

export interface ProgramExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ProfiledLaunch {
  readonly pid: number;
  readonly collector: Collector;
  /** Resolves when the program has exited and its output pipes are closed. */
  readonly exited: Promise<ProgramExit>;
  /** Asks the program to stop as Ctrl-C would (SIGINT), then insists (SIGTERM, SIGKILL). */
  stopProgram(): Promise<void>;
  /** After the program exited: waits briefly for its streams to end, then closes the collector. */
  finish(): Promise<void>;
}

const EXIT_GRACE_MS = 5000;
/** Processes recorded at once with `children` (a build starts a few dozen .NET processes at most). */
export const MAX_CHILD_STREAMS = 64;
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

/** How long a session waits for a runtime to connect before saying none did (CLRSCOPE_CONNECT_TIMEOUT_MS, default 10 s). */
export function connectTimeoutMs(explicit?: number): number {
  return explicit ?? (Number(process.env.CLRSCOPE_CONNECT_TIMEOUT_MS) || 10000);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export async function launchProfiled(options: ProfiledLaunchOptions): Promise<ProfiledLaunch> {
  let childPid: number | undefined;
  // The launched process is recorded; so is the first to connect when it is another one (a
  // script or a host started the .NET program). Every other .NET process the program starts
  // inherits the profiler and is hung up on: it would otherwise cost memory nobody sees.
  // With children, every one is recorded, up to a bound that keeps a runaway tree from filling memory.
  const collector = await startCollector({
    onChunk: options.onChunk,
    onStream: options.onStream,
    accept: options.children === true
      ? (pid, accepted) => pid === childPid || accepted.length < MAX_CHILD_STREAMS
      : (pid, accepted) => pid === childPid || accepted.length === 0,
    onRefused: options.onRefused,
    keepSamples: options.keepSamples,
  });
  let child: ChildProcess;
  // Stubs are named for stacks; a session without samples (counters, measure) pays nothing for it.
  const perfMap = options.cpu || options.wall ? launchPerfMap(options.env ?? process.env) : { env: {}, cleanup: () => {} };
  try {
    const env = { ...childEnvironment(options.env ?? process.env, { socketPath: collector.socketPath, secret: collector.secret, intervalMs: options.intervalMs, wall: options.wall, cpu: options.cpu }, options.libraryPath), ...perfMap.env, ...options.extraEnv };
    const output = options.output;
    child = spawn(options.command, [...options.args], { stdio: output === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'], env });
    childPid = child.pid;
    if (output !== undefined) {
      child.stdout?.on('data', (d: Buffer) => output('stdout', d));
      child.stderr?.on('data', (d: Buffer) => output('stderr', d));
    }
    await waitForSpawn(child, options.command);
  } catch (err) {
    perfMap.cleanup();
    await collector.close();
    throw err;
  }
  // 'close' rather than 'exit': with piped output, the last bytes have arrived by then.
  const exited = new Promise<ProgramExit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const pid = child.pid ?? 0;
  return {
    pid,
    collector,
    exited,
    async stopProgram() {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill(sig);
        if (await Promise.race([exited.then(() => true), delay(EXIT_GRACE_MS).then(() => false)])) return;
      }
    },
    async finish() {
      await Promise.race([Promise.all(collector.streams.map((s) => s.closed)), delay(STREAM_DRAIN_MS)]);
      await collector.close();
      perfMap.cleanup();
    },
  };
}
