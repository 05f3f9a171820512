// Several processes' wire streams -> one .clrscope stream, as their bytes arrive: the streaming
// form of merge-processes.ts, for a workstation session that records every .NET process a
// launched program starts. The session spools one stream and every page decodes one stream, the
// format of a saved multi-process file, so the live views, an export and a reopened file read the
// same thing. Each process's records are decoded as they come and written again in the merged
// recording's id spaces: a definition two processes share (module path and MVID; function; frame;
// string) gets one id, threads, stacks and tasks get their own. The first process's HELLO is the
// stream's; no process's END is written: finish() writes the recording's once every stream is over.
//
// While one process has connected the stream is that process's own bytes, passed on a whole record
// at a time (its END held back), so a program that starts no .NET child records byte for byte as
// it would without children, for the cost of reading its stream. When a second one connects, the
// encoder takes the stream over from there with the reader's coding state (the first process's
// ids stay its own, every later definition gets an id above them), the first one's threads are
// named again with their "[pid name] " prefix and a PROCESS record lists them; from then on every
// new thread gets its prefix and a PROCESS record of its own (a PROCESS record of a pid already
// listed adds threads). A first process with async stacks is written again from its HELLO on: a
// TASK_SAMPLES record may follow its SAMPLES record in a later chunk, after another process joined.
//
// A process whose stream turns out corrupt, or names what it never defined, stops there: what it
// sent before stays, and nothing it sent after can make the merged stream unreadable.
//
// The work is in two rooms: merged-encoder.ts (the merged stream's encoder and id spaces) and
// process-reencoder.ts (one process's stream decoded and written again); this file routes chunks.

import { MergedEncoder, type ProcessTreeStreamOptions } from './merged-encoder.js';
import { joined } from '../../wire/joined-bytes.js';
import { ProcessReencoder } from './process-reencoder.js';
import type { EndRecord } from '../../wire/records.js';

export type { ProcessTreeStreamOptions } from './merged-encoder.js';

export class ProcessTreeStream {
  private readonly merged: MergedEncoder;
  private readonly parts = new Map<object, ProcessReencoder>();
  private first: ProcessReencoder | undefined;
  // Chunks of later processes that came before the first process's HELLO (the stream's own).
  private waiting: [ProcessReencoder, Uint8Array][] = [];
  private finished = false;

  constructor(options: ProcessTreeStreamOptions) {
    this.merged = new MergedEncoder(options);
  }

  /** True once a second process joined: thread names carry their process and PROCESS records say whose they are. */
  get hasSeveralProcesses(): boolean {
    return this.merged.several;
  }

  /**
   * Takes the next bytes of one process's stream (`source` stands for the stream: the first one
   * given is the recording's own) and returns the merged stream's bytes they made, possibly none.
   */
  push(source: object, chunk: Uint8Array): Uint8Array {
    if (this.finished) return new Uint8Array(0);
    let part = this.parts.get(source);
    if (part === undefined) {
      part = new ProcessReencoder(this.merged, this.first === undefined);
      this.parts.set(source, part);
      this.merged.parts.push(part);
      this.first ??= part;
    }
    if (!this.merged.helloWritten && part !== this.first) {
      // Held only while the first stream may still say HELLO.
      if (this.first?.failed !== true) this.waiting.push([part, chunk.slice()]);
      return new Uint8Array(0);
    }
    part.push(chunk);
    const out = [part.takeRaw()];
    if (!this.merged.helloWritten) {
      if (part.failed) this.waiting = [];
    } else if (this.waiting.length > 0) {
      const waiting = this.waiting;
      this.waiting = [];
      for (const [p, c] of waiting) p.push(c);
    }
    out.push(this.merged.enc.takeBytes(true));
    return joined(out);
  }

  /** A process's stream is over: samples it still held back (waiting for their tasks) go out. */
  endSource(source: object): Uint8Array {
    this.parts.get(source)?.flush();
    return this.merged.enc.takeBytes(true);
  }

  /**
   * Every stream is over: what any process held back, then the recording's END: while the stream
   * is the first process's own, the END it sent (if any, as it sent it); with several, `end` (the
   * first process's, as the session saw it).
   */
  finish(end: EndRecord | undefined): Uint8Array {
    if (this.finished) return new Uint8Array(0);
    this.finished = true;
    this.waiting = [];
    const first = this.first;
    if (first !== undefined && first.passThrough) return first.takeRaw(true);
    for (const part of this.merged.parts) part.flush();
    if (this.merged.helloWritten && end !== undefined) this.merged.enc.end({ ...end });
    return this.merged.enc.takeBytes(true);
  }
}
