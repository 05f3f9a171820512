// One recording session: a launched program or an attached process, its collector, the stream
// it follows (on disk: session-stream.ts), its counters, a launched program's output and its
// state. Every change of what SessionInfo says is announced once, through `emit`; the lifecycle
// it shares with the other sessions is session-base.ts's.

import { StringDecoder } from 'node:string_decoder';
import type { CountersPoint, MeasureReply, OutputHistory, OutputLine, OutputStream, SessionInfo } from '../../../structs/api/contract.js';
import { MeasureChannel } from '../measure/measure-channel.js';
import { UserError } from '../errors/user-error.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { CollectedStream, Collector } from '../collector/collector.js';
import type { CountersSource } from '../counters/counters-source.js';
import { processAlive } from './profiled-attach.js';
import type { ProfiledLaunch, ProgramExit } from './profiled-launch.js';
import { exitCodeOf, exitText } from './program-exit.js';
import { CountersPoller } from '../counters/counters-poller.js';
import { CountersSeries } from '../counters/counters-series.js';
import { OutputBuffer } from './output-buffer.js';
import { MergedStreams } from './merged-streams.js';
import { SessionStream } from '../spool/session-stream.js';
import { recordingFromSessionStream, summedFromSessionStream, type ReadBackProgress } from '../spool/stream-recording.js';
import { StackThreadSums } from '../../../structs/profile/aggregate.js';
import type { RecordingSession } from './recording-session.js';
import { SessionBase, type SessionEmit } from './session-base.js';
import { EndReason } from '../../../structs/wire/records.js';
import { connectionLostSentence } from '../../../structs/profile/stream-end.js';

export type { SessionEmit };

export interface LiveSessionSetup {
  id: string;
  label: string;
  pid: number;
  intervalMs: number;
  attached: boolean;
  emit: SessionEmit;
  countersIntervalMs?: number;
  /** Opens the process's counters block (tests); the poller's own by default. */
  openCounters?: (pid: number) => CountersSource | undefined;
  /** Seconds after which a session still waiting for a runtime says so. */
  connectTimeoutMs: number;
  /** The command the user launched, for messages. */
  command?: string;
  /** Where the followed stream's bytes go (a spool file); in memory when absent. */
  stream?: SessionStream;
  /** CPU times that are estimates from the start (see SessionInfo.approximateCpu); setApproximateCpu changes it later. */
  approximateCpu?: boolean;
  /** False: no counters are read (`clrscope record` shows none). Default true. */
  counters?: boolean;
  /**
   * A launch that records every .NET process the program starts: their streams are merged into
   * the session's one stream as they arrive (merged-streams.ts). Without it the session's stream
   * is the first process's own bytes.
   */
  mergeProcesses?: boolean;
  /** An attach whose profiler cannot detach (async stacks from the heap): what its stop says instead. */
  staysLoaded?: string;
}

export class LiveSession extends SessionBase implements RecordingSession {
  private readonly countersSeries = new CountersSeries();
  private collector: Collector | undefined;
  private launch: ProfiledLaunch | undefined;
  private followed: CollectedStream | undefined;
  private measureChannel: MeasureChannel | undefined;
  private followedClosed = false;
  /** With mergeProcesses: every process's stream into the session's one stream. */
  private readonly merged: MergedStreams | undefined;
  private mergedDone = false;
  /** Streams whose closing the merge has been told of (or will be). */
  private readonly mergedStreams = new Set<CollectedStream>();
  /** Sentences that stay with the session's message once said (a child's stream that could not be merged, processes left running). */
  private readonly notes: string[] = [];
  /** Chunks of streams whose HELLO has not been decoded yet (usually none: HELLO comes whole in the first chunk). */
  private readonly pending = new Map<CollectedStream, Uint8Array[]>();
  private readonly ignored = new Set<CollectedStream>();
  private exit: ProgramExit | undefined;
  /** The program exited and its collector is closed (launched), or the collector is closed (attached). */
  private finished = false;
  private stopRequested = false;
  private closed = false;
  private failure: string | undefined;
  private waitingNotice: string | null = null;
  private approximateCpu: boolean;
  private connectTimer: NodeJS.Timeout | undefined;
  private readonly counters: CountersPoller;
  private readonly outputDecoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private readonly outputLines = new OutputBuffer();

