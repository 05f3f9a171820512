// `record --children`: the launched process's stream goes to the run's spool, and each child's
// stream to a spool file of its own beside it (a .clrscope of that process), so a killed clrscope
// or a failed save loses none of the processes, and no process's samples wait in memory. Each is
// read back when the recording is put together; the files go once the merged recording is saved.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { SessionStream } from './session-stream.js';
import { spoolFileName } from './spool-dir.js';
import { recordingFromSessionStream } from './stream-recording.js';

export class ChildSpools {
  private readonly streams = new Map<CollectedStream, SessionStream>();
  private failed = false;

  /** `dir` undefined: no spool folder, the streams are kept in memory. */
  constructor(private readonly dir: string | undefined, private readonly notice: (sentence: string) => void) {}

  readonly listener: ChunkListener = (stream, chunk) => {
    let spooled = this.streams.get(stream);
    if (spooled === undefined) {
      spooled = this.open();
      this.streams.set(stream, spooled);
    }
    spooled.append(chunk);
  };

  private open(): SessionStream {
    if (this.dir === undefined || this.failed) return SessionStream.inMemory();
    try {
      return SessionStream.onDisk(this.dir, spoolFileName(), this.notice);
    } catch (err) {
      // The recording goes on in memory; only a kill would lose the children's part.
      this.failed = true;
      this.notice(`cannot keep the child processes' streams on disk as they arrive (${err instanceof Error ? err.message : String(err)}), so a killed clrscope would lose them.`);
      return SessionStream.inMemory();
    }
  }

  /** The recording of `stream` with every sample: its model, or read back from its spool. */
  async recordingOf(stream: CollectedStream): Promise<Recording> {
    const model = stream.recording;
    const spooled = this.streams.get(stream);
    if (model.keepsSamples || spooled === undefined) return model;
    return recordingFromSessionStream(spooled, model);
  }

  /** Completes and keeps every file that holds a recording; returns their paths. */
  keep(): string[] {
    const kept: string[] = [];
    for (const [stream, spooled] of this.streams) {
      const file = spooled.spoolFile;
      if (file === undefined) continue;
      if (stream.state !== 'corrupt') file.finish(stream.state === 'ended' ? stream.recording.end : undefined);
      if (file.holdsRecords) {
        file.close();
        kept.push(file.path);
      } else {
        file.remove();
      }
    }
    this.streams.clear();
    return kept;
  }

  /** The merged recording is saved: the files are not needed. */
  async remove(): Promise<void> {
    await Promise.all([...this.streams.values()].map((s) => s.close()));
    this.streams.clear();
  }
}
