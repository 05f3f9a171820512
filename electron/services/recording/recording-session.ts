// What the workstation needs of any session, whether it records a live process (live-session.ts,
// fallback-session.ts) or shows a recording file (workstation/file-session.ts): the API's operations
// read and act through this. The lifecycle the three share is session-base.ts's.

import type { CountersPoint, MeasureReply, OutputHistory, SessionInfo } from '../../../structs/api/contract.js';
import type { StackThreadSums } from '../../../structs/profile/aggregate.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { SessionStream } from '../spool/session-stream.js';

export interface RecordingSession {
  readonly id: string;
  /** The session's wire stream (on disk), replayed to each page that subscribes from where it asks. */
  readonly stream: SessionStream;
  readonly snapshot: SessionInfo;
  /**
   * The session's model: its definitions (threads, functions, frames, stacks, modules), summary
   * figures and suspensions; undefined while nothing was recorded. A live session's model keeps
   * no samples (Recording.keepsSamples false): they are in `stream`, and in the renderer's worker.
   */
  readonly recording: Recording | undefined;
  /**
   * What an export writes: the recording with every sample (a live session's read back from its
   * stream, in steps, each reported to `progress`, which may throw to stop it: a cancelled
   * export); undefined while nothing was recorded.
   */
  recordingWithSamples(progress?: (done: number, total: number) => void): Promise<Recording | undefined>;
  /**
   * For a pprof export of a long session: the recording with its samples summed per stack and
   * thread instead of kept. Sessions that hold their recording whole have no need of it.
   */
  recordingSummed?(progress?: (done: number, total: number) => void): Promise<{ recording: Recording; sums: StackThreadSums } | undefined>;
  /** The one sentence an export gets while `recording` is undefined: why there is none (yet). */
  nothingToExport(): string;
  countersHistory(): CountersPoint[];
  /** A launched program's output as far as it is kept; empty for every other session. */
  outputHistory(): OutputHistory;
  /** Measures methods of the session's process exactly; UserError when it cannot (a file, an EventPipe session, a stopped one). */
  measure(pattern: string): Promise<MeasureReply>;
  revertMeasure(measureId: number): Promise<MeasureReply>;
  stop(): Promise<SessionInfo>;
  /** Stops and waits until nothing of the session runs any more. */
  shutdown(): Promise<void>;
  /** Shuts down, then frees what the session holds: its stream's file, its recording. */
  close(): Promise<void>;
}