  constructor(private readonly setup: LiveSessionSetup) {
    super({
      id: setup.id,
      pid: setup.pid,
      label: setup.label,
      state: 'starting',
      startedAtMs: Date.now(),
      intervalMs: setup.intervalMs,
      attached: setup.attached,
      source: setup.attached ? 'attach' : 'launch',
      approximateCpu: setup.approximateCpu ?? false,
      exitCode: null,
      message: null,
    }, setup.stream ?? SessionStream.inMemory(), setup.emit);
    this.approximateCpu = setup.approximateCpu ?? false;
    this.merged = setup.mergeProcesses === true ? new MergedStreams((sentence) => this.note(sentence)) : undefined;
    this.counters = new CountersPoller(setup.pid, {
      intervalMs: setup.countersIntervalMs,
      open: setup.openCounters,
      alive: () => this.processAlive(),
      emit: (point) => {
        this.countersSeries.add(point);
        setup.emit({ type: 'counters', sessionId: this.id, point });
      },
    });
  }

  /** The followed stream as the collector holds it (its state, error, and how it ended), once a runtime connected. */
  get collected(): CollectedStream | undefined {
    return this.followed;
  }

  /**
   * The model of the session's stream, once a runtime connected: the followed stream's, or with
   * mergeProcesses the merged one's. No samples (the collector keeps none for the workstation).
   */
  get recording(): Recording | undefined {
    if (this.followed === undefined) return undefined;
    return this.merged?.model ?? this.followed.recording;
  }

  /** Every sample, read back from the stream's file: the model holds none. */
  async recordingWithSamples(progress?: ReadBackProgress): Promise<Recording | undefined> {
    const model = this.recording;
    if (model === undefined) return undefined;
    return model.keepsSamples ? model : recordingFromSessionStream(this.stream, model, progress);
  }

  /**
   * The recording with its samples summed per stack and thread instead of kept (a pprof export
   * of a long session: memory for the sums, not for every sample), or undefined before a runtime connected.
   */
  async recordingSummed(progress?: ReadBackProgress): Promise<{ recording: Recording; sums: StackThreadSums } | undefined> {
    const model = this.recording;
    if (model === undefined) return undefined;
    if (!model.keepsSamples) return summedFromSessionStream(this.stream, model, progress);
    const sums = new StackThreadSums();
    sums.add(model.sampleColumns());
    return { recording: model, sums };
  }

  nothingToExport(): string {
    return `Session ${this.id} has nothing to export: no .NET runtime has connected to it.`;
  }

  /** Every counters point read so far (bounded: see CountersSeries). */
  countersHistory(): CountersPoint[] {
    return this.countersSeries.all();
  }

  /** What is kept of a launched program's output (bounded: see OutputBuffer); nothing for an attached process. */
  override outputHistory(): OutputHistory {
    return this.outputLines.history();
  }

  /** Measures methods of the followed process exactly (the profiler's control channel). */
  async measure(pattern: string): Promise<MeasureReply> {
    const reply = await this.liveChannel().measure(pattern);
    return { ok: reply.status === 0, matched: reply.matched, message: reply.message };
  }

  async revertMeasure(measureId: number): Promise<MeasureReply> {
    const reply = await this.liveChannel().revert(measureId);
    return { ok: reply.status === 0, matched: reply.matched, message: reply.message };
  }

  private liveChannel(): MeasureChannel {
    const channel = this.measureChannel;
    if (channel === undefined) throw new UserError('No .NET runtime has connected to this session yet, so there is nothing to measure.');
    if (channel.stream.state !== 'open') throw new UserError('This session\'s process is no longer connected, so its methods cannot be measured.');
    if (!channel.ready) throw new UserError('This session\'s profiler does not take measuring commands (it is older than measuring).');
    return channel;
  }

  /** The session's CPU times turned out to be estimates (or measured after all); announced once. */
  setApproximateCpu(approximate: boolean): void {
    this.approximateCpu = approximate;
    this.update();
  }

  /** Announces the new session and starts waiting for its runtime. */
  begin(): void {
    this.announce();
    if (this.setup.counters !== false) this.counters.start();
    this.connectTimer = setTimeout(() => {
      if (this.followed !== undefined || this.finished) return;
      const seconds = Math.round(this.setup.connectTimeoutMs / 1000);
      this.waitingNotice = this.setup.attached
        ? `The profiler has not connected after ${seconds} s; still waiting.`
        : `No .NET runtime has connected after ${seconds} s: ${this.setup.command ?? 'the program'} does not look like a .NET program (or it disabled profilers with DOTNET_EnableDiagnostics=0); still waiting.`;
      this.update();
    }, this.setup.connectTimeoutMs);
    this.connectTimer.unref();
  }

  /** The program's output, as lines, to every client. */
  output(stream: OutputStream, chunk: Buffer): void {
    const text = this.outputDecoders[stream].write(chunk);
    // Sent even when no line completed: the unfinished one grew (a prompt, progress dots).
    if (text !== '') this.emitOutput(this.outputLines.write(stream, text));
  }

