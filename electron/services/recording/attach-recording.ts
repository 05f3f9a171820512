// Records a process that was started without clrscope (`clrscope record --pid`): an attached
// session (start-session.ts, as the workstation's Attach makes), through clrscope's profiler or,
// when the runtime refuses it, an EventPipe session. Records until the duration ends, the user
// interrupts or the process exits, then lets the process go on running.

import type { CollectedStream } from '../collector/collector.js';
import type { EventSwitches } from '../profiler/profiler-env.js';
import { UserError } from '../errors/user-error.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { SessionStream } from '../spool/session-stream.js';
import type { FallbackSession } from './fallback-session.js';
import type { LiveSession } from './live-session.js';
import { processAlive } from './profiled-attach.js';
import { delay } from './profiled-launch.js';
import { followUntil } from './follow-until.js';
import { attachSession } from './start-session.js';

export interface AttachRecordingOptions {
  pid: number;
  intervalMs: number;
  wall: boolean;
  libraryPath: string;
  events?: EventSwitches;
  durationMs?: number;
  signal?: AbortSignal;
  /** Where the profiler's stream goes (a spool file); in memory by default. An EventPipe session's goes to memory. */
  stream?: SessionStream;
  /** False: the model keeps no samples (they are in `stream`). Default true. */
  keepSamples?: boolean;
  /** False: a refusal is the error it is (`--no-fallback`). Default true. */
  fallback?: boolean;
  /** The sentence that announces an EventPipe session instead, before it starts. */
  onFallback?: (notice: string) => void;
  /** How long the profiler may take to connect once loaded (default 10 s). */
  connectTimeoutMs?: number;
}

export type AttachRecordingResult = ProfilerAttachResult | EventPipeAttachResult;

export interface ProfilerAttachResult {
  kind: 'profiler';
  reason: 'duration' | 'interrupted' | 'exited';
  stream: CollectedStream;
  /** The session that recorded: read its recording back with read-back.ts. */
  session: LiveSession;
}

export interface EventPipeAttachResult {
  kind: 'eventpipe';
  /** 'ended': the runtime closed the session while the process lives on. */
  reason: 'duration' | 'interrupted' | 'exited' | 'ended';
  session: FallbackSession;
  recording: Recording | undefined;
  problem: string | undefined;
}

export async function recordAttach(options: AttachRecordingOptions): Promise<AttachRecordingResult> {
  const { pid } = options;
  let first = true;
  const started = await attachSession({
    newId: () => 'record',
    label: `pid ${pid}`,
    intervalMs: options.intervalMs,
    wall: options.wall,
    libraryPath: options.libraryPath,
    // The profiler's stream goes where the caller said; an EventPipe session's, the whole
    // recording written at its end, stays in memory (the model holds it whole anyway).
    newStream: async () => {
      const stream = first ? options.stream ?? SessionStream.inMemory() : SessionStream.inMemory();
      first = false;
      return stream;
    },
    emit: () => undefined,
    connectTimeoutMs: options.connectTimeoutMs ?? 10000,
    counters: false,
    keepSamples: options.keepSamples ?? true,
    pid,
    events: options.events,
    fallback: options.fallback,
    onFallback: options.onFallback,
  });
  const limits = { durationMs: options.durationMs, signal: options.signal };
  if (started.kind === 'eventpipe') {
    const session = started.session;
    let reason: EventPipeAttachResult['reason'] = await followUntil(session.ended, limits);
    await session.stop();
    if (reason === 'ended' && !processAlive(pid)) reason = 'exited';
    return { kind: 'eventpipe', reason, session, recording: session.recording, problem: session.problem };
  }
  const session = started.session;
  const connectBy = Date.now() + (options.connectTimeoutMs ?? 10000);
  while (session.collected === undefined && Date.now() < connectBy) await delay(20);
  const stream = session.collected;
  if (stream === undefined) {
    await session.shutdown();
    await session.stream.close();
    throw new UserError(`Process ${pid} loaded the profiler but it never connected: see CLRSCOPE_LOG for the profiler's own log.`);
  }
  const end = await followUntil(session.ended, limits);
  const reason = end === 'ended' ? 'exited' : end;
  // Closing the collector ends the recording: the profiler sees its reader gone and detaches.
  if (reason !== 'exited') await session.stop();
  await stream.closed;
  await session.ended;
  return { kind: 'profiler', reason, stream, session };
}
