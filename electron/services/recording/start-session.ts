// Starting the profiler, the one way every command does: a recording session for the CLI's
// `record` and the workstation (launch a program with the profiler in its environment, or attach
// the profiler to a running process through the diagnostics IPC and, when its runtime refuses
// the profiler but still answers, record through an EventPipe session instead), or the profiler
// without a recording for `counters` and `measure` (launchInstrumented, attachInstrumented), whose
// refusals attachOrFallback decides as it decides a recording's. Every session's followed stream
// goes to a SessionStream (a spool file as it arrives); the model in this process keeps no
// samples unless asked to.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import type { CountersSource } from '../counters/counters-source.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { asyncFromHeap, HEAP_ASYNC_STAYS_LOADED, type EventSwitches } from '../profiler/profiler-env.js';
import type { SessionStream } from '../spool/session-stream.js';
import { FallbackSession } from './fallback-session.js';
import { LiveSession, type SessionEmit } from './live-session.js';
import { attachCollector, attachProfiled, requestAttach, type ProfiledAttach, type ProfiledAttachOptions } from './profiled-attach.js';
import { launchProfiled, type ProfiledLaunch, type ProfiledLaunchOptions } from './profiled-launch.js';
import { attachOrFallback, fallbackFailedSentence, type AttachDecision } from './profiler-refusal.js';

interface SessionStartCommon {
  /** The new session's id, asked for when the session is made (a launch that fails makes none). */
  newId: () => string;
  label: string;
  intervalMs: number;
  wall: boolean;
  libraryPath: string;
  /** Where each session's stream goes; called once per session made (an attach that falls back makes two). */
  newStream: () => Promise<SessionStream>;
  emit: SessionEmit;
  connectTimeoutMs: number;
  countersIntervalMs?: number;
  openCounters?: (pid: number) => CountersSource | undefined;
  /** False: no counters are read. Default true. */
  counters?: boolean;
  /** True: the model keeps every sample too (tests that look at them); default false, they are in the stream. */
  keepSamples?: boolean;
  /** The session exists (before the profiler can connect): the workstation lists it from here on. */
  onSession?: (session: LiveSession | FallbackSession) => void;
  /** The session made first is gone again (the attach was refused). */
  onSessionDropped?: (session: LiveSession) => void;
}

export interface LaunchStart extends SessionStartCommon {
  command: string;
  args: readonly string[];
  /** The command as the user gave it, for messages. */
  commandText?: string;
  /** The program's environment before the profiler's variables (default: ours). */
  env?: NodeJS.ProcessEnv;
  /** More variables on top of the profiler's (e.g. CLRSCOPE_ASYNC). */
  extraEnv?: Record<string, string>;
  /** 'session': the program's output comes to the session (the workstation shows it); 'inherit': the program shares our stdio; or a callback of its own. */
  output: 'session' | 'inherit' | ((stream: 'stdout' | 'stderr', chunk: Buffer) => void);
  /** Record every .NET process the program starts, not only the first (`record --children`). */
  children?: boolean;
  /**
   * With children: the session's stream is every process's stream merged as it arrives (the
   * workstation: its views show one stream). Without it the session's stream is the first
   * process's, and the others reach onChunk (record spools each to a file of its own).
   */
  mergeChildren?: boolean;
  /** Each stream admitted, once its HELLO has arrived. */
  onStream?: (stream: CollectedStream) => void;
  /** A .NET process the program started connected and was not recorded. */
  onRefused?: (pid: number | undefined) => void;
  /** Chunks of the streams the session does not follow (children's spools). */
  onChunk?: ChunkListener;
}

export interface LaunchStarted {
  session: LiveSession;
  launch: ProfiledLaunch;
}

/** Launches the program and makes its session; UserError (one sentence) when the program cannot start. */
export async function launchSession(start: LaunchStart): Promise<LaunchStarted> {
  const stream = await start.newStream();
  let session: LiveSession | undefined;
  // The session is made in the same turn as the spawn, so no output should come before it;
  // should some, it is kept and passed on rather than lost.
  const early: ['stdout' | 'stderr', Buffer][] = [];
  let launch: ProfiledLaunch;
  try {
    launch = await launchProfiled({
      command: start.command,
      args: start.args,
      intervalMs: start.intervalMs,
      wall: start.wall,
      cpu: true,
      libraryPath: start.libraryPath,
      env: start.env,
      extraEnv: start.extraEnv,
      keepSamples: start.keepSamples === true,
      children: start.children,
      onStream: start.onStream,
      onRefused: start.onRefused,
      output: start.output === 'inherit' ? undefined
        : start.output === 'session' ? (which, chunk) => (session === undefined ? early.push([which, chunk]) : session.output(which, chunk))
          : start.output,
    });
  } catch (err) {
    // No session came of it: its spool file must not stay behind as a recording to recover.
    await stream.close();
    throw err;
  }
  const made = new LiveSession({
    ...common(start, stream),
    pid: launch.pid,
    attached: false,
    command: start.commandText ?? start.command,
    mergeProcesses: start.children === true && start.mergeChildren === true,
  });
  session = made;
  start.onSession?.(made);
  made.followLaunch(launch);
  const others = start.onChunk;
  // Heard after the session's own listener, which has decided by then whether it follows the stream.
  if (others !== undefined) launch.collector.onChunk((stream, chunk) => { if (stream !== made.collected) others(stream, chunk); });
  made.begin();
  for (const [which, chunk] of early) made.output(which, chunk);
  return { session: made, launch };
}

