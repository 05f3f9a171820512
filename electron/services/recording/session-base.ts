// The lifecycle every session shares, whatever records it: a live process through clrscope's
// profiler (live-session.ts), an attached one through EventPipe (fallback-session.ts), or a
// recording file (workstation/file-session.ts). Each has an id, a stream (the recording as a
// wire stream, on disk, replayed to every page), a SessionInfo announced to clients each time it
// changes (its state and the sentence that says what ended it), a promise that settles once
// nothing of it runs any more, and a close that frees what it holds. The subclasses say how they
// start, follow and stop; recording-session.ts is what the workstation asks of them.

import type { OutputHistory, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { SessionStream } from '../spool/session-stream.js';
import { noOutput } from './output-buffer.js';

export type SessionEmit = (event: WorkstationEvent) => void;

export abstract class SessionBase {
  readonly stream: SessionStream;
  protected readonly info: SessionInfo;
  private lastAnnounced = '';
  private readonly settled: Promise<void>;
  private resolveSettled!: () => void;
  private isSettled = false;

  protected constructor(info: SessionInfo, stream: SessionStream, protected readonly emit: SessionEmit) {
    this.info = info;
    this.stream = stream;
    this.settled = new Promise((resolve) => { this.resolveSettled = resolve; });
  }

  get id(): string {
    return this.info.id;
  }

  get snapshot(): SessionInfo {
    return { ...this.info };
  }

  /** Resolves once nothing of the session runs any more (the program exited, the process was let go, the runtime's session ended). */
  get ended(): Promise<void> {
    return this.settled;
  }

  /** Whether `ended` has resolved. */
  protected get hasEnded(): boolean {
    return this.isSettled;
  }

  /** Nothing of the session runs any more: `ended` resolves (once). */
  protected settle(): void {
    this.isSettled = true;
    this.resolveSettled();
  }

  /** Tells every client what SessionInfo says now, when that changed since it last did. */
  protected announce(): void {
    const text = JSON.stringify(this.info);
    if (text === this.lastAnnounced) return;
    this.lastAnnounced = text;
    this.emit({ type: 'session', session: this.snapshot });
  }

  abstract get recording(): Recording | undefined;

  /** A launched program's output as far as it is kept; none for an attached process or a file. */
  outputHistory(): OutputHistory {
    return noOutput();
  }

  abstract stop(): Promise<SessionInfo>;

  /** Stops and waits until nothing of the session runs any more. */
  abstract shutdown(): Promise<void>;

  /** Shuts down, then frees what the session holds (release), its stream's file last. */
  async close(): Promise<void> {
    await this.shutdown();
    this.release();
    await this.stream.close();
  }

  /** Lets go of what the session holds besides its stream (its models, its collector); the session has shut down. */
  protected abstract release(): void;
}
