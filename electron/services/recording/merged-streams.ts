// A launched session that records the program's child processes too (the workstation's "child
// processes"): every .NET process's stream is merged as it arrives into the session's one stream
// (structs/formats/clrscope-file/process-tree-stream.ts; the launched program's own bytes until a
// second process connects), which the session spools and every page decodes, and this process
// keeps the model of that merged stream, without samples, for exports and source lines. The collector's models of the single streams stay what they are (how each
// ended, the measuring channel of the first).

import { processRecordTap } from '../../../structs/formats/clrscope-file/process-record.js';
import { ProcessTreeStream } from '../../../structs/formats/clrscope-file/process-tree-stream.js';
import { Recording } from '../../../structs/profile/recording.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import type { EndRecord } from '../../../structs/wire/records.js';
import type { RecordTap } from '../../../structs/formats/clrscope-file/record-tap.js';
import type { CollectedStream } from '../collector/collector.js';
import { readCommSync } from '../diagnostics/proc.js';

export class MergedStreams {
  /** The merged stream's model: definitions, processes and counts, no samples (they are in the session's stream). */
  readonly model = new Recording({ keepSamples: false });
  private readonly decoder = new WireDecoder(this.model.sink);
  private readonly processes: RecordTap = processRecordTap(this.model, 'stream');
  private readonly tree: ProcessTreeStream;
  private broken = false;
  private first: CollectedStream | undefined;
  // The followed process's stream turned out corrupt: the session says so as it would without children.
  private firstFailed = false;

  /** `notice`: a sentence for the session when another process's stream cannot be merged further. */
  constructor(private readonly notice: (sentence: string) => void, nameOf: (pid: number) => string = readCommSync) {
    this.tree = new ProcessTreeStream({
      nameOf,
      onFailure: (pid, sentence) => {
        if (pid !== undefined && pid === this.first?.pid) this.firstFailed = true;
        else notice(sentence);
      },
    });
  }

  /** The merged stream's bytes this chunk of `stream` made (possibly none); the first stream pushed is the recording's own. */
  push(stream: CollectedStream, chunk: Uint8Array): Uint8Array {
    this.first ??= stream;
    return this.taken(this.tree.push(stream, chunk));
  }

  /** `stream` closed: samples it held back for their tasks go out. */
  endStream(stream: CollectedStream): Uint8Array {
    return this.taken(this.tree.endSource(stream));
  }

  /**
   * Every stream is over: the last bytes, with `end` (the first process's END as the collector saw
   * it) when there is one. While the stream is the first process's own bytes, an END the
   * collector added on a stop is the model's alone, as for a session without children.
   */
  finish(end: EndRecord | undefined): Uint8Array {
    const out = this.taken(this.tree.finish(end));
    if (!this.broken && this.model.meta !== undefined && this.model.end === undefined && end !== undefined) this.model.sink.onEnd(end);
    this.model.finish();
    return out;
  }

  private taken(bytes: Uint8Array): Uint8Array {
    if (bytes.length === 0 || this.broken) return bytes;
    try {
      this.decoder.push(bytes);
      this.processes.push(bytes);
    } catch (err) {
      this.broken = true;
      // The followed process's own corrupt bytes, passed as they came: the session already says so.
      // Otherwise our encoder wrote them: a bug, said once; the stream itself goes on to the pages.
      if (!this.firstFailed) this.notice(`The session's model of the merged stream stopped: ${err instanceof Error ? err.message : String(err)}`);
    }
    return bytes;
  }
}