  private emitOutput(lines: OutputLine[]): void {
    this.setup.emit({ type: 'output', sessionId: this.id, lines, partial: this.outputLines.partial });
  }

  /** A launched program: follows its collector and waits for its exit. */
  followLaunch(launch: ProfiledLaunch): void {
    this.launch = launch;
    this.useCollector(launch.collector);
    launch.collector.onChunk((stream, chunk) => this.onChunk(stream, chunk));
    void launch.exited.then(async (exit) => {
      this.exit = exit;
      this.info.exitCode = exitCodeOf(exit);
      for (const which of ['stdout', 'stderr'] as const) {
        const lines = [...this.outputLines.write(which, this.outputDecoders[which].end()), ...this.outputLines.end(which)];
        if (lines.length > 0) this.emitOutput(lines);
      }
      this.counters.finish();
      this.update();
      await launch.finish();
      // Every stream has closed with the collector: the merged stream ends here.
      this.finishMerged();
      this.finished = true;
      this.update();
      this.settle();
    });
  }

  /** An attached process: its dedicated collector (the caller routes its chunks to onChunk). */
  useCollector(collector: Collector): void {
    this.collector = collector;
  }

  onChunk(stream: CollectedStream, chunk: Uint8Array): void {
    if (this.ignored.has(stream)) return;
    if (stream.pid === undefined) {
      const list = this.pending.get(stream) ?? [];
      list.push(chunk.slice());
      this.pending.set(stream, list);
      return;
    }
    if (this.followed === undefined) {
      if (this.setup.attached && stream.pid !== this.setup.pid) {
        this.ignored.add(stream);
        this.pending.delete(stream);
        return;
      }
      this.startFollowing(stream);
      if (this.merged === undefined) {
        for (const early of this.pending.get(stream) ?? []) this.append(early);
        this.pending.clear();
        this.append(chunk);
        return;
      }
    } else if (stream !== this.followed && this.merged === undefined) {
      return;
    }
    if (this.merged === undefined) {
      this.append(chunk);
      return;
    }
    const early = this.pending.get(stream);
    this.pending.delete(stream);
    for (const c of early ?? []) this.merge(stream, c);
    this.merge(stream, chunk);
  }

  /** One chunk of any process's stream into the merged stream; the followed one's also to its measuring channel. */
  private merge(stream: CollectedStream, chunk: Uint8Array): void {
    const merged = this.merged;
    if (merged === undefined || this.mergedDone) return;
    if (stream === this.followed) this.measureChannel?.push(chunk);
    if (!this.mergedStreams.has(stream)) {
      this.mergedStreams.add(stream);
      void stream.closed.then(() => { if (!this.mergedDone) this.append(merged.endStream(stream)); });
    }
    this.append(merged.push(stream, chunk));
  }

  /** Every process's stream is over: the merged stream gets its END (the followed process's) and ends. */
  private finishMerged(): void {
    if (this.merged === undefined || this.mergedDone) return;
    this.append(this.merged.finish(this.followed?.recording.end));
    this.mergedDone = true;
    this.stream.end();
    this.update();
  }

  /** A sentence the session's message keeps from now on. */
  note(sentence: string): void {
    if (this.notes.includes(sentence)) return;
    this.notes.push(sentence);
    this.update();
  }

  private startFollowing(stream: CollectedStream): void {
    this.followed = stream;
    this.measureChannel = new MeasureChannel(stream);
    if (this.connectTimer !== undefined) clearTimeout(this.connectTimer);
    this.waitingNotice = null;
    // The first runtime to connect is the launched program itself, or the .NET process a host it
    // started (a script, an apphost wrapper) runs: the session follows that one.
    if (stream.pid !== undefined && stream.pid !== this.info.pid) {
      this.info.pid = stream.pid;
      this.counters.follow(stream.pid);
    }
    void stream.closed.then(async () => {
      this.followedClosed = true;
      // Merged, the session's stream goes on while the program's other processes run.
      if (this.merged === undefined) this.stream.end();
      this.update();
      if (this.launch === undefined && !this.finished) {
        // An attached process's stream ended on its own (it exited, or the profiler detached):
        // read the counters once more and let go of the collector.
        this.counters.finish();
        await this.collector?.close();
        this.finished = true;
        this.update();
        this.settle();
      }
    });
    this.update();
  }

