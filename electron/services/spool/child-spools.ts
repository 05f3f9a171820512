// `record --children`: the launched process's stream goes to the run's spool, and each child's
// stream to a spool file of its own beside it (a .clrscope of that process), so a killed clrscope
// or a failed save loses none of the processes. Removed once the merged recording is saved.

import type { ChunkListener, CollectedStream } from '../collector/collector.js';
import { spoolFileName } from './spool-dir.js';
import { StreamSpool } from './stream-spool.js';

export class ChildSpools {
  private readonly spools = new Map<CollectedStream, StreamSpool>();
  private failed = false;

  constructor(private readonly dir: string, private readonly notice: (sentence: string) => void) {}

  readonly listener: ChunkListener = (stream, chunk) => {
    let spool = this.spools.get(stream);
    if (spool === undefined) {
      if (this.failed) return;
      try {
        spool = StreamSpool.create(this.dir, spoolFileName(), this.notice);
      } catch (err) {
        // The recording goes on in memory; only a kill would lose this child's part.
        this.failed = true;
        this.notice(`cannot keep the child processes' streams on disk as they arrive (${err instanceof Error ? err.message : String(err)}), so a killed clrscope would lose them.`);
        return;
      }
      this.spools.set(stream, spool);
    }
    spool.push(chunk);
  };

  /** Completes and keeps every file that holds a recording; returns their paths. */
  keep(): string[] {
    const kept: string[] = [];
    for (const [stream, spool] of this.spools) {
      if (stream.state !== 'corrupt') spool.finish(stream.state === 'ended' ? stream.recording.end : undefined);
      if (spool.holdsRecords) {
        spool.close();
        kept.push(spool.path);
      } else {
        spool.remove();
      }
    }
    this.spools.clear();
    return kept;
  }

  /** The merged recording is saved: the files are not needed. */
  remove(): void {
    for (const spool of this.spools.values()) spool.remove();
    this.spools.clear();
  }
}
