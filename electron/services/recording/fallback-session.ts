// An attached session recorded through an EventPipe session, because the runtime refused
// clrscope's profiler (profiler-refusal.ts). Counters come live from System.Runtime's
// EventCounters. The samples cannot: the runtime names the methods they point into only in its
// rundown, at the end, so the session's stream (the recording as a .clrscope stream, like a
// file session's) is written once the EventPipe session has stopped, by Stop, or because the
// process exited. Its CPU times are estimates from the start (SessionInfo.approximateCpu).

import type { CountersPoint, MeasureReply, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { UserError } from '../errors/user-error.js';
import { recordingFileChunks } from '../../../structs/formats/clrscope-file/save-recording.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { COUNTERS_SETTLE_MS, EventCountersValues } from '../counters/event-counters-values.js';
import { readThreadCount } from '../diagnostics/proc.js';
import { EventPipeSession, type EventPipeOutcome, type EventPipeSessionOptions } from './eventpipe-session.js';
import { processAlive } from './profiled-attach.js';
import { CountersSeries } from '../counters/counters-series.js';
import { SessionStream } from '../spool/session-stream.js';
import type { RecordingSession } from './recording-session.js';
import { SessionBase } from './session-base.js';

export interface FallbackSessionSetup {
  id: string;
  pid: number;
  label: string;
  /** The sentence that says why the profiler could not be used (profiler-refusal.ts). */
  notice: string;
  emit: (event: WorkstationEvent) => void;
  /** Where the session's stream goes (a spool file); in memory when absent. */
  stream?: SessionStream;
  /** Opens the EventPipe session (tests give their own); EventPipeSession.start by default. */
  openEventPipe?: (options: EventPipeSessionOptions) => Promise<FallbackEventPipe>;
}

/** What the session uses of its EventPipe session. */
export type FallbackEventPipe = Pick<EventPipeSession, 'ended' | 'stop' | 'abandon'>;

export class FallbackSession extends SessionBase implements RecordingSession {
  private readonly series = new CountersSeries();
  private readonly values = new EventCountersValues();
  private session!: FallbackEventPipe;
  private recordingValue: Recording | undefined;
  private countersTimer: NodeJS.Timeout | undefined;
  private finishing: Promise<void> | undefined;
  private stopRequested = false;
  private abandoned = false;
  private problemText: string | undefined;

  private constructor(private readonly setup: FallbackSessionSetup) {
    super({
      id: setup.id,
      pid: setup.pid,
      label: setup.label,
      state: 'recording',
      startedAtMs: Date.now(),
      // The runtime's sampler ticks about once a millisecond (more slowly on a busy machine).
      intervalMs: 1,
      attached: true,
      source: 'attach',
      approximateCpu: true,
      exitCode: null,
      message: `${setup.notice} The flame graph appears when the recording stops: the runtime names the methods only then.`,
    }, setup.stream ?? SessionStream.inMemory(), setup.emit);
  }

  /** Starts the EventPipe session; a DiagnosticsError (one sentence) when the runtime will not. */
  static async start(setup: FallbackSessionSetup): Promise<FallbackSession> {
    const s = new FallbackSession(setup);
    const open = setup.openEventPipe ?? ((options: EventPipeSessionOptions) => EventPipeSession.start(options));
    s.session = await open({ pid: setup.pid, samples: true, onCounter: (c) => s.onCounter(c) });
    // The process exiting ends the stream by itself (with the rundown): finish then too. finish()
    // never rejects, so nothing here can become an unhandled rejection that ends the main process.
    // `ended` (the runtime's stream is over) settles first, as attach-recording.ts follows it.
    void s.session.ended.then(() => {
      s.settle();
      return s.finish();
    });
    s.announce();
    return s;
  }

  get recording(): Recording | undefined {
    return this.recordingValue;
  }

  /** Once stopped: one sentence when something went wrong reading the session; what was recorded is kept regardless. */
  get problem(): string | undefined {
    return this.problemText;
  }

  /** The recording is held whole (it came whole: a file, or the runtime's rundown at the end). */
  async recordingWithSamples(): Promise<Recording | undefined> {
    return this.recordingValue;
  }

  countersHistory(): CountersPoint[] {
    return this.series.all();
  }

  async measure(): Promise<MeasureReply> {
    throw new UserError('This process is recorded through EventPipe, without clrscope\'s profiler, which measuring methods needs.');
  }

  async revertMeasure(): Promise<MeasureReply> {
    throw new UserError('This process is recorded through EventPipe: no method of it is measured.');
  }

  async stop(): Promise<SessionInfo> {
    this.stopRequested = true;
    await this.finish();
    return this.snapshot;
  }

  /**
   * Quitting must not wait for a rundown (up to RUNDOWN_TIMEOUT_MS) nor build a recording for
   * clients that are closing: without a stop under way the connection is dropped, and the
   * runtime ends its session by itself while the program carries on. A stop under way (Stop, or
   * the process exited) has its recording coming and is let finish.
   */
  async shutdown(): Promise<void> {
    if (this.finishing !== undefined) {
      await this.finishing;
      return;
    }
    this.abandoned = true;
    this.finishing = Promise.resolve();
    this.clearCountersTimer();
    this.session.abandon();
    this.info.state = 'stopped';
    this.info.message = 'The workstation shut down: the EventPipe session was dropped, so nothing was recorded.';
  }

  protected release(): void {
    this.recordingValue = undefined;
  }

  nothingToExport(): string {
    if (this.finishing === undefined) {
      return `Session ${this.id} has nothing to export yet: stop the recording first, since the runtime names the methods only when its EventPipe session ends.`;
    }
    if (this.info.state === 'recording') return `Session ${this.id} has nothing to export yet: its recording is being put together from the runtime's rundown.`;
    return `Session ${this.id} has nothing to export: nothing was recorded through its EventPipe session.`;
  }

  /** Counters of one interval arrive as one event each: a point is emitted once they stop coming for a while. */
  private onCounter(counter: Parameters<EventCountersValues['add']>[0]): void {
    if (this.abandoned) return;
    this.values.add(counter);
    if (this.countersTimer !== undefined) clearTimeout(this.countersTimer);
    this.countersTimer = setTimeout(() => {
      this.countersTimer = undefined;
      void this.emitCounters();
    }, COUNTERS_SETTLE_MS);
    this.countersTimer.unref();
  }

  private async emitCounters(): Promise<void> {
    if (!this.values.any) return;
    const point: CountersPoint = { timeMs: Date.now(), values: this.values.sections(await readThreadCount(this.setup.pid)) };
    this.series.add(point);
    this.setup.emit({ type: 'counters', sessionId: this.id, point });
  }

  private clearCountersTimer(): void {
    if (this.countersTimer !== undefined) clearTimeout(this.countersTimer);
    this.countersTimer = undefined;
  }

  /** Never rejects: a failure ends the session with its sentence instead. */
  private finish(): Promise<void> {
    this.finishing ??= this.stopAndPublish().catch((err: unknown) => this.fail(err));
    return this.finishing;
  }

  private async stopAndPublish(): Promise<void> {
    const outcome = await this.session.stop();
    this.clearCountersTimer();
    await this.emitCounters();
    await this.publish(outcome);
  }

  private fail(err: unknown): void {
    this.clearCountersTimer();
    const why = (err instanceof Error ? err.message : String(err)).trim().replace(/[.!?]$/, '');
    this.info.state = 'failed';
    this.info.message = `Finishing the EventPipe recording of process ${this.setup.pid} failed: ${why || 'for an unknown reason'}.`;
    this.announce();
  }

  private async publish(outcome: EventPipeOutcome): Promise<void> {
    const rec = outcome.recording;
    this.recordingValue = rec;
    this.problemText = outcome.problem;
    if (rec !== undefined) {
      // Counters reach pages through countersHistory; the stream carries the profile alone.
      for (const chunk of recordingFileChunks(rec, [])) {
        const stored = this.stream.append(chunk);
        this.setup.emit({ type: 'stream', sessionId: this.id, offset: stored.offset, chunk: stored.chunk });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.stream.end();
    const exited = !processAlive(this.setup.pid);
    const how = this.stopRequested && !exited
      ? 'Stopped. The EventPipe session ended; the program carries on.'
      : (exited ? 'The process exited.' : 'The runtime ended the EventPipe session.');
    const nothing = rec === undefined ? ' Nothing was recorded.' : '';
    this.info.state = rec === undefined && outcome.problem !== undefined ? 'failed' : 'stopped';
    this.info.message = [how + nothing, outcome.problem ?? ''].filter((s) => s !== '').join(' ');
    this.announce();
  }
}