export interface AttachStart extends SessionStartCommon {
  pid: number;
  /** Event samples to record (default: the profiler's defaults). */
  events?: EventSwitches;
  /** Async call stacks (when `events` does not say). */
  async?: boolean;
  /** The counters are watched live (the workstation): System.Runtime's counters and the JIT and loader counts. */
  runtimeCounters?: boolean;
  /** False: a refusal is the error it is, with no EventPipe session instead (`record --no-fallback`). Default true. */
  fallback?: boolean;
  /** The sentence that announces an EventPipe session instead of the profiler, before it starts. */
  onFallback?: (notice: string) => void;
}

export type AttachStarted =
  | { kind: 'profiler'; session: LiveSession }
  | { kind: 'eventpipe'; session: FallbackSession; notice: string };

/**
 * Attaches the profiler to `pid` and makes its session; when the runtime refuses the profiler
 * but its diagnostics socket answers, an EventPipe session instead. A DiagnosticsError or
 * UserError (one sentence) when neither can record.
 */
export async function attachSession(start: AttachStart): Promise<AttachStarted> {
  const { pid } = start;
  const staysLoaded = asyncFromHeap(start.events) ? { staysLoaded: HEAP_ASYNC_STAYS_LOADED } : {};
  const session = new LiveSession({ ...common(start, await start.newStream()), pid, attached: true, ...staysLoaded });
  let collector: Awaited<ReturnType<typeof attachCollector>>;
  try {
    collector = await attachCollector(pid, (stream, chunk) => session.onChunk(stream, chunk), start.keepSamples === true);
  } catch (err) {
    await session.stream.close();
    throw err;
  }
  session.useCollector(collector);
  // Known before the attach returns, since the profiler may connect before the runtime replies.
  start.onSession?.(session);
  const decision = await attachOrFallback(pid, 'recording', () => requestAttach(pid, start.libraryPath, {
    socketPath: collector.socketPath, secret: collector.secret, intervalMs: start.intervalMs, wall: start.wall, events: start.events, async: start.async,
    runtimeCounters: start.runtimeCounters,
  }), {
    fallback: start.fallback,
    undo: async () => {
      start.onSessionDropped?.(session);
      await collector.close();
      await session.stream.close();
    },
  });
  if (decision.kind === 'eventpipe') {
    // Refused, but the runtime's diagnostics socket answers: record through EventPipe instead.
    const { reason, notice } = decision;
    start.onFallback?.(notice);
    const fallbackStream = await start.newStream();
    let fallback: FallbackSession;
    try {
      fallback = await FallbackSession.start({ id: session.id, pid, label: start.label, notice, stream: fallbackStream, emit: start.emit });
    } catch (startErr) {
      await fallbackStream.close();
      // One sentence that keeps why EventPipe was tried.
      if (startErr instanceof DiagnosticsError) {
        throw new DiagnosticsError(fallbackFailedSentence(reason, startErr), startErr.failure, startErr.pid, startErr.hresult);
      }
      throw startErr;
    }
    start.onSession?.(fallback);
    return { kind: 'eventpipe', session: fallback, notice };
  }
  session.begin();
  return { kind: 'profiler', session };
}

function common(start: SessionStartCommon, stream: SessionStream): Pick<ConstructorParameters<typeof LiveSession>[0], 'id' | 'label' | 'intervalMs' | 'emit' | 'stream' | 'connectTimeoutMs' | 'countersIntervalMs' | 'openCounters' | 'counters'> {
  return {
    id: start.newId(),
    label: start.label,
    intervalMs: start.intervalMs,
    emit: start.emit,
    stream,
    connectTimeoutMs: start.connectTimeoutMs,
    countersIntervalMs: start.countersIntervalMs,
    openCounters: start.openCounters,
    counters: start.counters,
  };
}

/**
 * `counters` and `measure`: a program launched with the profiler and no recording session (they
 * read the profiler's counters block, or talk to its measuring channel).
 */
export function launchInstrumented(options: ProfiledLaunchOptions): Promise<ProfiledLaunch> {
  return launchProfiled(options);
}

/**
 * `counters` and `measure`: the profiler attached to `options.pid` with no recording session. A
 * refusal is decided where a recording's is (attachOrFallback): for counters, the reason and
 * sentence that announce EventPipe's counters instead (the caller reads them; `fallback` false
 * for --no-fallback); for measuring, which has no such road, one sentence.
 */
export function attachInstrumented(options: ProfiledAttachOptions, use: 'measuring'): Promise<{ kind: 'profiler'; attached: ProfiledAttach }>;
export function attachInstrumented(options: ProfiledAttachOptions, use: 'counters', fallback?: boolean): Promise<AttachDecision<ProfiledAttach>>;
export function attachInstrumented(options: ProfiledAttachOptions, use: 'counters' | 'measuring', fallback = true): Promise<AttachDecision<ProfiledAttach>> {
  const attach = (): Promise<ProfiledAttach> => attachProfiled(options);
  return use === 'measuring' ? attachOrFallback(options.pid, 'measuring', attach) : attachOrFallback(options.pid, 'counters', attach, { fallback });
}