  private append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const stored = this.stream.append(chunk);
    if (this.merged === undefined) this.measureChannel?.push(stored.chunk);
    this.setup.emit({ type: 'stream', sessionId: this.id, offset: stored.offset, chunk: stored.chunk });
  }

  /**
   * Ends the recording now (the collector closes: the stream ends where it is); a launched
   * program is then asked to exit as Ctrl-C would, an attached one is left running (the
   * profiler notices the workstation went away and detaches).
   */
  async stop(): Promise<SessionInfo> {
    if (!this.stopRequested && !this.finished) {
      this.stopRequested = true;
      if (this.connectTimer !== undefined) clearTimeout(this.connectTimer);
      await this.collector?.close();
      this.finishMerged();
      if (this.launch === undefined) {
        this.counters.finish();
        this.finished = true;
        this.settle();
      } else {
        void this.launch.stopProgram();
      }
      this.update();
    }
    return this.snapshot;
  }

  /** Stops and waits until a launched program has exited (or an attached one was let go). */
  async shutdown(): Promise<void> {
    await this.stop();
    await this.ended;
    this.counters.stop();
  }

  /** Lets go of its models and collector; close() frees its stream's file after. */
  protected release(): void {
    // The state no longer changes: what it says stays as the last announcement said it.
    this.closed = true;
    this.followed = undefined;
    this.measureChannel = undefined;
    this.collector = undefined;
    this.pending.clear();
    this.ignored.clear();
  }

  /** The collector could not be set up or the attach failed: the session ends with this sentence. */
  fail(message: string): void {
    if (this.connectTimer !== undefined) clearTimeout(this.connectTimer);
    this.counters.stop();
    this.failure = message;
    this.finished = true;
    this.update();
    this.settle();
  }

  private processAlive(): boolean {
    if (this.launch !== undefined && this.info.pid === this.launch.pid) return this.exit === undefined;
    if (this.setup.attached && this.stopRequested) return false;
    return this.info.pid !== null && processAlive(this.info.pid);
  }

  /** Recomputes state and message from what happened, and announces a change. */
  private update(): void {
    if (this.closed) return;
    const { state, message } = this.describe();
    this.info.state = state;
    this.info.message = message;
    // Whoever made the stream may say so in its HELLO (an EventPipe recording, say).
    this.info.approximateCpu = this.approximateCpu || this.followed?.recording.meta?.approximateCpu === true;
    this.announce();
  }

  /** The session's stream has ended: the followed stream closed, or with mergeProcesses every stream did. */
  private get streamOver(): boolean {
    return this.merged === undefined ? this.followedClosed : this.mergedDone;
  }

  private describe(): Pick<SessionInfo, 'state' | 'message'> {
    const { state, message } = this.describeState();
    return { state, message: this.notes.length === 0 ? message : join(message ?? '', ...this.notes) };
  }

  private describeState(): Pick<SessionInfo, 'state' | 'message'> {
    if (this.failure !== undefined) return { state: 'failed', message: this.failure };
    const launched = this.launch !== undefined;
    const exitClause = this.exit === undefined ? '' : `The program ${exitText(this.exit)}.`;
    const stream = this.followed;
    if (stream === undefined) {
      if (this.stopRequested) {
        return { state: 'stopped', message: join('Stopped before a .NET runtime connected; nothing was recorded.', exitClause) };
      }
      if (this.exit !== undefined) {
        return {
          state: 'failed',
          message: `${this.setup.command ?? 'The program'} ${exitText(this.exit)} before a .NET runtime connected: it is not a .NET program, or its runtime did not load the profiler (DOTNET_EnableDiagnostics=0, or another profiler already loaded).`,
        };
      }
      if (this.finished) return { state: 'stopped', message: 'Nothing was recorded.' };
      return { state: 'starting', message: this.waitingNotice };
    }
    if (!this.streamOver && !this.stopRequested) return { state: 'recording', message: null };
    if (stream.state === 'corrupt') {
      return { state: 'failed', message: join(`${stream.error ?? 'The stream was corrupt.'} What arrived before it is kept.`, exitClause) };
    }
    if (this.stopRequested) {
      const after = launched
        ? (exitClause === '' ? 'The program was asked to exit.' : exitClause)
        : this.setup.staysLoaded === undefined
          ? 'The profiler detaches; the program carries on.'
          : `The recording ends; the program carries on. ${this.setup.staysLoaded}`;
      return { state: 'stopped', message: join('Stopped.', after) };
    }
    if (!this.streamOver) return { state: 'recording', message: null };
    const end = stream.recording.end;
    let how: string;
    if (end === undefined || stream.state === 'cut') how = 'The stream was cut before its end: the process died or the connection broke.';
    else if (end.reason === 0) how = launched ? 'The runtime shut down.' : 'The process exited.';
    else if (end.reason === 1) how = 'The profiler detached.';
    else if (end.reason === EndReason.ConnectionLost) how = connectionLostSentence(end) ?? '';
    else how = 'The profiler stopped itself (see its log).';
    return { state: 'stopped', message: join(how, exitClause) };
  }
}

function join(...sentences: string[]): string {
  return sentences.filter((s) => s !== '').join(' ');
}
