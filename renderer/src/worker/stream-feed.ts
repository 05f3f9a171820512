// Feeds a session's wire bytes, as the main process forwards them, into a decoder and a
// Recording. Chunks carry their stream offset: a renderer that re-subscribes, or a transport
// that retries, may hand over bytes already seen, so the overlap is skipped rather than
// decoded twice. A gap (bytes that never came) would desynchronise the decoder, so it stops
// the stream like corruption does. Either way what was recorded stays queryable.
//
// With `recentSamples`, the recording holds only the samples of the latest chunks (their readers
// fold them into sums as they arrive) and the feed keeps the stream's bytes instead, 8-9 bytes a
// sample rather than 33: a view that needs every sample (a time window, a thread filter, the
// timeline) has them decoded again from those bytes, once, and from then on they are all kept.
// Opening an hour's recording to its flame graph then costs one decode and the sums, not the
// columns of 23 million samples.

import { processRecordTap } from '../../../structs/formats/clrscope-file/process-record.js';
import type { RecordTap } from '../../../structs/formats/clrscope-file/record-tap.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { WireFormatError } from '../../../structs/wire/wire-format-error.js';
import { Recording } from '../../../structs/profile/recording.js';
import { RecordingError } from '../../../structs/profile/recording-error.js';

export interface StreamFeedOptions {
  /** Keep only the latest chunks' samples in the recording, and the bytes to decode the rest again (see above). */
  recentSamples?: boolean;
}

export class StreamFeed {
  readonly recording: Recording;
  private readonly decoder: WireDecoder;
  // A stream of several processes (a launch with child processes, such a file opened) says whose each thread is.
  private readonly processes: RecordTap;
  private received = 0;
  private failure: string | null = null;
  // The stream's bytes, while the recording keeps only recent samples.
  private bytes: Uint8Array[] = [];

  constructor(options: StreamFeedOptions = {}) {
    this.recording = options.recentSamples === true
      ? new Recording({ keepSamples: 'recent', restoreSamples: () => this.decodeAgain() })
      : new Recording();
    this.decoder = new WireDecoder(this.recording.sink);
    this.processes = processRecordTap(this.recording, 'stream');
  }

  /** Bytes of the stream decoded so far (the offset the next new byte has). */
  get bytesReceived(): number {
    return this.received;
  }

  /** The sentence saying why the stream could not be read further, or null. */
  get error(): string | null {
    return this.failure;
  }

  /**
   * Decodes the part of `bytes` (whose first byte is at stream position `offset`) not seen
   * yet. Returns the error sentence when this chunk made the stream unreadable; null
   * otherwise, including for every chunk after a failure (reported once, kept in `error`).
   */
  push(offset: number, bytes: Uint8Array): string | null {
    if (this.failure !== null) return null;
    if (!Number.isSafeInteger(offset) || offset < 0) return this.fail(`A stream chunk arrived with an invalid offset (${offset}); the worker stops reading this stream at byte ${this.received}.`);
    if (offset > this.received) {
      return this.fail(`Bytes ${this.received} to ${offset - 1} of the stream never reached the worker; it stops reading at byte ${this.received}.`);
    }
    const end = offset + bytes.length;
    if (end <= this.received) return null;
    const fresh = offset === this.received ? bytes : bytes.subarray(this.received - offset);
    if (!this.recording.keepsSamples) this.bytes.push(fresh);
    try {
      this.decoder.push(fresh);
      this.processes.push(fresh);
    } catch (err) {
      this.received = end;
      return this.fail(this.describe(err));
    }
    this.received = end;
    return null;
  }

  /** Every sample, decoded again from the kept bytes (up to where the stream failed, as it did live); the bytes go. */
  private decodeAgain(): Recording {
    const rec = new Recording();
    const decoder = new WireDecoder(rec.sink);
    try {
      for (const chunk of this.bytes) decoder.push(chunk);
    } catch {
      // The same record failed live: what came before it is what the recording counted.
    }
    this.bytes = [];
    return rec;
  }

  private fail(message: string): string {
    this.failure = message;
    return message;
  }

  /** One sentence naming the stream offset, the way the collector words it. */
  private describe(err: unknown): string {
    if (err instanceof WireFormatError) return err.message;
    if (err instanceof RecordingError) return `Corrupt clrscope stream: the record at byte ${this.decoder.recordOffset} ${err.reason}.`;
    const message = err instanceof Error ? err.message : String(err);
    return `Reading the stream failed at the record at byte ${this.decoder.recordOffset}: ${message}`;
  }
}
