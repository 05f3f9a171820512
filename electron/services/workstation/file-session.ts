// A session that shows a recording file: stopped from the start, no process, and a stream that
// is the recording re-encoded as a .clrscope stream (a .clrscope file is a wire v1 stream), so
// the renderer's worker and every view take it exactly like a live recording. The session keeps
// no sample (an export reads them back from the stream); the file is parsed and re-encoded in a
// worker thread (open-in-worker.ts).

import { basename } from 'node:path';
import type { CountersPoint, MeasureReply, SessionInfo } from '../../../structs/api/contract.js';
import { UserError } from '../errors/user-error.js';
import { RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import { Recording } from '../../../structs/profile/recording.js';
import { openInWorker } from './open-in-worker.js';
import { checkCancelled } from './cancellable-jobs.js';
import type { RecordingFileFormat } from '../../../structs/formats/registry.js';
import { cpuIsEstimated } from './imported-cpu.js';
import type { SessionStream } from '../spool/session-stream.js';
import type { RecordingSession } from '../recording/recording-session.js';
import { SessionBase } from '../recording/session-base.js';
import { connectionLostSentence } from '../../../structs/profile/stream-end.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class FileSession extends SessionBase implements RecordingSession {
  private constructor(
    stream: SessionStream,
    info: SessionInfo,
    private recordingValue: Recording | undefined,
    private readonly counters: readonly CountersPoint[],
  ) {
    // Nothing changes after it is made: its one announcement is the workstation's, when it lists it.
    super(info, stream, () => undefined);
    this.settle();
  }

  /**
   * The session of a file whose stream is in `stream` (ended): `rec` is that stream's model,
   * read without its samples (open-in-worker.ts makes both, off the event loop).
   */
  static fromStream(id: string, path: string, format: RecordingFileFormat, rec: Recording, counters: readonly CountersPoint[], stream: SessionStream): FileSession {
    const meta = rec.meta;
    const startMs = meta === undefined ? 0 : Number(meta.startUnixNs / 1_000_000n);
    const intervalNs = meta?.intervalNs ?? 0;
    const lostConnection = connectionLostSentence(rec.end);
    const info: SessionInfo = {
      id,
      pid: null,
      label: basename(path),
      state: 'stopped',
      startedAtMs: startMs > 0 ? startMs : Date.now(),
      intervalMs: intervalNs > 0 ? Math.max(1, Math.round(intervalNs / 1e6)) : 0,
      attached: false,
      source: 'file',
      approximateCpu: cpuIsEstimated(format, rec),
      exitCode: null,
      message: `Opened from ${path}.${rec.cut ? ' The recording in it was cut before its end.' : ''}${lostConnection === undefined ? '' : ` ${lostConnection}`}`,
    };
    return new FileSession(stream, info, rec, counters);
  }

  get recording(): Recording | undefined {
    return this.recordingValue;
  }

  /** Every sample, read back from the session's stream (the recording saved as a .clrscope file), a step at a time. */
  async recordingWithSamples(progress?: (done: number, total: number) => void): Promise<Recording | undefined> {
    if (this.recordingValue === undefined) return undefined;
    const reader = new RecordingFileReader();
    for (let at = 0; at < this.stream.length;) {
      const chunk = await this.stream.read(at);
      if (chunk.length === 0) break;
      reader.push(chunk);
      at += chunk.length;
      progress?.(at, this.stream.length);
      await nextTurn();
    }
    return reader.finish().recording;
  }

  /** Never asked for: a file session always has its recording. */
  nothingToExport(): string {
    return `Session ${this.id} has nothing to export: its file holds no recording.`;
  }

  countersHistory(): CountersPoint[] {
    return [...this.counters];
  }

  async measure(): Promise<MeasureReply> {
    throw new UserError('A recording file has no running methods to measure: measure a launched or attached program.');
  }

  async revertMeasure(): Promise<MeasureReply> {
    throw new UserError('A recording file has no measured methods to revert.');
  }

  /** Nothing runs: a file session is stopped from the start. */
  async stop(): Promise<SessionInfo> {
    return this.snapshot;
  }

  async shutdown(): Promise<void> {}

  protected release(): void {
    this.recordingValue = undefined;
  }
}

/**
 * Reads a recording file into a new, stopped session over `stream`. The file is parsed in a
 * worker thread; this loop only spools the stream it sends back and, once the worker has checked
 * it all, reads that stream's model (without samples) a piece at a time between other clients'
 * requests. A cancel (`signal`) stops either part; the stream is closed on any failure.
 */
export async function openFileSession(
  path: string, stream: SessionStream, newId: () => string,
  onProgress: (phase: 'reading' | 'preparing', done: number, total: number) => void, signal?: AbortSignal,
): Promise<FileSession> {
  try {
    const opened = await openInWorker(path, { onProgress, onChunk: (bytes) => { stream.append(bytes); } }, signal);
    stream.end();
    const model = new RecordingFileReader(new Recording({ keepSamples: false }));
    for (let at = 0; at < stream.length;) {
      const chunk = await stream.read(at);
      if (chunk.length === 0) break;
      model.push(chunk);
      at += chunk.length;
      await nextTurn();
      checkCancelled(signal, `Opening ${path}`);
    }
    return FileSession.fromStream(newId(), path, opened.format, model.finish().recording, opened.counters, stream);
  } catch (err) {
    await stream.close();
    throw err;
  }
}
