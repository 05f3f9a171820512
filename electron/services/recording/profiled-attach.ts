// Loads clrscope's profiler into a .NET process that is already running, through the runtime's
// diagnostics IPC (AttachProfiler), with a collector listening for its stream. The profiler
// cannot see our environment, so its settings travel as the attach request's client data.
// Closing the collector ends the recording: the profiler sees its reader gone and detaches,
// leaving the process as it was.

import { startCollector, type ChunkListener, type CollectedStream, type Collector } from '../collector/collector.js';
import { attachProfiler } from '../diagnostics/client.js';
import { delay } from './profiled-launch.js';
import { attachPerfMap, releasePerfMap } from '../profiler/perf-map.js';
import { eventClientData, PROFILER_CLSID, type EventSwitches } from '../profiler/profiler-env.js';
import { UserError } from '../errors/user-error.js';
import { collectorPlacement, placementError, targetPaths } from './container-attach.js';

export interface ProfiledAttachOptions {
  pid: number;
  intervalMs: number;
  wall: boolean;
  cpu: boolean;
  libraryPath: string;
  /** Event samples to record (default: the profiler's defaults, all on). */
  events?: EventSwitches;
  /** How long the profiler may take to connect once loaded. */
  connectTimeoutMs?: number;
  /** The counters are watched live: System.Runtime's counters and the JIT and loader counts (client data runtime_counters=1). */
  runtimeCounters?: boolean;
  /** Raw bytes of the stream as they arrive (the spool). */
  onChunk?: ChunkListener;
  /** False: the stream's recording keeps no samples (the caller spools them). Default true. */
  keepSamples?: boolean;
}

/**
 * A collector for one attached process: only its profiler's first connection is recorded.
 * `keepSamples` false: its recording keeps no samples (the caller spools them). For a process in
 * a container, the collector's socket is made where the process reaches it (container-attach.ts).
 */
export async function attachCollector(pid: number, onChunk?: ChunkListener, keepSamples = true): Promise<Collector> {
  const placement = await collectorPlacement(pid);
  try {
    // Once the profiler has detached, the runtime stops writing the perf map clrscope asked it for.
    return await startCollector({ onChunk, accept: (helloPid, accepted) => helloPid === pid && accepted.length === 0, keepSamples, ...placement, onClosed: () => releasePerfMap(pid) });
  } catch (err) {
    throw placementError(pid, placement.directoryIn, err);
  }
}

export interface ProfiledAttach {
  readonly pid: number;
  readonly collector: Collector;
  /** The attached profiler's stream (its HELLO has arrived). */
  readonly stream: CollectedStream;
  /** Whether the process is still alive. */
  alive(): boolean;
  /** Ends the recording; the profiler detaches. */
  detach(): Promise<void>;
}

/** The settings an attached profiler reads (core/profiler_config.h, parse_client_data); `secret` with a TCP collector. */
export function attachClientData(socketPath: string, intervalMs: number, cpu: boolean, wall: boolean, secret?: string): string {
  const secretLine = secret === undefined ? '' : `secret=${secret}\n`;
  return `socket=${socketPath}\n${secretLine}interval_us=${Math.round(intervalMs * 1000)}\ncpu=${cpu ? 1 : 0}\nwall=${wall ? 1 : 0}\n`;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface AttachSettings {
  socketPath: string;
  /** The collector's secret when it listens on loopback TCP. */
  secret?: string;
  intervalMs: number;
  wall: boolean;
  /** CPU samples (default true). */
  cpu?: boolean;
  /** Event samples to record; without them the profiler's defaults apply. */
  events?: EventSwitches;
  /** Async call stacks (client data async=1) when `events` does not say. */
  async?: boolean;
  /** The counters are watched live (client data runtime_counters=1; native-profiler/core/profiler_config.h). */
  runtimeCounters?: boolean;
}

/**
 * Asks the runtime of `pid` to load the profiler, streaming to `settings.socketPath`; a
 * DiagnosticsError (one sentence) when it will not. The one attach request of the CLI and the
 * workstation alike; the caller's collector is already listening, so no byte is missed.
 */
export async function requestAttach(pid: number, libraryPath: string, settings: AttachSettings): Promise<void> {
  const events = settings.events === undefined ? (settings.async === true ? 'async=1\n' : '') : eventClientData(settings.events);
  const counters = settings.runtimeCounters === true ? 'runtime_counters=1\n' : '';
  // In a container, the paths it sees (and a copy of the library inside it).
  const paths = await targetPaths(pid, settings.socketPath, libraryPath);
  const clientData = attachClientData(paths.socketPath, settings.intervalMs, settings.cpu ?? true, settings.wall, settings.secret) + events + counters + await attachPerfMap(pid);
  await attachProfiler(pid, { clsid: PROFILER_CLSID, path: paths.libraryPath, clientData });
}

export async function attachProfiled(options: ProfiledAttachOptions): Promise<ProfiledAttach> {
  const { pid } = options;
  const collector = await attachCollector(pid, options.onChunk, options.keepSamples ?? true);
  try {
    await requestAttach(pid, options.libraryPath, {
      socketPath: collector.socketPath, secret: collector.secret, intervalMs: options.intervalMs, cpu: options.cpu, wall: options.wall, events: options.events,
      runtimeCounters: options.runtimeCounters,
    });
  } catch (err) {
    // DiagnosticsError is already one sentence for the user.
    await collector.close();
    throw err;
  }
  const deadline = Date.now() + (options.connectTimeoutMs ?? 10000);
  let stream: CollectedStream | undefined;
  while (stream === undefined && Date.now() < deadline) {
    stream = collector.streams.find((s) => s.pid === pid);
    if (stream === undefined) await delay(20);
  }
  if (stream === undefined) {
    await collector.close();
    throw new UserError(`Process ${pid} loaded the profiler but it never connected: see CLRSCOPE_LOG for the profiler's own log.`);
  }
  const found = stream;
  return {
    pid,
    collector,
    stream: found,
    alive: () => processAlive(pid),
    async detach() {
      await collector.close();
      await found.closed;
    },
  };
}
