// Recording through an EventPipe session instead of clrscope's profiler, for processes whose
// runtime will not load it (another profiler is already there). The runtime's own sample
// profiler gives stacks of every managed thread at each of its ticks, the runtime provider the
// GC suspensions and the code ranges of methods compiled meanwhile, the rundown at the end the
// rest of the method names, and System.Runtime its EventCounters. The stream is read as it
// arrives (NettraceReader), so counters come live and nothing is held but compact tables.

import { EventLevel, EventPipeFormat, type EventPipeProviderConfig } from '../../../structs/diagnostics/protocol.js';
import { NettraceReader, type EventCounterValue } from '../../../structs/formats/nettrace/index.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { HelloFlags } from '../../../structs/wire/records.js';
import { DiagnosticsError } from '../diagnostics/diagnostics-error.js';
import { startEventPipeStream, type EventPipeStream, type StreamEnd } from '../diagnostics/eventpipe-stream.js';
import { delay } from './profiled-launch.js';
import { clause } from '../../../structs/text/clause.js';

/** HELLO's profiler version of a recording made this way. */
export const EVENTPIPE_PROFILER_VERSION = 'EventPipe SampleProfiler (runtime, live session)';
/** How long the runtime may take, after StopTracing, to write its rundown and close the stream. */
export const RUNDOWN_TIMEOUT_MS = 20000;

/** Microsoft-Windows-DotNETRuntime keywords: GC (suspensions, GCStart), Loader (modules), JIT (method code ranges). */
const RUNTIME_KEYWORDS = 0x1n | 0x8n | 0x10n;

/**
 * The session's providers. Verbose for the runtime provider because MethodLoadVerbose, which
 * names code compiled during the session (and unloaded before the rundown could), is a verbose
 * event; GC at verbose adds an allocation tick per ~100 KB, which is affordable.
 */
export function sessionProviders(samples: boolean, counterIntervalSec: number): EventPipeProviderConfig[] {
  // Whole seconds: the runtime parses the interval with the target's culture, where "0.5" may not be a half.
  const counters: EventPipeProviderConfig = {
    name: 'System.Runtime', keywords: 0xffffffffn, level: EventLevel.Informational, filterData: `EventCounterIntervalSec=${counterIntervalSec}`,
  };
  if (!samples) return [counters];
  return [
    { name: 'Microsoft-DotNETCore-SampleProfiler', keywords: 0n, level: EventLevel.Informational },
    { name: 'Microsoft-Windows-DotNETRuntime', keywords: RUNTIME_KEYWORDS, level: EventLevel.Verbose },
    counters,
  ];
}

export interface EventPipeSessionOptions {
  pid: number;
  /** Stacks, GC pauses and method names; false for EventCounters only. */
  samples: boolean;
  /** EventCounters interval, whole seconds (default 1). */
  counterIntervalSec?: number;
  /** Each counter value as it arrives. */
  onCounter?: (counter: EventCounterValue) => void;
}

export interface EventPipeOutcome {
  /** What was recorded (sampling sessions); undefined for counters-only sessions, or when nothing could be read. */
  recording: Recording | undefined;
  /** One sentence when something went wrong; what was recorded is kept regardless. */
  problem: string | undefined;
}

export class EventPipeSession {
  private readonly reader: NettraceReader;
  private stream!: EventPipeStream;
  private readError: string | undefined;
  private rundownMissed = false;
  private stopping: Promise<EventPipeOutcome> | undefined;

  private constructor(private readonly options: EventPipeSessionOptions) {
    this.reader = new NettraceReader({
      onEventCounter: options.onCounter,
      sampleValues: 'gaps',
      profilerVersion: EVENTPIPE_PROFILER_VERSION,
      addFlags: HelloFlags.Attached | HelloFlags.ApproximateCpu,
      dropSamplerSuspensions: true,
      eventSamples: false,
    });
  }

  /** Starts the session; a DiagnosticsError (one sentence) when the runtime will not. */
  static async start(options: EventPipeSessionOptions): Promise<EventPipeSession> {
    const session = new EventPipeSession(options);
    session.stream = await startEventPipeStream(options.pid, {
      circularBufferMB: options.samples ? 256 : 8,
      format: EventPipeFormat.NetTrace,
      requestRundown: options.samples,
      providers: sessionProviders(options.samples, options.counterIntervalSec ?? 1),
    }, { onData: (chunk) => session.push(chunk) });
    return session;
  }

  get pid(): number {
    return this.options.pid;
  }

  /** True once the runtime closed the stream (stopped, or the process exited) or the connection broke. */
  get isEnded(): boolean {
    return this.stream.isEnded;
  }

  get ended(): Promise<StreamEnd> {
    return this.stream.ended;
  }

  private push(chunk: Uint8Array): void {
    try {
      this.reader.push(chunk);
    } catch (err) {
      // Thrown on: the connection is dropped, which ends the session in the runtime too.
      this.readError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  /**
   * Stops the session (StopTracing), waits for the rundown and the end of the stream, and builds
   * the recording from what arrived. Safe to call more than once, and after the stream ended.
   */
  stop(): Promise<EventPipeOutcome> {
    this.stopping ??= this.stopAndRead();
    return this.stopping;
  }

  /** Drops the connection without a stop (the runtime ends the session on its own). */
  abandon(): void {
    this.stream.close();
  }

  private async stopAndRead(): Promise<EventPipeOutcome> {
    if (!this.stream.isEnded) {
      try {
        await this.stream.stop();
      } catch (err) {
        // The process exited meanwhile: its runtime ends the stream itself.
        if (!(err instanceof DiagnosticsError)) throw err;
      }
      const end = await Promise.race([this.stream.ended, delay(RUNDOWN_TIMEOUT_MS).then(() => undefined)]);
      if (end === undefined) {
        this.rundownMissed = true;
        this.stream.close();
      }
    }
    const end = await this.stream.ended;
    return this.outcome(end);
  }

  private outcome(end: StreamEnd): EventPipeOutcome {
    const pid = this.options.pid;
    let problem: string | undefined;
    if (this.readError !== undefined) problem = `The EventPipe stream of process ${pid} could not be read further: ${lowerFirst(this.readError)}`;
    else if (this.rundownMissed) problem = `Process ${pid} did not finish its rundown within ${RUNDOWN_TIMEOUT_MS / 1000} s, so methods compiled before the recording may show as [unknown].`;
    else if (end.how === 'broken') problem = `The connection to process ${pid} broke (${end.error ?? 'socket error'}); what arrived before is kept.`;
    if (!this.options.samples) return { recording: undefined, problem };
    try {
      return { recording: this.reader.finish({ partial: true }), problem };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return { recording: undefined, problem: problem ?? `Nothing usable arrived from process ${pid}'s EventPipe session: ${lowerFirst(why)}` };
    }
  }
}

function lowerFirst(s: string): string {
  const t = clause(s);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
