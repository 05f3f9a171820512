// An attached session recorded through an EventPipe session, because the runtime refused
// clrscope's profiler (session/profiler-refusal.ts). Counters come live from System.Runtime's
// EventCounters. The samples cannot: the runtime names the methods they point into only in its
// rundown, at the end, so the session's stream (the recording as a .clrscope stream, like a
// file session's) is written once the EventPipe session has stopped, by Stop, or because the
// process exited. Its CPU times are estimates from the start (SessionInfo.approximateCpu).

import type { CountersPoint, OutputHistory, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { recordingFileChunks } from '../../../structs/formats/clrscope-file/save-recording.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { COUNTERS_SETTLE_MS, EventCountersValues } from '../counters/event-counters-values.js';
import { readThreadCount } from '../diagnostics/proc.js';
import { EventPipeSession, type EventPipeOutcome } from '../session/eventpipe-session.js';
import { processAlive } from '../session/profiled-attach.js';
import { CountersSeries } from './counters-series.js';
import { noOutput } from './output-buffer.js';
import { StreamBytes } from './stream-bytes.js';
import type { WorkstationSession } from './workstation-session.js';

export interface FallbackSessionSetup {
  id: string;
  pid: number;
  label: string;
  /** The sentence that says why the profiler could not be used (profiler-refusal.ts). */
  notice: string;
  emit: (event: WorkstationEvent) => void;
}

export class FallbackSession implements WorkstationSession {
  readonly bytes = new StreamBytes();
  private readonly series = new CountersSeries();
  private readonly values = new EventCountersValues();
  private readonly info: SessionInfo;
  private session!: EventPipeSession;
  private recordingValue: Recording | undefined;
  private countersTimer: NodeJS.Timeout | undefined;
  private finishing: Promise<void> | undefined;
  private stopRequested = false;

  private constructor(private readonly setup: FallbackSessionSetup) {
    this.info = {
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
    };
  }

  /** Starts the EventPipe session; a DiagnosticsError (one sentence) when the runtime will not. */
  static async start(setup: FallbackSessionSetup): Promise<FallbackSession> {
    const s = new FallbackSession(setup);
    s.session = await EventPipeSession.start({ pid: setup.pid, samples: true, onCounter: (c) => s.onCounter(c) });
    // The process exiting ends the stream by itself (with the rundown): finish then too.
    void s.session.ended.then(() => s.finish());
    setup.emit({ type: 'session', session: s.snapshot });
    return s;
  }

  get id(): string {
    return this.setup.id;
  }

  get snapshot(): SessionInfo {
    return { ...this.info };
  }

  get recording(): Recording | undefined {
    return this.recordingValue;
  }

  countersHistory(): CountersPoint[] {
    return this.series.all();
  }

  /** An attached process's output is its own: clrscope never sees it. */
  outputHistory(): OutputHistory {
    return noOutput();
  }

  async stop(): Promise<SessionInfo> {
    this.stopRequested = true;
    await this.finish();
    return this.snapshot;
  }

  async shutdown(): Promise<void> {
    await this.stop();
  }

  /** Counters of one interval arrive as one event each: a point is emitted once they stop coming for a while. */
  private onCounter(counter: Parameters<EventCountersValues['add']>[0]): void {
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

  private finish(): Promise<void> {
    this.finishing ??= this.stopAndPublish();
    return this.finishing;
  }

  private async stopAndPublish(): Promise<void> {
    const outcome = await this.session.stop();
    if (this.countersTimer !== undefined) clearTimeout(this.countersTimer);
    this.countersTimer = undefined;
    await this.emitCounters();
    await this.publish(outcome);
  }

  private async publish(outcome: EventPipeOutcome): Promise<void> {
    const rec = outcome.recording;
    this.recordingValue = rec;
    if (rec !== undefined) {
      // Counters reach pages through countersHistory; the stream carries the profile alone.
      for (const chunk of recordingFileChunks(rec, [])) {
        const stored = this.bytes.append(chunk);
        this.setup.emit({ type: 'stream', sessionId: this.id, offset: stored.offset, chunk: stored.chunk });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const exited = !processAlive(this.setup.pid);
    const how = this.stopRequested && !exited
      ? 'Stopped. The EventPipe session ended; the program carries on.'
      : (exited ? 'The process exited.' : 'The runtime ended the EventPipe session.');
    const nothing = rec === undefined ? ' Nothing was recorded.' : '';
    this.info.state = rec === undefined && outcome.problem !== undefined ? 'failed' : 'stopped';
    this.info.message = [how + nothing, outcome.problem ?? ''].filter((s) => s !== '').join(' ');
    this.setup.emit({ type: 'session', session: this.snapshot });
  }
}
