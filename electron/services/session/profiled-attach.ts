// Loads clrscope's profiler into a .NET process that is already running, through the runtime's
// diagnostics IPC (AttachProfiler), with a collector listening for its stream. The profiler
// cannot see our environment, so its settings travel as the attach request's client data.
// Closing the collector ends the recording: the profiler sees its reader gone and detaches,
// leaving the process as it was.

import { startCollector, type ChunkListener, type CollectedStream, type Collector } from '../collector/collector.js';
import { attachProfiler } from '../diagnostics/client.js';
import { delay } from './profiled-launch.js';
import { eventClientData, PROFILER_CLSID, type EventSwitches } from './profiler-env.js';
import { UserError } from './user-error.js';

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
  /** Raw bytes of the stream as they arrive (the spool). */
  onChunk?: ChunkListener;
}

/**
 * A collector for one attached process: only its profiler's first connection is recorded.
 * `keepSamples` false: its recording keeps no samples (the caller spools them).
 */
export function attachCollector(pid: number, onChunk?: ChunkListener, keepSamples = true): Promise<Collector> {
  return startCollector({ onChunk, accept: (helloPid, accepted) => helloPid === pid && accepted.length === 0, keepSamples });
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

export async function attachProfiled(options: ProfiledAttachOptions): Promise<ProfiledAttach> {
  const { pid } = options;
  const collector = await attachCollector(pid, options.onChunk);
  try {
    await attachProfiler(pid, {
      clsid: PROFILER_CLSID,
      path: options.libraryPath,
      clientData: attachClientData(collector.socketPath, options.intervalMs, options.cpu, options.wall, collector.secret) +
        (options.events === undefined ? '' : eventClientData(options.events)),
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
